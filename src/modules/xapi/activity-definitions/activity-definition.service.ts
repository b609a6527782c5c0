import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { JsonObject } from '../../../kernel/formats.js';
import { findRegisteredActivity } from '../../activities/index.js';
import { findDefinitions, upsertDefinitions } from './activity-definition.repository.js';

/**
 * The LRS's canonical Activity definitions, learnt from the statements it stores: the
 * Activities Resource answers them and `format=canonical` puts them into statements.
 */

/** Records the definitions statements carried, in the order seen (a later one refines an earlier one). */
export async function recordDefinitions(
  sql: SqlClient,
  tenantId: string,
  seen: ReadonlyArray<{ id: string; definition: JsonObject }>,
  updated: string,
): Promise<void> {
  const merged = new Map<string, JsonObject>();
  for (const { id, definition } of seen) merged.set(id, mergeDefinition(merged.get(id), definition));
  // In id order, so two batches upserting the same activities lock their rows in one order.
  const sorted = [...merged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  await upsertDefinitions(
    sql,
    tenantId,
    sorted.map(([id, definition]) => ({ id, definition })),
    updated,
  );
}

/** The same fold as the repository's upsert, for several definitions of one activity in one batch. */
export function mergeDefinition(older: JsonObject | undefined, newer: JsonObject): JsonObject {
  if (!older) return newer;
  const out: JsonObject = { ...older, ...newer };
  for (const key of ['name', 'description']) {
    const [a, b] = [older[key], newer[key]];
    if (isMap(a) && isMap(b)) out[key] = { ...a, ...b };
  }
  return out;
}

const isMap = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export const canonicalDefinitions = (sql: SqlClient, tenantId: string, ids: readonly string[]) => findDefinitions(sql, tenantId, ids);

/**
 * The Activity object of `GET /xapi/activities` (xAPI 2.0 Part 3 §2.5): the activity's
 * definition as the activities registry holds it over the canonical one learnt from statements,
 * otherwise just the id (2.5.s2.b1). The registry is the integrator's authoritative catalogue,
 * so it wins field by field, and in `name` and `description` language by language; what only
 * statements said (another language, `interactionType`…) stays (docs/activities.md, "The merge").
 */
export async function getActivity(sql: SqlClient, tenantId: string, id: string): Promise<JsonObject> {
  const [learnt, registered] = await Promise.all([
    findDefinitions(sql, tenantId, [id]).then((definitions) => definitions.get(id)),
    findRegisteredActivity(sql, tenantId, id),
  ]);
  const definition = registered ? mergeDefinition(learnt, registered.definition as JsonObject) : learnt;
  return definition === undefined ? { objectType: 'Activity', id } : { objectType: 'Activity', id, definition };
}
