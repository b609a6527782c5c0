import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { reportPostgresSkipped } from './backends-report.js';

export interface TestBackend {
  name: 'pglite' | 'postgres';
  /** A fresh, empty database; `dispose` closes it (and drops it, on PostgreSQL). */
  open(): Promise<{ db: Database; dispose(): Promise<void> }>;
}

/** Where the PostgreSQL tests create their databases: TEST_DATABASE_URL, DATABASE_URL, or the local server. */
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const pglite: TestBackend = {
  name: 'pglite',
  async open() {
    const db = await PgliteDatabase.open(undefined);
    return { db, dispose: () => db.close() };
  },
};

/** A new, empty PostgreSQL database on the test server; `drop` removes it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `learnbase_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

const postgres: TestBackend = {
  name: 'postgres',
  async open() {
    const created = await createPostgresDatabase();
    const db = new PostgresDatabase(created.url, { max: 30 });
    return {
      db,
      async dispose() {
        await db.close();
        await created.drop();
      },
    };
  },
};

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
