import { PER_ROW_PROBE, type SqlClient } from '../../../platform/database/sql-client.js';
import type { JsonObject } from '../../../kernel/formats.js';

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
  const merged = (existing: string, sent: string) => `COALESCE(${existing}, '{}'::jsonb) || ${sent}
              || CASE WHEN ${existing} ? 'name' AND ${sent} ? 'name'
                      THEN jsonb_build_object('name', (${existing} -> 'name') || (${sent} -> 'name'))
                      ELSE '{}'::jsonb END
              || CASE WHEN ${existing} ? 'description' AND ${sent} ? 'description'
                      THEN jsonb_build_object('description', (${existing} -> 'description') || (${sent} -> 'description'))
                      ELSE '{}'::jsonb END`;
  // Definitions the stored one already holds are left out before the upsert, which would lock
  // their rows: statements repeat the same definition over and over, and concurrent batches
  // about one activity would otherwise queue behind each other's lock until commit. `updated`
  // is therefore when the definition last changed. The check is a primary-key probe per activity
  // (PER_ROW_PROBE), never an anti-join over all of the tenant's activities.
  await sql.query(
    `INSERT INTO xapi_activities AS existing (tenant_id, id, definition, updated)
     SELECT $1, r.id, r.definition, $3::timestamptz
       FROM jsonb_to_recordset($2::jsonb) AS r(id text, definition jsonb)
      WHERE NOT EXISTS (
              SELECT 1 FROM xapi_activities AS stored
               WHERE stored.tenant_id = $1 AND stored.id = r.id AND stored.definition = ${merged('stored.definition', 'r.definition')}
                ${PER_ROW_PROBE})
     ON CONFLICT (tenant_id, id) DO UPDATE
        SET definition = ${merged('existing.definition', 'EXCLUDED.definition')},
            updated = EXCLUDED.updated`,
    [tenantId, JSON.stringify(definitions), updated],
  );
}
