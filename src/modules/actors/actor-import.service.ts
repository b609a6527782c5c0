import type { SqlClient } from '../../platform/database/sql-client.js';
import { findIdentifierHolders, replaceIdentifiers, type Identifier } from './actor-identifiers.repository.js';
import { type ActorWrite, findActorKeys, inBatches, insertActors, updateActors } from './actor-import.repository.js';

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
