import { PERSON_SQL, userNameRefusalOf } from '../actor.repository.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { positionOfSql } from '../actor-position.js';

/**
 * Set-based SQL of the user import: each statement covers every row of the request (arrays bound
 * as parameters and unnested, or one JSON document read with jsonb_to_recordset), never a query
 * per row. The caller holds the tenant's identity lock (tenant-settings.repository.ts) and its
 * transaction around all of them.
 */

/** Which of `agentKeys` exist, and whether an import made (or adopted) each: `imported`. */
export async function findActorKeys(sql: SqlClient, tenantId: string, agentKeys: readonly string[]): Promise<Map<string, boolean>> {
  if (agentKeys.length === 0) return new Map();
  const { rows } = await sql.query<{ agent_key: string; imported: boolean }>(
    `SELECT agent_key, attributes IS NOT NULL AS imported FROM actors WHERE tenant_id = $1 AND agent_key = ANY($2::text[])`,
    [tenantId, agentKeys],
  );
  return new Map(rows.map((row) => [row.agent_key, row.imported]));
}

export interface ActorWrite {
  key: string;
  /** The IFI alone (`{account: {homePage, name}}`); used only when the actor is created. */
  ifi: Record<string, unknown>;
  name: string;
  attributes: Record<string, string>;
}

/**
 * Creates the new users' actors. A plain INSERT (no ON CONFLICT): the caller holds the identity
 * lock and has looked the keys up, and a key taken meanwhile by a statement fails the transaction
 * (23505, answered 409) rather than merge two rows silently.
 */
/**
 * Rows written per statement. One statement per batch keeps the SQL set-based while bounding
 * what one statement's parameters hold in memory (the whole import as one JSON text would be
 * tens of megabytes, copied again into the protocol buffer).
 */
export const WRITE_BATCH = 5_000;

export async function inBatches<T>(items: readonly T[], write: (batch: readonly T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += WRITE_BATCH) await write(items.slice(start, start + WRITE_BATCH));
}

export async function insertActors(sql: SqlClient, tenantId: string, actors: readonly ActorWrite[]): Promise<void> {
  await inBatches(actors, (batch) => insertActorBatch(sql, tenantId, batch));
}

async function insertActorBatch(sql: SqlClient, tenantId: string, actors: readonly ActorWrite[]): Promise<void> {
  await sql
    .query(
      `INSERT INTO actors (tenant_id, agent_key, ifi, updated, name, attributes, position_id, imported_at)
     SELECT $1, r.key, r.ifi, now(), r.name, r.attributes, ${positionOfSql('r.attributes', '$1')}, now()
       FROM jsonb_to_recordset($2::jsonb) AS r(key text, ifi jsonb, name text, attributes jsonb)`,
      [tenantId, JSON.stringify(actors)],
    )
    .catch((error: unknown) => {
      throw userNameRefusalOf(error) ?? error;
    });
}

/**
 * Replaces the name and attributes of existing users, and adopts the rows of actors statements
 * named under the key a new user gets (their `ifi` and `names` stay: one actor).
 */
export async function updateActors(sql: SqlClient, tenantId: string, actors: readonly Omit<ActorWrite, 'ifi'>[]): Promise<void> {
  await inBatches(actors, (batch) => updateActorBatch(sql, tenantId, batch));
}

async function updateActorBatch(sql: SqlClient, tenantId: string, actors: readonly Omit<ActorWrite, 'ifi'>[]): Promise<void> {
  await sql
    .query(
      `UPDATE actors AS a SET name = r.name, attributes = r.attributes, position_id = ${positionOfSql('r.attributes', '$1')},
            imported_at = now(), updated = now(), authority_only = false
       FROM jsonb_to_recordset($2::jsonb) AS r(key text, name text, attributes jsonb)
      WHERE a.tenant_id = $1 AND a.agent_key = r.key
        AND (a.name IS DISTINCT FROM r.name OR a.attributes IS DISTINCT FROM r.attributes OR a.authority_only)`,
      [tenantId, JSON.stringify(actors)],
    )
    .catch((error: unknown) => {
      throw userNameRefusalOf(error) ?? error;
    });
}

/**
 * SQL: the actor `a` is one of the tenant's active people: written by an import, an upsert or an
 * identity system (`imported_at` set: not an agent only statements named, nor a statement
 * authority), and not deactivated. The people SCIM and the actor search see, less the deactivated.
 */
const ACTIVE_PERSON = `${PERSON_SQL} AND a.deactivated_at IS NULL`;

/**
 * How many active people the tenant has, and the agent keys of those not among `present`, in key
 * order: one statement, the keys bound as one array and anti-joined by hash (100,000 keys against
 * 100,000 people in a few hundredths of a second, where `<> ALL` would compare every pair).
 */
export async function findActivePeopleOutside(
  sql: SqlClient,
  tenantId: string,
  present: readonly string[],
): Promise<{ active: number; absent: string[] }> {
  const { rows } = await sql.query<{ active: number; absent: string[] }>(
    `WITH people AS MATERIALIZED (SELECT a.agent_key FROM actors a WHERE a.tenant_id = $1 AND ${ACTIVE_PERSON})
     SELECT (SELECT count(*) FROM people)::int AS active,
            ARRAY(SELECT p.agent_key FROM people p
                   WHERE NOT EXISTS (SELECT FROM unnest($2::text[]) AS present(key) WHERE present.key = p.agent_key)
                   ORDER BY p.agent_key) AS absent`,
    [tenantId, present],
  );
  return rows[0];
}

/**
 * Deactivates those of `agentKeys` who are active people (docs/identity.md), as SCIM's deactivation
 * stores it: `deactivated_at` and their last change (`imported_at`) now. `agentKeys` in key order
 * (as findActivePeopleOutside answers them): the primary key's index locks the rows in that order,
 * the order the other writers of many actors lock them in. Answers each one deactivated, with their IFI.
 */
export async function deactivateActors(
  sql: SqlClient,
  tenantId: string,
  agentKeys: readonly string[],
): Promise<Array<{ agentKey: string; ifi: Record<string, unknown> }>> {
  const deactivated: Array<{ agentKey: string; ifi: Record<string, unknown> }> = [];
  await inBatches(agentKeys, async (batch) => {
    const { rows } = await sql.query<{ agent_key: string; ifi: Record<string, unknown> }>(
      `UPDATE actors a SET deactivated_at = now(), imported_at = now(), updated = now()
        WHERE a.tenant_id = $1 AND a.agent_key = ANY($2::text[]) AND ${ACTIVE_PERSON}
        RETURNING a.agent_key, a.ifi`,
      [tenantId, batch],
    );
    for (const row of rows) deactivated.push({ agentKey: row.agent_key, ifi: row.ifi });
  });
  return deactivated;
}
