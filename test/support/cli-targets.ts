import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import type { AppConfig } from '../../src/config.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { createPostgresDatabase } from './backends.js';
import { testConfig } from './build-test-app.js';
import { copyMigratedDataFolder } from './templates.js';

/**
 * One database the command line works on, for the tests of its commands: its flags, and a way to
 * look at it (and serve it) between commands. A PGlite folder admits one process at a time, so the
 * app is opened only while no command runs.
 */
export interface CliTarget {
  flags: string[];
  /** Opens the database, builds an app on it, runs `work`, closes both. */
  withApp<T>(work: (app: FastifyInstance, db: Database) => Promise<T>): Promise<T>;
  dispose(): Promise<void>;
}

async function withAppOn<T>(db: Database, config: AppConfig, work: (app: FastifyInstance, db: Database) => Promise<T>): Promise<T> {
  try {
    await migrate(db);
    const app = await buildApp(config, db, { logger: false });
    try {
      return await work(app, db);
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}

/** A fresh migrated PGlite folder (under the system's temporary folder, named `prefix…`). */
export async function pgliteTarget(prefix: string, config: AppConfig = testConfig()): Promise<CliTarget> {
  const folder = await copyMigratedDataFolder(mkdtempSync(join(tmpdir(), prefix)));
  return {
    flags: ['--data', folder],
    withApp: async (work) => withAppOn(await PgliteDatabase.open(folder), config, work),
    async dispose() {
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A fresh PostgreSQL database, dropped by `dispose`. */
export async function postgresTarget(config: AppConfig = testConfig()): Promise<CliTarget> {
  const created = await createPostgresDatabase();
  return {
    flags: ['--database', created.url],
    withApp: async (work) => withAppOn(new PostgresDatabase(created.url, { max: 5 }), config, work),
    dispose: () => created.drop(),
  };
}
