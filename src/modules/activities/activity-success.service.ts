/**
 * The registry's part of a statement another module writes over its own tables (learning's
 * assignment statuses): whether an activity counts as completed only when passed. The activities
 * module owns `activity_registry` and this read of it; the caller's values are bound by its own
 * placeholders, never written into the text.
 */

/**
 * A boolean SQL expression: true when the tenant's registry entry of `activityId` (an SQL
 * expression of the embedding statement, typically a column: `x.activity_id`) says
 * `requiresSuccess` (docs/activities.md): only a pass (a completion record's `passedAt`) counts as
 * completing it; false when it does not or when the activity is not registered (completing or
 * passing counts: `completedAt`). A scalar subquery probing the registry's primary key.
 */
export function requiresSuccessSql(tenantParameter: string, activityId: string): string {
  return `COALESCE(${registeredRequiresSuccessSql(tenantParameter, activityId)}, false)`;
}

/**
 * As requiresSuccessSql, NULL when the activity is not registered: one primary-key probe tells
 * both whether it is registered and what completes it.
 */
export function registeredRequiresSuccessSql(tenantParameter: string, activityId: string): string {
  return `(SELECT e.requires_success FROM activity_registry e WHERE e.tenant_id = ${tenantParameter} AND e.id = ${activityId})`;
}
