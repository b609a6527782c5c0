import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { POSTGRES_AVAILABLE, createPostgresDatabase } from '../support/backends.js';
import { runCli, startCli } from '../support/cli.js';
import { copyMigratedDataFolder } from '../support/templates.js';

const folder = mkdtempSync(join(tmpdir(), 'learnbase-import-killed-'));
after(() => rmSync(folder, { recursive: true, force: true }));

const USERS = 30_000;
const usersFile = join(folder, 'users.json');
writeFileSync(
  usersFile,
  JSON.stringify({
    users: Array.from({ length: USERS }, (_, n) => ({
      name: `Learner ${n}`,
      attributes: { email: `learner${n}@example.com`, employeeId: `E${n}`, city: `City ${n % 50}` },
    })),
  }),
);

async function counts(db: Database, tenant: string) {
  const { rows } = await db.query<{ actors: number; identifiers: number; runs: number }>(
    `SELECT (SELECT count(*) FROM actors a JOIN tenants t ON t.id = a.tenant_id WHERE t.name = $1)::int AS actors,
            (SELECT count(*) FROM actor_identifiers i JOIN tenants t ON t.id = i.tenant_id WHERE t.name = $1)::int AS identifiers,
            (SELECT count(*) FROM import_runs r JOIN tenants t ON t.id = r.tenant_id WHERE t.name = $1)::int AS runs`,
    [tenant],
  );
  return rows[0];
}

/**
 * Starts `learnbase import users` on a large file and kills it (SIGKILL) once it says it is
 * importing, so the kill lands inside the import's transaction; then nothing of it may be stored,
 * and the same import run again stores everything.
 */
async function killMidImport(flags: string[], open: () => Promise<Database>): Promise<void> {
  const created = await runCli(['tenant', 'create', 'acme', ...flags]);
  assert.equal(created.code, 0, created.stderr);
  const child = startCli(['import', 'users', '--tenant', 'acme', usersFile, ...flags]);
  let progress = '';
  const importing = new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk) => {
      progress += chunk;
      if (progress.includes(`importing ${USERS} users`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the import ended (${code}) before it was killed:\n${progress}`)));
  });
  await importing;
  // Inside the transaction: the rows are being checked and written.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;

  let db = await open();
  try {
    assert.deepEqual(await counts(db, 'acme'), { actors: 0, identifiers: 0, runs: 0 }, 'nothing of the killed import is stored');
  } finally {
    await db.close();
  }
  const again = await runCli(['import', 'users', '--tenant', 'acme', usersFile, '--json', ...flags]);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(JSON.parse(again.stdout).new, USERS);
  db = await open();
  try {
    assert.deepEqual(await counts(db, 'acme'), { actors: USERS, identifiers: USERS, runs: 1 });
  } finally {
    await db.close();
  }
}

describe('learnbase import killed mid-import', () => {
  it('[pglite] stores nothing of it, and the folder opens and imports afterwards', async () => {
    const data = await copyMigratedDataFolder(join(folder, 'data'));
    await killMidImport(['--data', data], () => PgliteDatabase.open(data));
  });

  it('[postgres] stores nothing of it, and the database imports afterwards', {
    skip: !POSTGRES_AVAILABLE && 'PostgreSQL not reachable',
  }, async () => {
    const database = await createPostgresDatabase();
    try {
      await killMidImport(['--database', database.url], async () => new PostgresDatabase(database.url, { max: 1 }));
    } finally {
      await database.drop();
    }
  });
});
