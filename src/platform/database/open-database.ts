import { PgliteDatabase } from './pglite-client.js';
import { PostgresDatabase } from './postgres-client.js';
import type { Database } from './sql-client.js';

/** Which database: PGlite in a folder (none: in memory), or a PostgreSQL server. config.ts reads it from the flags and the environment. */
export type DatabaseConfig = { kind: 'pglite'; dataDir?: string } | { kind: 'postgres'; url: string };

export interface OpenOptions {
  /** Where PostgreSQL connection failures outside any request are reported (an idle pooled connection dropped). */
  onError?: (error: Error) => void;
}

/** Opens the configured backend: PostgreSQL when a URL is given, otherwise PGlite in a folder. */
export function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  return config.kind === 'postgres'
    ? Promise.resolve(new PostgresDatabase(config.url, { onError: options.onError }))
    : PgliteDatabase.open(config.dataDir);
}
