import type { AppConfig } from '../config.js';
import { migrate } from '../platform/database/migrate.js';
import { openDatabase } from '../platform/database/open-database.js';
import type { Database } from '../platform/database/sql-client.js';
import { type CommandContext, say } from './command.js';

/** `learnbase migrate`: the database was migrated when it was opened; this says what was applied. */
export async function migrateCommand(context: CommandContext): Promise<number> {
  const { applied } = context;
  say(context, { applied }, applied.length ? `Applied ${applied.join(', ')}.` : 'The database is up to date.');
  return 0;
}

/** Opens the database, makes sure the schema is current, runs `work` with the migrations it applied, closes. */
export async function withDatabase(config: AppConfig, work: (db: Database, applied: string[]) => Promise<number>): Promise<number> {
  const db = await openDatabase(config.database);
  try {
    return await work(db, await migrate(db));
  } finally {
    await db.close();
  }
}
