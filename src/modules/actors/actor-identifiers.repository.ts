import type { SqlClient } from '../../platform/database/sql-client.js';

/** One value of a unique attribute (tenant setting `uniqueAttributes`) that identifies a person. */
export interface Identifier {
  attribute: string;
  value: string;
}

/**
 * The stored holders of the given unique values (table actor_identifiers), in one statement: the
 * user import and the agent upsert match people through it. The caller holds the tenant's identity
 * lock (tenant-settings.service.ts `lockTenantIdentities`) when it writes what it finds.
 */
export async function findIdentifierHolders(
  sql: SqlClient,
  tenantId: string,
  identifiers: readonly Identifier[],
): Promise<Array<Identifier & { agentKey: string }>> {
  if (identifiers.length === 0) return [];
  const { rows } = await sql.query<{ attribute: string; value: string; agent_key: string }>(
    `SELECT i.attribute, i.value, i.agent_key
       FROM unnest($2::text[], $3::text[]) AS wanted(attribute, value)
       JOIN actor_identifiers i ON i.tenant_id = $1 AND i.attribute = wanted.attribute AND i.value = wanted.value`,
    [tenantId, identifiers.map((identifier) => identifier.attribute), identifiers.map((identifier) => identifier.value)],
  );
  return rows.map((row) => ({ attribute: row.attribute, value: row.value, agentKey: row.agent_key }));
}
