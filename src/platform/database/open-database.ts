import type { DatabaseConfig } from '../../config.js';
import { PgliteDatabase } from './pglite-client.js';
import { PostgresDatabase } from './postgres-client.js';
import type { Database } from './sql-client.js';

/** Opens the configured backend: PostgreSQL when a URL is given, otherwise PGlite in a folder. */
export function openDatabase(config: DatabaseConfig): Promise<Database> {
  return config.kind === 'postgres'
    ? Promise.resolve(new PostgresDatabase(config.url))
    : PgliteDatabase.open(config.dataDir);
}
