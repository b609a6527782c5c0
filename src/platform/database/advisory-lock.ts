import type { SqlClient } from './sql-client.js';

/**
 * Takes a transaction-scoped advisory lock named `name` (released by COMMIT or ROLLBACK, whatever
 * happens to the request): the way two transactions that must not interleave (imports of one
 * tenant, say) run one after the other. Names are hashed to 64 bits; put the tenant id in them so
 * tenants never wait for each other. Call it on a transaction's client.
 */
export async function lockForTransaction(tx: SqlClient, name: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [name]);
}

/**
 * The shared form of lockForTransaction: any number of transactions hold it together, and none of
 * them while one holds the lock exclusively (lockForTransaction of the same name). Writers of a few
 * rows take it beside each other; a writer of them all takes it alone.
 */
export async function lockSharedForTransaction(tx: SqlClient, name: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))', [name]);
}

/**
 * lockForTransaction of each name, in one statement, in the names' order: two transactions locking
 * overlapping sets wait for each other instead of each holding what the other wants.
 */
export async function lockEachForTransaction(tx: SqlClient, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await tx.query(
    `SELECT count(pg_advisory_xact_lock(hashtextextended(s.name, 0)))
       FROM (SELECT DISTINCT n AS name FROM unnest($1::text[]) n ORDER BY 1) s`,
    [[...names]],
  );
}
