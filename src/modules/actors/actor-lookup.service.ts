import type { SqlClient } from '../../platform/database/sql-client.js';

/** One actor of the store, as other modules need it: its key, its kind and its xAPI identity. */
export interface ActorIdentity {
  agentKey: string;
  objectType: 'Agent' | 'Group';
  /** The xAPI actor: objectType, the name an import or upsert gave (if any) and its one IFI. */
  agent: Record<string, unknown>;
}

/** The actor stored under a canonical agent key (agent.ts), or undefined when the tenant has none. */
export async function findActorByKey(sql: SqlClient, tenantId: string, agentKey: string): Promise<ActorIdentity | undefined> {
  const { rows } = await sql.query<{ agent_key: string; object_type: 'Agent' | 'Group'; ifi: Record<string, unknown>; name: string | null }>(
    'SELECT agent_key, object_type, ifi, name FROM actors WHERE tenant_id = $1 AND agent_key = $2',
    [tenantId, agentKey],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    agentKey: row.agent_key,
    objectType: row.object_type,
    agent: { objectType: row.object_type, ...(row.name ? { name: row.name } : {}), ...row.ifi },
  };
}
