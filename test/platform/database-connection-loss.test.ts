import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/server/app.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { PostgresNotifyBus } from '../../src/platform/database/notify-bus.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { testConfig } from '../support/build-test-app.js';
import { Given, type GivenTenant } from '../support/given.js';

// Issue 12: terminating the server's PostgreSQL connections (a failover, a restart, an idle
// reaper, a network blip) crashed the process with an unhandled 'error' event on a pg Client.
// The test process is the server here: if that happens again, the whole run dies.

type Json = Record<string, unknown>;

const AGENT = JSON.stringify({ mbox: 'mailto:learner@example.com' });
const WRITERS = 8;
const WRITE_FOR_MS = 4_000;
const TERMINATE_EVERY_MS = 300;
const BATCH_SIZE = 3;

function statement(id: string): Json {
  const n = id.slice(0, 8);
  return {
    id,
    actor: { objectType: 'Agent', name: `Learner ${n}`, mbox: `mailto:learner-${n}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { objectType: 'Activity', id: `http://example.com/activities/${n}` },
  };
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: string;
}

interface Server {
  app: FastifyInstance;
  db: PostgresDatabase;
  notifications: PostgresNotifyBus;
  base: string;
}

async function startServer(url: string): Promise<Server> {
  const db = new PostgresDatabase(url, { max: 10 });
  const notifications = new PostgresNotifyBus(url, db, { retryMs: 50 });
  const app = await buildApp(testConfig(), db, { logger: false, notifications });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, db, notifications, base };
}

async function send(base: string, tenant: GivenTenant, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...tenant.xapi, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
}

/** Terminates every client backend of the current database but its own, every `everyMs`, until stopped. */
function startTerminator(url: string, everyMs: number) {
  let stopped = false;
  let terminated = 0;
  const done = (async () => {
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    try {
      while (!stopped) {
        await sleep(everyMs);
        const { rowCount } = await killer.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        );
        terminated += rowCount ?? 0;
      }
    } finally {
      await killer.end();
    }
  })();
  return {
    async stop(): Promise<number> {
      stopped = true;
      await done;
      return terminated;
    },
  };
}

/** Runs `work` over `items` with at most `width` at a time. */
async function eachLimited<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

