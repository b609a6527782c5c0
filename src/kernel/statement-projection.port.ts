import type { SqlClient } from '../platform/database/sql-client.js';

/** A statement just inserted, as the statement write hands it to the projections. */
export interface InsertedStatement {
  id: string;
  statement: Record<string, unknown>;
  index: { voiding: boolean; objectStatementId: string | null };
}

/**
 * The port `statementProjection` (docs/architecture.md, "Declarations, ports and the composition
 * root"): what a module keeps from the statements (completions' records) brought up to date in the
 * transaction that stores them, after voiding was applied, so it commits or rolls back with the
 * statements. `voided` holds the lower-case ids the write just marked voided. Every module may
 * fill it; the statement write calls them in the build order.
 */
export type StatementProjection = (
  tx: SqlClient,
  tenantId: string,
  inserted: readonly InsertedStatement[],
  voided: ReadonlySet<string>,
) => Promise<void>;
