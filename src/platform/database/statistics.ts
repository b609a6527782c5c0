import type { SqlClient } from './sql-client.js';

/**
 * Rows a write must have touched before it refreshes the planner's statistics itself: below it,
 * autovacuum's own analyse (within a minute or so) is soon enough.
 */
export const ANALYZE_AFTER_ROWS = 1_000;

/**
 * Vacuums and refreshes PostgreSQL's statistics of `tables` (VACUUM (ANALYZE)) after a bulk write
 * has committed, as one does after a bulk load. Until autovacuum gets to it, the planner still
 * believes the tables as they were before (right after 100,000 users were imported, an actor
 * search planned on the old statistics took 17 ms instead of 5), and autovacuum's own run lands
 * later, in the middle of whatever load follows. The vacuum also merges the GIN index's pending
 * list, which every search would otherwise read through. It costs a fraction of the write.
 * Statistics are an optimisation: a failure here (the connection gone after the commit) is not
 * the write's failure, so it is left to `onError` and the write still answers its success.
 * `tables` are the caller's own constant names, never input.
 */
export async function refreshStatistics(
  sql: SqlClient,
  tables: readonly string[],
  onError: (error: unknown) => void = () => {},
): Promise<void> {
  try {
    await sql.query(`VACUUM (ANALYZE) ${tables.join(', ')}`);
  } catch (error) {
    onError(error);
  }
}
