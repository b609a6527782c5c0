import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { serve } from '../../src/server/main.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { testConfig } from '../support/build-test-app.js';

/** The sessions open on one database, this check's own left out. */
async function sessionsOn(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe('a server that fails to start [postgres]', { skip: !POSTGRES_AVAILABLE }, () => {
  it('closes everything it opened: the pool, the LISTEN connection and the services started before the failure', async () => {
    const database = await createPostgresDatabase();
    after(() => database.drop());
    // The Redis store without its URL fails in buildApp, after the services listening on the
    // notifications port (tenancy, API keys, tokens, credentials) have started.
    const config = testConfig({ database: { kind: 'postgres', url: database.url }, rateLimitStore: 'redis', redisUrl: undefined, port: 0 });
    await assert.rejects(serve(config), /needs REDIS_URL/);
    let open = await sessionsOn(database.url);
    for (let waited = 0; open > 0 && waited < 5_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      open = await sessionsOn(database.url);
    }
    assert.equal(open, 0, 'no connection of the failed start is left on the database');
  });
});
