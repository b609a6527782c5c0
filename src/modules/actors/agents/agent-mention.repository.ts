import { PER_ROW_PROBE, type SqlClient } from '../../../platform/database/sql-client.js';
import type { JsonObject } from '../../../kernel/formats.js';

export interface SeenAgent {
  /** The canonical IFI key (agent.ts). */
  key: string;
  /** The agent's IFI alone, e.g. `{ "mbox": "mailto:…" }`. */
  ifi: JsonObject;
  names: string[];
}

export interface NamedActor extends SeenAgent {
  /** True when the statements named it only as their authority (a credential, not a person). */
  authorityOnly: boolean;
  /** 'Group' for an identified group. */
  objectType: 'Agent' | 'Group';
  /** A group's members as sent (IFI and name each); absent: none sent, the stored ones stay. */
  members?: JsonObject[];
}

/**
 * Adds the names statements gave to agents and identified groups (one entry per key; the caller
 * dedupes). A key once named as a group stays a group (an agent naming it later does not turn it
 * back); a group's members are replaced when a statement sends them.
 */
export async function upsertAgents(sql: SqlClient, tenantId: string, agents: readonly NamedActor[], updated: string): Promise<void> {
  if (agents.length === 0) return;
  // Agents whose stored row already holds what the statements say are left out before the
  // upsert, which would lock their rows: every batch names its authority and its learners again,
  // and concurrent batches would otherwise queue behind each other's lock on those rows until
  // commit. `updated` is therefore when the row last changed. The check is a primary-key probe
  // per agent (PER_ROW_PROBE), never an anti-join over all of the tenant's actors.
  await sql.query(
    `INSERT INTO actors AS existing (tenant_id, agent_key, ifi, names, updated, object_type, members, authority_only)
     SELECT $1, r.key, r.ifi, ARRAY(SELECT jsonb_array_elements_text(r.names)), $3::timestamptz, r."objectType", r.members, r."authorityOnly"
       FROM jsonb_to_recordset($2::jsonb) AS r(key text, ifi jsonb, names jsonb, "objectType" text, members jsonb, "authorityOnly" boolean)
      WHERE NOT EXISTS (
              SELECT 1 FROM actors AS stored
               WHERE stored.tenant_id = $1 AND stored.agent_key = r.key
                 AND stored.names @> ARRAY(SELECT jsonb_array_elements_text(r.names))
                 AND (r."objectType" <> 'Group' OR stored.object_type = 'Group')
                 AND (r.members IS NULL OR stored.members = r.members)
                 AND (r."authorityOnly" OR NOT stored.authority_only)
                ${PER_ROW_PROBE})
     ON CONFLICT (tenant_id, agent_key) DO UPDATE
        SET names = ARRAY(SELECT DISTINCT unnest(existing.names || EXCLUDED.names) ORDER BY 1),
            updated = EXCLUDED.updated,
            object_type = CASE WHEN EXCLUDED.object_type = 'Group' THEN 'Group' ELSE existing.object_type END,
            members = coalesce(EXCLUDED.members, existing.members),
            authority_only = existing.authority_only AND EXCLUDED.authority_only`,
    [tenantId, JSON.stringify(agents), updated],
  );
}

/** What statements have said about one agent, when any has named it. */
export async function findAgent(sql: SqlClient, tenantId: string, key: string): Promise<SeenAgent | undefined> {
  const { rows } = await sql.query<{ ifi: JsonObject; names: string[] }>(
    `SELECT ifi, names FROM actors WHERE tenant_id = $1 AND agent_key = $2`,
    [tenantId, key],
  );
  return rows[0] && { key, ifi: rows[0].ifi, names: rows[0].names };
}
