import type { SqlClient } from '../../platform/database/sql-client.js';
import { inBatches } from './people/actor-import.repository.js';

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

/**
 * Points the unique values at their people, for the user import (many) and the agent upsert (one):
 * the values `updated` people no longer hold are dropped first (a changed value frees the old one),
 * then `added` are stored, skipping any their person already holds. The table's primary key
 * (tenant, attribute, value) is the last guard: a value held by someone else fails the whole
 * transaction rather than make two people one.
 */
export async function replaceIdentifiers(
  sql: SqlClient,
  tenantId: string,
  updated: ReadonlyArray<{ agentKey: string; identifiers: readonly Identifier[] }>,
  added: ReadonlyArray<Identifier & { agentKey: string }>,
): Promise<void> {
  await inBatches(updated, (batch) => dropReleasedIdentifiers(sql, tenantId, batch));
  await inBatches(added, (batch) => insertIdentifierBatch(sql, tenantId, batch));
}

/**
 * replaceIdentifiers for one person, in one statement: the values they no longer hold dropped, the
 * ones they hold now stored. The two touch different rows (a value kept is never dropped), so one
 * snapshot serves both; a value held by someone else still fails on the primary key.
 */
export async function replacePersonIdentifiers(
  sql: SqlClient,
  tenantId: string,
  agentKey: string,
  identifiers: readonly Identifier[],
): Promise<void> {
  await sql.query(
    `WITH dropped AS (
       DELETE FROM actor_identifiers i
        WHERE i.tenant_id = $1 AND i.agent_key = $2
          AND NOT EXISTS (SELECT FROM unnest($3::text[], $4::text[]) AS k(attribute, value) WHERE k.attribute = i.attribute AND k.value = i.value)
     )
     INSERT INTO actor_identifiers (tenant_id, attribute, value, agent_key)
     SELECT $1, r.attribute, r.value, $2 FROM unnest($3::text[], $4::text[]) AS r(attribute, value)
      WHERE NOT EXISTS (
        SELECT FROM actor_identifiers i WHERE i.tenant_id = $1 AND i.attribute = r.attribute AND i.value = r.value AND i.agent_key = $2
      )`,
    [tenantId, agentKey, identifiers.map((identifier) => identifier.attribute), identifiers.map((identifier) => identifier.value)],
  );
}

async function dropReleasedIdentifiers(
  sql: SqlClient,
  tenantId: string,
  users: ReadonlyArray<{ agentKey: string; identifiers: readonly Identifier[] }>,
): Promise<void> {
  const kept = users.flatMap((user) => user.identifiers);
  await sql.query(
    `DELETE FROM actor_identifiers i
      USING unnest($2::text[]) AS u(agent_key)
      WHERE i.tenant_id = $1 AND i.agent_key = u.agent_key
        AND NOT EXISTS (SELECT FROM unnest($3::text[], $4::text[]) AS k(attribute, value) WHERE k.attribute = i.attribute AND k.value = i.value)`,
    [
      tenantId,
      users.map((user) => user.agentKey),
      kept.map((identifier) => identifier.attribute),
      kept.map((identifier) => identifier.value),
    ],
  );
}

async function insertIdentifierBatch(
  sql: SqlClient,
  tenantId: string,
  added: ReadonlyArray<Identifier & { agentKey: string }>,
): Promise<void> {
  await sql.query(
    `INSERT INTO actor_identifiers (tenant_id, attribute, value, agent_key)
     SELECT $1, r.attribute, r.value, r.agent_key FROM unnest($2::text[], $3::text[], $4::text[]) AS r(attribute, value, agent_key)
      WHERE NOT EXISTS (
        SELECT FROM actor_identifiers i WHERE i.tenant_id = $1 AND i.attribute = r.attribute AND i.value = r.value AND i.agent_key = r.agent_key
      )`,
    [
      tenantId,
      added.map((identifier) => identifier.attribute),
      added.map((identifier) => identifier.value),
      added.map((identifier) => identifier.agentKey),
    ],
  );
}
