import type { SqlClient } from '../../../platform/database/sql-client.js';
import { findPersonRecords, type PersonRecord } from '../actor.repository.js';
import { findIdentifierHolders } from '../actor-identifiers.repository.js';
import { identifiersOf } from '../agents/agent-upsert.js';

export type { PersonRecord };

/**
 * `listPersonRecords(sql, tenantId, condition, values, page)`: the tenant's people as an identity
 * system reads them (docs/identity.md): written by an import, an upsert or the identity system
 * itself, active or deactivated, that `condition` holds for (SQL over `actors a`: `a.id`, `a.name`,
 * `a.attributes`, `a.deactivated_at`; its placeholders from `$2`, their values `values`, the tenant
 * id `$1`); a page in the order they were first stored, and how many there are in all.
 */
export { findPersonRecords as listPersonRecords };

/** The person whose actor id is `id` (a UUID; anything else is nobody), or undefined. */
export async function personRecordById(sql: SqlClient, tenantId: string, id: string): Promise<PersonRecord | undefined> {
  if (!UUID.test(id)) return undefined;
  const { records } = await findPersonRecords(sql, tenantId, 'a.id = $2::uuid', [id], { skip: 0, limit: 1 });
  return records[0];
}

/**
 * The people holding the values `attributes` has of the tenant's `uniqueAttributes` (the ones the
 * user import and PUT /api/actors/agents match by), at most one per value: none, one, or (when two
 * values name two people) several, in the order of the unique attributes.
 */
export async function personRecordsByUniqueValues(
  sql: SqlClient,
  tenantId: string,
  uniqueAttributes: readonly string[],
  attributes: Readonly<Record<string, string>>,
): Promise<PersonRecord[]> {
  const holders = await findIdentifierHolders(sql, tenantId, identifiersOf(attributes, uniqueAttributes));
  const keys = [...new Set(holders.map((holder) => holder.agentKey))];
  if (keys.length === 0) return [];
  const { records } = await findPersonRecords(sql, tenantId, 'a.agent_key = ANY($2::text[])', [keys], { skip: 0, limit: keys.length });
  return keys.flatMap((key) => records.filter((record) => record.agentKey === key));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
