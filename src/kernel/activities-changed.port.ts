import type { SqlClient } from '../platform/database/sql-client.js';

/**
 * The port `activitiesChanged` (docs/architecture.md, "Declarations, ports and the composition
 * root"): what a module above keeps from the activity registry (learning's kept counts: which
 * activities count, and whether by passing) brought up to date in the transaction that changes
 * the registry. `activityIds`: the entries the write inserted or replaced; `tx` sees the write.
 * Every module may fill it; the registry's write calls them in the build order.
 */
export type ActivitiesChanged = (tx: SqlClient, tenantId: string, activityIds: readonly string[]) => Promise<void>;
