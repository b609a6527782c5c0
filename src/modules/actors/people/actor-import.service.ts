import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Principal } from '../../../kernel/principal.js';
import { recordAudits } from '../../audit/index.js';
import { findIdentifierHolders, replaceIdentifiers, type Identifier } from '../actor-identifiers.repository.js';
import {
  type ActorWrite,
  deactivateActors,
  findActivePeopleOutside,
  findActorKeys,
  inBatches,
  insertActors,
  updateActors,
} from './actor-import.repository.js';
import type { PeopleChanges } from '../../../kernel/people-changes.port.js';

/**
 * What the user import (imports module) reads and writes of the tenant's people, set-based: the
 * actors module owns the actors and actor_identifiers tables, the import decides who is who. The
 * caller holds the tenant's identity lock (`lockTenantIdentities`) and one transaction around all.
 */

export type { ActorWrite, Identifier };
export { inBatches };

/** The stored holders of the given unique values. */
export const findHoldersOf = (sql: SqlClient, tenantId: string, identifiers: readonly Identifier[]) =>
  findIdentifierHolders(sql, tenantId, identifiers);

/** Which of `agentKeys` exist, and whether an import made (or adopted) each. */
export const findImportedKeys = (sql: SqlClient, tenantId: string, agentKeys: readonly string[]) => findActorKeys(sql, tenantId, agentKeys);

export interface ImportedPeople {
  /** Existing people (or actors statements named) whose name and attributes the import replaces. */
  updated: ReadonlyArray<Omit<ActorWrite, 'ifi'>>;
  /** New people. */
  created: readonly ActorWrite[];
  /** The updated people with every unique value they hold now (the others are freed). */
  identified: ReadonlyArray<{ agentKey: string; identifiers: readonly Identifier[] }>;
  /** The unique values not yet held by their person. */
  addedIdentifiers: ReadonlyArray<Identifier & { agentKey: string }>;
}

/** Stores one import's people, in key order as given (rows are locked in one order). */
export async function storeImportedPeople(tx: SqlClient, tenantId: string, people: ImportedPeople): Promise<void> {
  await updateActors(tx, tenantId, people.updated);
  await insertActors(tx, tenantId, people.created);
  await replaceIdentifiers(tx, tenantId, people.identified, people.addedIdentifiers);
}

/**
 * The tenant's active people (written by an import, an upsert or an identity system, and not
 * deactivated: whom SCIM lists as active and the actor search finds) counted, and the agent keys
 * of those not among `present`, in key order: whom a sync import would deactivate.
 */
export { findActivePeopleOutside };

/**
 * Deactivates the active people among `agentKeys` (in key order) as an identity system deactivates
 * a person (docs/identity.md, "Changing, deactivating, deleting"): each is stored deactivated, gets
 * an `actor.deactivated` audit entry naming `principal` and `source`, and `peopleChanges` hears of
 * them, all in `tx`. Their learner credentials are the caller's to revoke in the same transaction
 * (auth's, above actors). Answers the keys deactivated.
 */
export async function deactivatePeople(
  tx: SqlClient,
  principal: Principal,
  agentKeys: readonly string[],
  context: { source: string | undefined; peopleChanges: PeopleChanges },
): Promise<string[]> {
  if (agentKeys.length === 0) return [];
  const deactivated = await deactivateActors(tx, principal.tenant.id, agentKeys);
  await recordAudits(
    tx,
    deactivated.map((person) => ({
      action: 'actor.deactivated' as const,
      principal,
      actor: { key: person.agentKey, agent: person.ifi },
      source: context.source,
      details: {},
    })),
  );
  const keys = deactivated.map((person) => person.agentKey);
  if (keys.length > 0) await context.peopleChanges.changed(tx, principal.tenant, { kind: 'people', agentKeys: keys });
  return keys;
}
