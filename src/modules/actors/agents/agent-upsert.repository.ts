import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { StoredActor } from '../attributes/actor-attributes.js';
import { positionOfSql } from '../actor-position.js';
import {
  type ActorRow,
  PERSON_RECORD_COLUMNS,
  type PersonRecord,
  type PersonRecordRow,
  toPersonRecord,
  toStoredActor,
  userNameRefusalOf,
} from '../actor.repository.js';

/**
 * The SQL of writing one agent. The caller holds the tenant's identity lock
 * (tenant-settings.service.ts `lockTenantIdentities`) and its transaction around all of them,
 * as the user import does: the two never interleave.
 */

export interface AgentActorWrite {
  key: string;
  /** The IFI alone; stored only when the row is created. */
  ifi: Record<string, unknown>;
  /** Undefined: the stored value stays. */
  name?: string;
  attributes?: Record<string, string>;
  /**
   * Undefined: the person stays as they are; false: deactivated (docs/identity.md; the time of the
   * first deactivation is kept); true: active again.
   */
  active?: boolean;
}

/** The row written: as the reads of actors give it, and as an identity system sees the person. */
export interface UpsertedActor {
  created: boolean;
  stored: StoredActor;
  record: PersonRecord;
}

/**
 * Writes the actor under `key`: creates it, or replaces the name and attributes that were sent.
 * One statement either way: a statement naming the same agent between the caller's lookup and
 * this write (statements take no identity lock) makes it an update of that row, never a
 * duplicate-key failure. Answers whether the row was created (`xmax = 0`: no earlier version) and
 * the row as written, so that nobody reads it again.
 */
export async function upsertAgentActor(sql: SqlClient, tenantId: string, actor: AgentActorWrite): Promise<UpsertedActor> {
  const { rows } = await sql
    .query<{ created: boolean } & ActorRow & PersonRecordRow>(
      `INSERT INTO actors AS a (tenant_id, agent_key, ifi, updated, name, attributes, position_id, imported_at, deactivated_at)
     VALUES ($1, $2, $3::jsonb, now(), $4, $5::jsonb, ${positionOfSql('$5::jsonb', '$1')}, now(),
             CASE WHEN $8::boolean = false THEN now() END)
     ON CONFLICT (tenant_id, agent_key) DO UPDATE
        SET name = CASE WHEN $6::boolean THEN EXCLUDED.name ELSE a.name END,
            attributes = CASE WHEN $7::boolean THEN EXCLUDED.attributes ELSE a.attributes END,
            position_id = CASE WHEN $7::boolean THEN EXCLUDED.position_id ELSE a.position_id END,
            imported_at = now(),
            updated = now(),
            authority_only = false,
            deactivated_at = CASE WHEN $8::boolean IS NULL THEN a.deactivated_at
                                  WHEN $8::boolean THEN NULL
                                  ELSE COALESCE(a.deactivated_at, now()) END
     RETURNING (xmax = 0) AS created, ${PERSON_RECORD_COLUMNS}, a.names, a.object_type, a.members`,
      [
        tenantId,
        actor.key,
        JSON.stringify(actor.ifi),
        actor.name ?? null,
        actor.attributes === undefined ? null : JSON.stringify(actor.attributes),
        actor.name !== undefined,
        actor.attributes !== undefined,
        actor.active ?? null,
      ],
    )
    .catch((error: unknown) => {
      throw userNameRefusalOf(error) ?? error;
    });
  const row = rows[0];
  return { created: row.created, stored: toStoredActor(row), record: toPersonRecord(row) };
}
