import { lockEachForTransaction, lockForTransaction, lockSharedForTransaction } from '../../../platform/database/advisory-lock.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';

/** The stored settings object of a tenant, as PUT left it (absent keys mean defaults). */
export async function findStoredSettings(sql: SqlClient, tenantId: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await sql.query<{ settings: Record<string, unknown> }>(`SELECT settings FROM tenant_settings WHERE tenant_id = $1`, [
    tenantId,
  ]);
  return rows[0]?.settings;
}

export async function upsertStoredSettings(sql: SqlClient, tenantId: string, settings: Record<string, unknown>): Promise<void> {
  await sql.query(
    `INSERT INTO tenant_settings (tenant_id, settings, updated_at) VALUES ($1, $2::jsonb, now())
     ON CONFLICT (tenant_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = EXCLUDED.updated_at`,
    [tenantId, JSON.stringify(settings)],
  );
}

/**
 * Serialises everything that reads and rewrites a tenant's actor identities: user imports and a
 * change of `uniqueAttributes`. Transaction-scoped, so it is released by COMMIT or ROLLBACK
 * whatever happens to the request; other tenants take other keys and never wait.
 */
export async function lockTenantIdentities(sql: SqlClient, tenantId: string): Promise<void> {
  await lockForTransaction(sql, `learnbase:actor-identities:${tenantId}`);
}

/**
 * The tenant's identity lock shared, then each of `keys` (a person's agent key, the unique values
 * they hold or take: `lockPeopleIdentities`' callers say which) exclusively: writers of different
 * people run side by side, writers of one person (or of one value) one after the other, and none
 * of them beside an import or a settings change, which take the tenant's lock exclusively.
 */
export async function lockPeopleIdentities(sql: SqlClient, tenantId: string, keys: readonly string[]): Promise<void> {
  await lockSharedForTransaction(sql, `learnbase:actor-identities:${tenantId}`);
  await lockPersonKeys(sql, tenantId, keys);
}

/** lockPeopleIdentities' second half, for a transaction that holds the tenant's identity lock shared already. */
export async function lockPersonKeys(sql: SqlClient, tenantId: string, keys: readonly string[]): Promise<void> {
  await lockEachForTransaction(
    sql,
    keys.map((key) => `learnbase:actor-identity:${tenantId}:${key}`),
  );
}

export interface IdentifierConflict {
  attribute: string;
  value: string;
  agentKeys: string[];
}

/**
 * The values that two or more of the tenant's users share for one of `attributes` (first 20):
 * what would break the one-person-per-value rule if these became the unique attributes.
 * Empty values identify nobody and are left out, as the import leaves them out.
 */
export async function findIdentifierConflicts(
  sql: SqlClient,
  tenantId: string,
  attributes: readonly string[],
): Promise<IdentifierConflict[]> {
  const { rows } = await sql.query<{ attribute: string; value: string; agent_keys: string[] }>(
    `SELECT u.attribute, a.attributes ->> u.attribute AS value, array_agg(a.agent_key ORDER BY a.agent_key) AS agent_keys
       FROM actors a CROSS JOIN unnest($2::text[]) AS u(attribute)
      WHERE a.tenant_id = $1 AND a.attributes IS NOT NULL AND coalesce(a.attributes ->> u.attribute, '') <> ''
      GROUP BY 1, 2 HAVING count(*) > 1
      ORDER BY 1, 2 LIMIT 20`,
    [tenantId, attributes],
  );
  return rows.map((row) => ({ attribute: row.attribute, value: row.value, agentKeys: row.agent_keys }));
}

/** Replaces the tenant's identifiers with the values its users hold for `attributes` (set-based, two statements). */
/**
 * Users whose value of one of `attributes` is longer than `maxBytes` (UTF-8): such a value
 * cannot be an identifier (an index entry). At most 10, for the error.
 */
export async function findOverlongIdentifierValues(
  sql: SqlClient,
  tenantId: string,
  attributes: readonly string[],
  maxBytes: number,
): Promise<Array<{ attribute: string; agentKey: string; bytes: number }>> {
  const { rows } = await sql.query<{ attribute: string; agent_key: string; bytes: number }>(
    `SELECT u.attribute, a.agent_key, octet_length(a.attributes ->> u.attribute) AS bytes
       FROM actors a CROSS JOIN unnest($2::text[]) AS u(attribute)
      WHERE a.tenant_id = $1 AND a.attributes IS NOT NULL AND octet_length(a.attributes ->> u.attribute) > $3
      ORDER BY a.agent_key, u.attribute
      LIMIT 10`,
    [tenantId, attributes, maxBytes],
  );
  return rows.map((row) => ({ attribute: row.attribute, agentKey: row.agent_key, bytes: Number(row.bytes) }));
}

export async function rebuildIdentifiers(sql: SqlClient, tenantId: string, attributes: readonly string[]): Promise<void> {
  await sql.query(`DELETE FROM actor_identifiers WHERE tenant_id = $1`, [tenantId]);
  await sql.query(
    `INSERT INTO actor_identifiers (tenant_id, attribute, value, agent_key)
     SELECT a.tenant_id, u.attribute, a.attributes ->> u.attribute, a.agent_key
       FROM actors a CROSS JOIN unnest($2::text[]) AS u(attribute)
      WHERE a.tenant_id = $1 AND a.attributes IS NOT NULL AND coalesce(a.attributes ->> u.attribute, '') <> ''`,
    [tenantId, attributes],
  );
}

/**
 * Rewrites the position of the tenant's actors (`actors.position_id`, actor-position.ts) from
 * their attributes for the `organisationAttribute` now in force (NULL: none), after a change of the
 * setting, in its transaction. Only the rows whose position changes are written.
 */
export async function repositionActors(sql: SqlClient, tenantId: string, organisationAttribute: string | null): Promise<void> {
  await sql.query(
    `UPDATE actors SET position_id = attributes ->> $2::text
      WHERE tenant_id = $1 AND position_id IS DISTINCT FROM (attributes ->> $2::text)`,
    [tenantId, organisationAttribute],
  );
}
