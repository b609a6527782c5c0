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
