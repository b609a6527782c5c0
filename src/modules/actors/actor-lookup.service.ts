import type { SqlClient } from '../../platform/database/sql-client.js';

/** One actor of the store, as other modules need it: its key, its kind and its xAPI identity. */
export interface ActorIdentity {
  agentKey: string;
  objectType: 'Agent' | 'Group';
  /** The xAPI actor: objectType, the name an import or upsert gave (if any) and its one IFI. */
  agent: Record<string, unknown>;
  /** False when an identity system deactivated the person (docs/identity.md). */
  active: boolean;
}

/** The actor stored under a canonical agent key (agent.ts), or undefined when the tenant has none. */
export async function findActorByKey(sql: SqlClient, tenantId: string, agentKey: string): Promise<ActorIdentity | undefined> {
  const { rows } = await sql.query<{
    agent_key: string;
    object_type: 'Agent' | 'Group';
    ifi: Record<string, unknown>;
    name: string | null;
    active: boolean;
  }>('SELECT agent_key, object_type, ifi, name, deactivated_at IS NULL AS active FROM actors WHERE tenant_id = $1 AND agent_key = $2', [
    tenantId,
    agentKey,
  ]);
  const row = rows[0];
  if (!row) return undefined;
  return {
    agentKey: row.agent_key,
    objectType: row.object_type,
    agent: { objectType: row.object_type, ...(row.name ? { name: row.name } : {}), ...row.ifi },
    active: row.active,
  };
}

/** The actors stored under `agentKeys` (the ones the tenant has; unknown keys are left out), by key. */
export async function findActorsByKeys(
  sql: SqlClient,
  tenantId: string,
  agentKeys: readonly string[],
): Promise<Map<string, ActorIdentity>> {
  if (agentKeys.length === 0) return new Map();
  const { rows } = await sql.query<{
    agent_key: string;
    object_type: 'Agent' | 'Group';
    ifi: Record<string, unknown>;
    name: string | null;
    active: boolean;
  }>(
    'SELECT agent_key, object_type, ifi, name, deactivated_at IS NULL AS active FROM actors WHERE tenant_id = $1 AND agent_key = ANY($2::text[])',
    [tenantId, [...new Set(agentKeys)]],
  );
  return new Map(
    rows.map((row) => [
      row.agent_key,
      {
        agentKey: row.agent_key,
        objectType: row.object_type,
        agent: { objectType: row.object_type, ...(row.name ? { name: row.name } : {}), ...row.ifi },
        active: row.active,
      },
    ]),
  );
}

/** An actor's key with the texts it is known by: its names and the values of its IFI. */
export interface ActorTexts {
  agentKey: string;
  /** The name an import or upsert gave, then the names statements gave. */
  names: string[];
  /** The IFI's value: the mbox IRI, the mbox_sha1sum, the openid, or the account's name. */
  identifiers: string[];
}

/**
 * The names and identifiers of the tenant's actors (of `agentKeys` only, when given), for
 * matching them against a pattern in code. Reads every actor of the tenant without a key list.
 */
export async function listActorTexts(sql: SqlClient, tenantId: string, agentKeys?: readonly string[]): Promise<ActorTexts[]> {
  // The key carries the IFI's value after its first `|` (agent.ts), except an account's, whose
  // homePage may hold a `|` itself: only the account's name is read from the IFI. Text columns
  // only: parsing 10,000 IFIs as JSON would cost more than matching them.
  const { rows } = await sql.query<{ agent_key: string; name: string | null; names: string[]; account_name: string | null }>(
    `SELECT agent_key, name, names, CASE WHEN agent_key LIKE 'account|%' THEN ifi->'account'->>'name' END AS account_name
       FROM actors WHERE tenant_id = $1${agentKeys === undefined ? '' : ' AND agent_key = ANY($2::text[])'}`,
    agentKeys === undefined ? [tenantId] : [tenantId, [...agentKeys]],
  );
  return rows.map((row) => ({
    agentKey: row.agent_key,
    names: row.name === null ? row.names : row.names.includes(row.name) ? row.names : [row.name, ...row.names],
    identifiers: [row.account_name ?? row.agent_key.slice(row.agent_key.indexOf('|') + 1)],
  }));
}
