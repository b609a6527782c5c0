import type { SqlClient } from '../../platform/database/sql-client.js';
import { positionOfSql } from './actor-position.js';

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
  await sql.query(
    `INSERT INTO actors (tenant_id, agent_key, ifi, updated, name, attributes, position_id, imported_at)
     SELECT $1, r.key, r.ifi, now(), r.name, r.attributes, ${positionOfSql('r.attributes', '$1')}, now()
       FROM jsonb_to_recordset($2::jsonb) AS r(key text, ifi jsonb, name text, attributes jsonb)`,
    [tenantId, JSON.stringify(actors)],
  );
}

/**
 * Replaces the name and attributes of existing users, and adopts the rows of actors statements
 * named under the key a new user gets (their `ifi` and `names` stay: one actor).
 */
export async function updateActors(sql: SqlClient, tenantId: string, actors: readonly Omit<ActorWrite, 'ifi'>[]): Promise<void> {
  await inBatches(actors, (batch) => updateActorBatch(sql, tenantId, batch));
}

async function updateActorBatch(sql: SqlClient, tenantId: string, actors: readonly Omit<ActorWrite, 'ifi'>[]): Promise<void> {
  await sql.query(
    `UPDATE actors AS a SET name = r.name, attributes = r.attributes, position_id = ${positionOfSql('r.attributes', '$1')},
            imported_at = now(), updated = now(), authority_only = false
       FROM jsonb_to_recordset($2::jsonb) AS r(key text, name text, attributes jsonb)
      WHERE a.tenant_id = $1 AND a.agent_key = r.key
        AND (a.name IS DISTINCT FROM r.name OR a.attributes IS DISTINCT FROM r.attributes OR a.authority_only)`,
    [tenantId, JSON.stringify(actors)],
  );
}