describe('a dropped PostgreSQL connection', { skip: !POSTGRES_AVAILABLE && 'needs PostgreSQL' }, () => {
  let database: { url: string; drop(): Promise<void> };
  const servers: Server[] = [];

  before(async () => {
    database = await createPostgresDatabase();
    const migrator = new PostgresDatabase(database.url, { max: 1 });
    await migrate(migrator);
    await migrator.close();
    // Two servers on one database, as two processes behind a load balancer.
    servers.push(await startServer(database.url), await startServer(database.url));
  });

  after(async () => {
    for (const server of servers) {
      await server.app.close();
      await server.notifications.close();
      await server.db.close();
    }
    await database?.drop();
  });

  it('answers 503 with Retry-After while connections are terminated, loses nothing acknowledged and recovers', async (t) => {
    const [first, second] = servers;
    const tenant = await new Given(first.app, first.db).tenant();

    // The LISTEN connections are terminated too: each must reconnect and report the gap.
    const heard = servers.map(() => new Set<string>());
    let gaps = 0;
    for (const [index, server] of servers.entries()) {
      await server.notifications.listen(
        'connection_loss_probe',
        (payload) => heard[index].add(payload),
        () => gaps++,
      );
    }

    const answers: Answer[] = [];
    const ackedStatements: string[] = [];
    const batches: { ids: string[]; acked: boolean }[] = [];
    const ackedMerges = new Map<string, Json>(); // activityId → every acknowledged key
    const ackedPuts: { query: string; n: number }[] = []; // new documents, written together with other requests'

    const writer = async (index: number, deadline: number) => {
      const { base } = servers[index % servers.length];
      const kind = ['single', 'batch', 'merge', 'put'][index % 4];
      const activityId = `https://example.com/courses/connection-loss/${index}`;
      ackedMerges.set(activityId, {});
      for (let n = 0; Date.now() < deadline; n++) {
        let answer: Answer;
        if (kind === 'single') {
          const id = randomUUID();
          answer = await send(base, tenant, 'PUT', `/xapi/statements?statementId=${id}`, statement(id));
          if (answer.status === 204) ackedStatements.push(id);
        } else if (kind === 'batch') {
          const ids = Array.from({ length: BATCH_SIZE }, () => randomUUID());
          answer = await send(base, tenant, 'POST', '/xapi/statements', ids.map(statement));
          batches.push({ ids, acked: answer.status === 200 });
        } else if (kind === 'put') {
          const query = new URLSearchParams({ activityId, agent: AGENT, stateId: `new-${n}` }).toString();
          answer = await send(base, tenant, 'PUT', `/xapi/activities/state?${query}`, { writer: index, n });
          if (answer.status === 204) ackedPuts.push({ query, n });
        } else {
          // Two at a time into one document, so that they may share a batch (one transaction, one row).
          const query = new URLSearchParams({ activityId, agent: AGENT, stateId: 'progress' });
          const merges = await Promise.all(
            ['a', 'b'].map(async (half) => {
              const key = `w${index}_${n}${half}`;
              const merged = await send(base, tenant, 'POST', `/xapi/activities/state?${query}`, { [key]: n });
              if (merged.status === 204) ackedMerges.get(activityId)![key] = n;
              return merged;
            }),
          );
          answers.push(merges[0]);
          answer = merges[1];
        }
        answers.push(answer);
      }
    };

    const terminator = startTerminator(database.url, TERMINATE_EVERY_MS);
    const deadline = Date.now() + WRITE_FOR_MS;
    let terminated: number;
    try {
      await Promise.all(Array.from({ length: WRITERS }, (_, index) => writer(index, deadline)));
    } finally {
      terminated = await terminator.stop();
    }
    assert.ok(terminated > 0, 'the run terminated backends');

    // Every failure was a 503 the client may retry; nothing else (above all no 500).
    const failures = answers.filter((answer) => answer.status >= 300);
    for (const failure of failures) {
      assert.equal(failure.status, 503, failure.body);
      assert.ok(failure.retryAfter, 'a 503 carries Retry-After');
      assert.equal(JSON.parse(failure.body).code, 'database.unavailable', failure.body);
    }
    assert.ok(answers.length - failures.length > 0, 'some writes were acknowledged');
    t.diagnostic(`${answers.length} writes, ${failures.length} answered 503, ${terminated} backends terminated`);

    // The pools recover by themselves: every read below must succeed at once, on both servers.
    await sleep(200);
    const read = (index: number, path: string) => send(servers[index % servers.length].base, tenant, 'GET', path);
    let reads = 0;
    await eachLimited(ackedStatements, 8, async (id) => {
      const got = await read(reads++, `/xapi/statements?statementId=${id}`);
      assert.equal(got.status, 200, `acknowledged statement ${id}: ${got.body}`);
      assert.equal(JSON.parse(got.body).id, id);
    });

    // A batch is one transaction: all of it or none, and all of it when acknowledged.
    await eachLimited(batches, 8, async (batch) => {
      let found = 0;
      for (const id of batch.ids) {
        const got = await read(reads++, `/xapi/statements?statementId=${id}`);
        assert.ok(got.status === 200 || got.status === 404, got.body);
        if (got.status === 200) found++;
      }
      if (batch.acked) assert.equal(found, BATCH_SIZE, `acknowledged batch ${batch.ids.join(',')}`);
      else assert.ok(found === 0 || found === BATCH_SIZE, `half-stored batch ${batch.ids.join(',')}: ${found} of ${BATCH_SIZE}`);
    });
    assert.ok(
      batches.some((batch) => batch.acked),
      'some batches were acknowledged',
    );

    // A new document's insert shares its statement with other requests': acknowledged means stored.
    assert.ok(ackedPuts.length > 0, 'some PUTs of new documents were acknowledged');
    await eachLimited(ackedPuts, 8, async ({ query, n }) => {
      const got = await read(reads++, `/xapi/activities/state?${query}`);
      assert.equal(got.status, 200, `acknowledged PUT ${query}: ${got.body}`);
      assert.equal((JSON.parse(got.body) as Json).n, n);
    });

    for (const [activityId, keys] of ackedMerges) {
      const query = new URLSearchParams({ activityId, agent: AGENT, stateId: 'progress' });
      const got = await read(reads++, `/xapi/activities/state?${query}`);
      if (Object.keys(keys).length === 0) continue;
      assert.equal(got.status, 200, got.body);
      const document = JSON.parse(got.body) as Json;
      for (const [key, value] of Object.entries(keys)) assert.equal(document[key], value, `acknowledged merge ${key}`);
    }

    // Each LISTEN connection came back: a message published now reaches both servers.
    assert.ok(gaps > 0, 'the LISTEN connections were cut and reported a gap');
    const probe = randomUUID();
    for (let attempt = 0; attempt < 100 && !heard.every((set) => set.has(probe)); attempt++) {
      await second.notifications.publish('connection_loss_probe', probe).catch(() => {});
      await sleep(200);
    }
    assert.ok(
      heard.every((set) => set.has(probe)),
      'both servers hear notifications again',
    );
  });
});

describe('an unreachable PostgreSQL server', { skip: !POSTGRES_AVAILABLE && 'needs PostgreSQL' }, () => {
  it('answers 503 with Retry-After, not 500', async () => {
    // Nothing listens on port 1: every connection attempt is refused.
    const db = new PostgresDatabase('postgres://postgres@127.0.0.1:1/learnbase');
    const app = await buildApp(testConfig(), db, { logger: false });
    try {
      const headers = {
        authorization: `Basic ${Buffer.from('key:secret').toString('base64')}`,
        'x-svc-tenant': 'anyone',
        'x-experience-api-version': '2.0.0',
      };
      for (const url of ['/api/me', '/xapi/statements?limit=1']) {
        const res = await app.inject({ method: 'GET', url, headers });
        assert.equal(res.statusCode, 503, res.body);
        assert.ok(res.headers['retry-after'], 'Retry-After');
        assert.equal(res.json().code, 'database.unavailable');
      }
    } finally {
      await app.close();
      await db.close();
    }
  });
});
