import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SqlClient } from './sql-client.js';

/** db/migrations at the package root; the same relative path from src/ and from dist/. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../db/migrations/', import.meta.url));

// Any constant works; it only has to be the same in every learnbase process.
const MIGRATION_LOCK_KEY = 7_245_101;

/**
 * Applies the pending `NNNN_name.sql` files in order, each recorded in `schema_migrations`.
 * All of it runs in one transaction holding a transaction-level advisory lock, so several
 * processes starting at once apply each migration exactly once and never see half a schema.
 * Returns the names applied.
 */
export async function migrate(sql: SqlClient, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = migrationFiles(dir);
  return sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         name text PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await tx.query<{ name: string }>('SELECT name FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.name));
    const pending = files.filter((name) => !applied.has(name));
    for (const name of pending) {
      await tx.script(readFileSync(`${dir}/${name}`, 'utf8'));
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
    }
    return pending;
  });
}

/** The `NNNN_name.sql` files of `dir`, in the order they apply. */
export function migrationFiles(dir = MIGRATIONS_DIR): string[] {
  return readdirSync(dir)
    .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
    .sort();
}

/** Which of `files` this database has not applied (all of them before the first migration); for readiness. */
export async function pendingMigrations(sql: SqlClient, files: readonly string[]): Promise<string[]> {
  const {
    rows: [table],
  } = await sql.query<{ present: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`);
  if (!table?.present) return [...files];
  const { rows } = await sql.query<{ name: string }>('SELECT name FROM schema_migrations');
  const applied = new Set(rows.map((row) => row.name));
  return files.filter((name) => !applied.has(name));
}
