import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../src/platform/database/migrate.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { reportPostgresSkipped } from './backends-report.js';
import { openMigratedPglite, TEMPLATE_KEY } from './templates.js';

export interface TestBackend {
  name: 'pglite' | 'postgres';
  /** A fresh, empty database; `dispose` closes it (and drops it, on PostgreSQL). */
  open(): Promise<{ db: Database; dispose(): Promise<void> }>;
  /** A fresh database with every migration applied, copied from a template (templates.ts); `dispose` as for `open`. */
  openMigrated(): Promise<{ db: Database; dispose(): Promise<void> }>;
}

/** Where the PostgreSQL tests create their databases: TEST_DATABASE_URL, DATABASE_URL, or the local server. */
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const pglite: TestBackend = {
  name: 'pglite',
  async open() {
    const db = await PgliteDatabase.open(undefined);
    return { db, dispose: () => db.close() };
  },
  async openMigrated() {
    const db = await openMigratedPglite();
    return { db, dispose: () => db.close() };
  },
};

/**
 * A new PostgreSQL database on the test server: empty, or with `migrated` a copy of the migrated
 * template (postgresTemplate); `drop` removes it.
 */
export async function createPostgresDatabase(options: { migrated?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `learnbase_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  if (options.migrated) await createFromTemplate(name);
  else await adminQuery(`CREATE DATABASE ${name}`);
  return { url: databaseUrl(name), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

let template: Promise<string> | undefined;

/**
 * CREATE DATABASE … TEMPLATE: a few hundredths of a second, where creating a database and migrating
 * it takes a tenth or more. Should a run on other migrations have replaced the template since this
 * process looked (and dropped this one), the template is made again.
 */
async function createFromTemplate(name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    template ??= postgresTemplate();
    try {
      await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${await template}`);
      return;
    } catch (error) {
      // 3D000: the template database does not exist.
      if ((error as { code?: unknown }).code !== '3D000' || attempt > 1) throw error;
      template = undefined;
    }
  }
}

/** Any constant: the advisory lock held by the test process making the template, so only one makes it. */
const TEMPLATE_LOCK_KEY = 7_245_102;

/**
 * The migrated template's name, `learnbase_template_<TEMPLATE_KEY>`, made on first use and kept for
 * later runs. Test processes start in twos: each takes a session advisory lock on the admin database
 * before looking, so one makes it while the other waits. It is built under another name and renamed
 * once migrated, so a process dying half-way leaves no half-made template under the name (the next
 * maker drops the leftover). Making it drops the templates of other keys. Nothing stays connected to
 * it: CREATE DATABASE … TEMPLATE refuses a template another session is connected to.
 */
async function postgresTemplate(): Promise<string> {
  const name = `learnbase_template_${TEMPLATE_KEY}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    // Released when this connection ends, also when the process dies holding it.
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount !== 0) return name;
    const building = `${name}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${building}`);
    const db = new PostgresDatabase(databaseUrl(building), { max: 1 });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    const others = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'learnbase\\_template\\_%' AND datname <> $1`,
      [name],
    );
    for (const { datname } of others.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    return name;
  } finally {
    await admin.end();
  }
}

const postgres: TestBackend = {
  name: 'postgres',
  async open() {
    return openPostgres(await createPostgresDatabase());
  },
  async openMigrated() {
    return openPostgres(await createPostgresDatabase({ migrated: true }));
  },
};

function openPostgres(created: { url: string; drop(): Promise<void> }): { db: Database; dispose(): Promise<void> } {
  const db = new PostgresDatabase(created.url, { max: 30 });
  return {
    db,
    async dispose() {
      await db.close();
      await created.drop();
    },
  };
}

async function adminQuery(text: string, connectionTimeoutMillis = 2_000): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * Whether a PostgreSQL server answers. Asked three times, five seconds each: with two test files
 * starting at once on a busy 2-core machine (Chromium, a server being built), a single 2-second
 * try once timed out and left a whole file on PGlite only.
 */
async function postgresReachable(): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery('SELECT 1', 5_000);
      return true;
    } catch (error) {
      if (attempt < 3) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      return unreachable(error);
    }
  }
}

function unreachable(error: unknown): false {
  // On CI the suite must prove both backends: an unreachable server is a failure, not a skip.
  if (process.env.CI) throw new Error(`PostgreSQL is not reachable at ${ADMIN_URL}: ${(error as Error).message}`);
  reportPostgresSkipped(ADMIN_URL, (error as Error).message);
  return false;
}

/** The backends this run covers: PGlite always, PostgreSQL when a server answers. */
export const POSTGRES_AVAILABLE = await postgresReachable();
export const BACKENDS: TestBackend[] = POSTGRES_AVAILABLE ? [pglite, postgres] : [pglite];
