import type { SqlClient } from '../../platform/database/sql-client.js';
import { SqlFilter, type Page } from '../../platform/database/sql-filters.js';
import type { StoredActor } from './actor-attributes.js';

/** A row of `actors` as the reads select it (COLUMNS). */
export interface ActorRow {
  id: string;
  agent_key: string;
  ifi: Record<string, unknown>;
  name: string | null;
  names: string[];
  attributes: Record<string, string> | null;
  object_type: 'Agent' | 'Group';
  members: Record<string, unknown>[] | null;
}

export const COLUMNS = 'id, agent_key, ifi, name, names, attributes, object_type, members';

export const toStoredActor = (row: ActorRow): StoredActor => ({
  id: row.id,
  agentKey: row.agent_key,
  ifi: row.ifi,
  name: row.name,
  names: row.names,
  attributes: row.attributes,
  objectType: row.object_type,
  members: row.members,
});

/** Which actors a list holds: the people, the statement authorities (credentials), or both. */
export const ACTOR_KINDS = ['people', 'authorities', 'all'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** The conditions on `actors` (under `alias`) that keep the actors of one kind (none for all). */
export const kindConditions = (kind: ActorKind, alias = 'actors'): string[] =>
  kind === 'people' ? [`NOT ${alias}.authority_only`] : kind === 'authorities' ? [`${alias}.authority_only`] : [];

/**
 * A page of the tenant's actors of one kind, agents and groups, imported, upserted or only named
 * by statements, in agent-key order: stable (a re-import does not move anyone) and served by the
 * primary key's index; with how many there are in all.
 */
export async function findActors(
  sql: SqlClient,
  tenantId: string,
  kind: ActorKind,
  page: Page,
): Promise<{ actors: StoredActor[]; total: number }> {
  const where = new SqlFilter([tenantId], 'tenant_id = $1', ...kindConditions(kind));
  const { rows: counted } = await sql.query<{ total: number | string }>(`SELECT count(*) AS total FROM actors ${where.clause}`, [
    ...where.values,
  ]);
  const { rows } = await sql.query<ActorRow>(
    `SELECT ${COLUMNS} FROM actors ${where.clause} ${where.paged('agent_key', page)}`,
    where.values,
  );
  return { actors: rows.map(toStoredActor), total: Number(counted[0].total) };
}

/** The actor stored under one agent key, if any. */
export async function findActorByKey(sql: SqlClient, tenantId: string, agentKey: string): Promise<StoredActor | undefined> {
  const { rows } = await sql.query<ActorRow>(`SELECT ${COLUMNS} FROM actors WHERE tenant_id = $1 AND agent_key = $2`, [tenantId, agentKey]);
  return rows[0] && toStoredActor(rows[0]);
}

/** The actor stored under one agent key, unless the tenant knows it only as a statement authority (a credential, not a person). */
export async function findPersonByKey(sql: SqlClient, tenantId: string, agentKey: string): Promise<StoredActor | undefined> {
  const { rows } = await sql.query<ActorRow>(
    `SELECT ${COLUMNS} FROM actors WHERE tenant_id = $1 AND agent_key = $2 AND NOT authority_only`,
    [tenantId, agentKey],
  );
  return rows[0] && toStoredActor(rows[0]);
}
