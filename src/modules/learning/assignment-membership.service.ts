import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Tenant } from '../../kernel/principal.js';
import { Parameters } from '../actors/actor-search-compiler.js';
import { peopleMatchingSql } from '../actors/actor-search.service.js';
import type { PeopleChange, PeopleChanges } from '../actors/people-changes.js';
import { getTenantSettings, type TenantSettings } from '../actors/tenant-settings.service.js';
import { type PeopleSelection, selectionCriteria } from './assignment-rules.js';
import { findDynamicAssignments, lockAssignments, refreshMembers } from './assignment.repository.js';

/**
 * Who an assignment takes (docs/learning.md, "Who is assigned"): its members follow its selection.
 * A static one (actor ids) changes only when it is replaced; a dynamic one (criteria, an
 * organisation subtree, a job) also whenever people change, in the transaction that changes them
 * (the writers call `changed` of the PeopleChanges the entries hand them: this module's).
 */

/**
 * Brings one assignment's members up to date with its selection, set-wise (one statement): the
 * people it selects join, the members it no longer selects leave keeping what they had done.
 * `within`: only these people changed (agent keys); without it, everyone is looked at. The
 * caller holds the tenant's assignments lock.
 */
export function refreshMembership(
  tx: SqlClient,
  tenantId: string,
  assignmentId: string,
  people: PeopleSelection,
  settings: TenantSettings,
  within?: readonly string[],
): Promise<{ joined: number; left: number }> {
  const parameters = new Parameters([tenantId, assignmentId]);
  const scope = within === undefined ? undefined : parameters.add([...within]);
  const criteria = selectionCriteria(people);
  const matched =
    criteria !== undefined
      ? peopleMatchingSql(criteria, settings, parameters, scope)
      : `SELECT DISTINCT k.agent_key FROM unnest(${parameters.add('actorIds' in people ? people.actorIds : [])}::text[]) AS k (agent_key)` +
        (scope === undefined ? '' : ` WHERE k.agent_key = ANY(${scope}::text[])`);
  return refreshMembers(tx, matched, parameters.values, scope);
}

/**
 * Every dynamic assignment of the tenant brought up to date after `change`, one statement each,
 * looking only at the people changed (or at everyone). Nothing but the lock and one read when the
 * tenant has no dynamic assignment.
 */
export async function refreshDynamicAssignments(
  tx: SqlClient,
  tenant: Pick<Tenant, 'id' | 'name'>,
  baseDomain: string,
  change: PeopleChange,
): Promise<void> {
  if (change.kind === 'people' && change.agentKeys.length === 0) return;
  await lockAssignments(tx, tenant.id);
  const dynamic = await findDynamicAssignments(tx, tenant.id);
  if (dynamic.length === 0) return;
  const settings = await getTenantSettings(tx, tenant, baseDomain);
  const within = change.kind === 'people' ? [...new Set(change.agentKeys)] : undefined;
  for (const assignment of dynamic) await refreshMembership(tx, tenant.id, assignment.id, assignment.people, settings, within);
}

/**
 * What the writers of people (imports, `PUT /api/actors/agents`, `PUT /api/settings`) tell: the
 * dynamic assignments refreshed in their transaction. The entries (server/app.ts, cli/import.ts)
 * make it and hand it to the actors and imports modules.
 */
export function assignmentPeopleChanges(baseDomain: string): PeopleChanges {
  return { changed: (tx, tenant, change) => refreshDynamicAssignments(tx, tenant, baseDomain, change) };
}
