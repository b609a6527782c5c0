import type { SqlClient } from '../../platform/database/sql-client.js';
import type { StoredActor } from './actor-attributes.js';

interface ActorRow {
  id: string;
  agent_key: string;
  ifi: Record<string, unknown>;
  name: string | null;
  names: string[];
  attributes: Record<string, string> | null;
}

/**
 * A page of the tenant's actors, imported or only named by statements, in agent-key order: stable
 * (a re-import does not move anyone) and served by the primary key's index.
 */
export async function findActors(sql: SqlClient, tenantId: string, limit: number, skip: number): Promise<StoredActor[]> {
  const { rows } = await sql.query<ActorRow>(
    `SELECT id, agent_key, ifi, name, names, attributes FROM actors
      WHERE tenant_id = $1 ORDER BY agent_key LIMIT $2 OFFSET $3`,
    [tenantId, limit, skip],
  );
  return rows.map((row) => ({
    id: row.id,
    agentKey: row.agent_key,
    ifi: row.ifi,
    name: row.name,
    names: row.names,
    attributes: row.attributes,
  }));
}
