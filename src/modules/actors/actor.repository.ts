import type { SqlClient } from '../../platform/database/sql-client.js';
import { SqlFilter, type Page } from '../../platform/database/sql-filters.js';
import { StorageError } from '../../platform/database/storage-error.js';
import type { StoredActor } from './attributes/actor-attributes.js';

/**
 * The unique index of the people's SCIM userNames, folded by lower() (migration 0040): a write that
 * would give a second person a userName another holds fails on it, whichever channel writes it (an
 * import or an upsert carrying a `userName` attribute, an HR event, SCIM racing one of them).
 */
const USER_NAME_INDEX = 'actors__tenant_id_scim_user_name';

/**
 * A write's failure on USER_NAME_INDEX as what it is, else undefined: the conflict of a name another
 * person holds (409 `actors.user_name_taken`), or a name too long for an index entry (54000, over
 * about 2,700 bytes: 400 `actors.user_name_too_long`; SCIM refuses one over 500 bytes before).
 */
export function userNameRefusalOf(error: unknown): StorageError | undefined {
  const { code, constraint, message } = (error ?? {}) as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '54000' && typeof message === 'string' && message.includes(USER_NAME_INDEX)) {
    return new StorageError(
      'invalid_input',
      'actors.user_name_too_long',
      'The userName is too long to be indexed: send one of at most 500 bytes.',
    );
  }
  if (code !== '23505' || constraint !== USER_NAME_INDEX) return undefined;
  return new StorageError(
    'conflict',
    'actors.user_name_taken',
    'Another person holds this userName (compared without case): a userName is one SCIM User’s (docs/identity.md).',
  );
}

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

/**
 * Which actors a list holds: the people (active ones: an identity system deactivates people,
 * docs/identity.md), the statement authorities (credentials), the deactivated people, or all.
 */
export const ACTOR_KINDS = ['people', 'authorities', 'deactivated', 'all'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** The conditions on `actors` (under `alias`) that keep the actors of one kind (none for all). */
export const kindConditions = (kind: ActorKind, alias = 'actors'): string[] => {
  switch (kind) {
    case 'people':
      return [`NOT ${alias}.authority_only`, `${alias}.deactivated_at IS NULL`];
    case 'authorities':
      return [`${alias}.authority_only`];
    case 'deactivated':
      return [`${alias}.deactivated_at IS NOT NULL`];
    case 'all':
      return [];
  }
};

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

/** The actor stored under one agent key, unless the tenant knows it only as a statement authority (a credential, not a person). */
export async function findPersonByKey(sql: SqlClient, tenantId: string, agentKey: string): Promise<StoredActor | undefined> {
  const { rows } = await sql.query<ActorRow>(
    `SELECT ${COLUMNS} FROM actors WHERE tenant_id = $1 AND agent_key = $2 AND NOT authority_only`,
    [tenantId, agentKey],
  );
  return rows[0] && toStoredActor(rows[0]);
}

/**
 * The actor stored under one agent key, whether they are active (not deactivated) and whether the
 * tenant knows it only as a statement authority (a credential, not a person), if any: what a write
 * of one person reads first, and what GET /api/actors/item answers.
 */
export async function findActorAndStateByKey(
  sql: SqlClient,
  tenantId: string,
  agentKey: string,
): Promise<{ actor: StoredActor; active: boolean; authorityOnly: boolean } | undefined> {
  const { rows } = await sql.query<ActorRow & { active: boolean; authority_only: boolean }>(
    `SELECT ${COLUMNS}, deactivated_at IS NULL AS active, authority_only FROM actors WHERE tenant_id = $1 AND agent_key = $2`,
    [tenantId, agentKey],
  );
  return rows[0] && { actor: toStoredActor(rows[0]), active: rows[0].active, authorityOnly: rows[0].authority_only };
}

/** Whether the person under `agentKey` is active (not deactivated by an identity system); undefined when there is no such actor. */
export async function findPersonState(sql: SqlClient, tenantId: string, agentKey: string): Promise<{ active: boolean } | undefined> {
  const { rows } = await sql.query<{ active: boolean }>(
    'SELECT deactivated_at IS NULL AS active FROM actors WHERE tenant_id = $1 AND agent_key = $2',
    [tenantId, agentKey],
  );
  return rows[0];
}

/** A person as an identity system sees them (docs/identity.md): their id, identity, attributes and state. */
export interface PersonRecord {
  id: string;
  agentKey: string;
  ifi: Record<string, unknown>;
  name: string | null;
  attributes: Record<string, string>;
  active: boolean;
  created: Date;
  /** When an import, an upsert or an identity system last wrote them. */
  lastModified: Date;
}

export interface PersonRecordRow {
  id: string;
  agent_key: string;
  ifi: Record<string, unknown>;
  name: string | null;
  attributes: Record<string, string> | null;
  active: boolean;
  created_at: Date | string;
  imported_at: Date | string;
}

export const PERSON_RECORD_COLUMNS =
  'a.id, a.agent_key, a.ifi, a.name, a.attributes, a.deactivated_at IS NULL AS active, a.created_at, a.imported_at';

export const toPersonRecord = (row: PersonRecordRow): PersonRecord => ({
  id: row.id,
  agentKey: row.agent_key,
  ifi: row.ifi,
  name: row.name,
  attributes: row.attributes ?? {},
  active: row.active,
  created: new Date(row.created_at),
  lastModified: new Date(row.imported_at),
});

/**
 * SQL: the actor `a` is one of the tenant's people: written by an import, an upsert or an identity
 * system (`imported_at` set), not an agent only statements named, nor a statement authority.
 */
export const PERSON_SQL = 'a.imported_at IS NOT NULL AND NOT a.authority_only';

/**
 * A page of the tenant's people (written by an import, an upsert or an identity system; active or
 * not) that `condition` (SQL over `actors a`, its values after the tenant id `$1` in `values`)
 * holds for, in the order they were first stored; and how many there are in all.
 */
export async function findPersonRecords(
  sql: SqlClient,
  tenantId: string,
  condition: string,
  values: readonly unknown[],
  page: { skip: number; limit: number },
): Promise<{ records: PersonRecord[]; total: number }> {
  const all = [tenantId, ...values];
  const limit = `$${all.push(page.limit)}`;
  const skip = `$${all.push(page.skip)}`;
  const { rows } = await sql.query<PersonRecordRow & { total: string | number }>(
    `WITH matched AS MATERIALIZED (
       SELECT a.agent_key, a.created_at, a.id FROM actors a
        WHERE a.tenant_id = $1 AND ${PERSON_SQL} AND ${condition}
     ), page AS (
       SELECT agent_key FROM matched ORDER BY created_at, id LIMIT ${limit} OFFSET ${skip}
     )
     SELECT counted.total, ${PERSON_RECORD_COLUMNS}
       FROM (SELECT count(*) AS total FROM matched) counted
       LEFT JOIN (page JOIN actors a ON a.tenant_id = $1 AND a.agent_key = page.agent_key) ON true
      ORDER BY a.created_at, a.id`,
    all,
  );
  const total = rows.length > 0 ? Number(rows[0].total) : 0;
  return { records: rows.filter((row) => row.agent_key !== null).map(toPersonRecord), total };
}
