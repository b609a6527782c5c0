import type { SqlClient } from '../../platform/database/sql-client.js';
import type { StoredActor } from './actor-attributes.js';

interface ActorRow {
  id: string;
  agent_key: string;
  ifi: Record<string, unknown>;
  name: string | null;
  names: string[];
  attributes: Record<string, string> | null;
  object_type: 'Agent' | 'Group';
  members: Record<string, unknown>[] | null;
}

const COLUMNS = 'id, agent_key, ifi, name, names, attributes, object_type, members';

const toStoredActor = (row: ActorRow): StoredActor => ({
  id: row.id,
  agentKey: row.agent_key,
  ifi: row.ifi,
  name: row.name,
  names: row.names,
  attributes: row.attributes,
  objectType: row.object_type,
  members: row.members,
});

/**
 * A page of the tenant's actors, agents and groups, imported, upserted or only named by
 * statements, in agent-key order: stable (a re-import does not move anyone) and served by the
 * primary key's index.
 */
export async function findActors(sql: SqlClient, tenantId: string, limit: number, skip: number): Promise<StoredActor[]> {
  const { rows } = await sql.query<ActorRow>(
    `SELECT ${COLUMNS} FROM actors WHERE tenant_id = $1 ORDER BY agent_key LIMIT $2 OFFSET $3`,
    [tenantId, limit, skip],
  );
  return rows.map(toStoredActor);
}

/** The actor stored under one agent key, if any. */
export async function findActorByKey(sql: SqlClient, tenantId: string, agentKey: string): Promise<StoredActor | undefined> {
  const { rows } = await sql.query<ActorRow>(`SELECT ${COLUMNS} FROM actors WHERE tenant_id = $1 AND agent_key = $2`, [tenantId, agentKey]);
  return rows[0] && toStoredActor(rows[0]);
}
