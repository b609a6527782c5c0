import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { JsonObject } from '../statements/statement-validator.js';

/** The canonical definitions of these activities, by id; activities never defined are absent. */
export async function findDefinitions(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<Map<string, JsonObject>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql.query<{ id: string; definition: JsonObject | null }>(
    `SELECT id, definition FROM xapi_activities WHERE tenant_id = $1 AND id = ANY($2::text[])`,
    [tenantId, ids],
  );
  return new Map(rows.filter((row) => row.definition !== null).map((row) => [row.id, row.definition as JsonObject]));
}

/**
 * Folds definitions into the canonical ones (one entry per id; the caller dedupes): the newer
 * definition wins property by property, except that the `name` and `description` language maps
 * are merged, so two statements describing an activity in two languages leave both (xAPI 2.0
 * Part 3 §2.5). One statement, so concurrent writers cannot lose each other's languages.
 */
export async function upsertDefinitions(
  sql: SqlClient,
  tenantId: string,
  definitions: ReadonlyArray<{ id: string; definition: JsonObject }>,
  updated: string,
): Promise<void> {
  if (definitions.length === 0) return;
  await sql.query(
    `INSERT INTO xapi_activities AS existing (tenant_id, id, definition, updated)
     SELECT $1, r.id, r.definition, $3::timestamptz
       FROM jsonb_to_recordset($2::jsonb) AS r(id text, definition jsonb)
     ON CONFLICT (tenant_id, id) DO UPDATE
        SET definition = COALESCE(existing.definition, '{}'::jsonb) || EXCLUDED.definition
              || CASE WHEN existing.definition ? 'name' AND EXCLUDED.definition ? 'name'
                      THEN jsonb_build_object('name', (existing.definition -> 'name') || (EXCLUDED.definition -> 'name'))
                      ELSE '{}'::jsonb END
              || CASE WHEN existing.definition ? 'description' AND EXCLUDED.definition ? 'description'
                      THEN jsonb_build_object('description', (existing.definition -> 'description') || (EXCLUDED.definition -> 'description'))
                      ELSE '{}'::jsonb END,
            updated = EXCLUDED.updated`,
    [tenantId, JSON.stringify(definitions), updated],
  );
}
