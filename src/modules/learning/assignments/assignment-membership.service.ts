import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Tenant } from '../../../kernel/principal.js';
import {
  notDeactivatedSql,
  peopleAmongSql,
  peopleMatchingSql,
  placedWithinCondition,
  getTenantSettings,
  type TenantSettings,
} from '../../actors/index.js';
import type { PeopleChange, PeopleChanges } from '../../../kernel/people-changes.port.js';
import { type PeopleSelection, selectionCriteria } from './assignment-rules.js';
import { findAssignmentSelections, lockAssignments, lockAssignmentsShared, refreshMembers } from './assignment.repository.js';

/**
 * Who an assignment takes (docs/learning.md, "Who is assigned"): its members follow its selection.
 * A dynamic one (criteria, an organisation subtree, a job) changes whenever people change, in the
 * transaction that changes them (the writers call `changed` of the PeopleChanges the entries hand
 * them: this module's); a static one (actor ids) takes the people it names, and loses one when it
 * is replaced without them, when an identity system deactivates them (docs/identity.md), or when
 * they leave its scope. An assignment limited to an organisation entry (its `scope`, a scoped
 * credential's) takes only the people placed in that entry or below it, whoever triggers the refresh.
 */

/** An assignment as a refresh reads it: its selection, and its scope (null: the whole tenant). */
export interface AssignmentSelection {
  id: string;
  people: PeopleSelection;
  scope: string | null;
}

/**
 * Assignments brought up to date in one statement at most: their criteria's values are bound
 * parameters, at most 100 nodes each (the search's bound), so a batch stays far below the
 * protocol's 65,535 parameters.
 */
const ASSIGNMENTS_A_STATEMENT = 50;

/** ` WHERE` and the conditions given, or nothing when none is. */
const where = (...conditions: Array<string | undefined>) => {
  const given = conditions.filter((condition) => condition !== undefined);
  return given.length === 0 ? '' : ` WHERE ${given.join(' AND ')}`;
};

/**
 * Brings the members of `assignments` up to date with their selections, set-wise: one statement
 * for up to ASSIGNMENTS_A_STATEMENT of them. The people each selects join, the members it no
 * longer selects leave keeping what they had done; a scoped one selects among the people of its
 * subtree only. `within`: only these people changed (agent keys, read once for every assignment);
 * without it, everyone is looked at. The caller holds the tenant's assignments lock.
 */
export async function refreshMemberships(
  tx: SqlClient,
  tenantId: string,
  assignments: readonly AssignmentSelection[],
  settings: TenantSettings,
  within?: readonly string[],
): Promise<{ joined: number; left: number }> {
  const total = { joined: 0, left: 0 };
  for (let start = 0; start < assignments.length; start += ASSIGNMENTS_A_STATEMENT) {
    const batch = assignments.slice(start, start + ASSIGNMENTS_A_STATEMENT);
    const parameters = new SqlValues([tenantId]);
    const ids = parameters.bind(batch.map((assignment) => assignment.id));
    const scope = within === undefined ? undefined : parameters.bind([...within]);
    const matched = batch.map((assignment) => {
      const id = `${parameters.bind(assignment.id)}::uuid`;
      // A scoped assignment takes the people of its subtree only, whoever refreshes it.
      const placed = (column: string) =>
        assignment.scope === null ? undefined : placedWithinCondition(column, '$1', parameters.bind(assignment.scope));
      const criteria = selectionCriteria(assignment.people);
      if (criteria !== undefined) {
        const people = peopleMatchingSql(criteria, settings, parameters, scope && 'people');
        return `SELECT ${id} AS assignment_id, p.agent_key FROM (${people}) p${where(placed('p.agent_key'))}`;
      }
      const actorIds = parameters.bind('actorIds' in assignment.people ? assignment.people.actorIds : []);
      const narrowed = scope === undefined ? undefined : `k.agent_key = ANY(${scope}::text[])`;
      const active = notDeactivatedSql('k.agent_key');
      return `SELECT DISTINCT ${id} AS assignment_id, k.agent_key FROM unnest(${actorIds}::text[]) AS k (agent_key)${where(narrowed, active, placed('k.agent_key'))}`;
    });
    const counted = await refreshMembers(
      tx,
      {
        preamble: scope === undefined ? '' : `people AS MATERIALIZED (${peopleAmongSql(scope)}),`,
        matched: matched.join('\n UNION ALL '),
        assignments: ids,
        ...(scope === undefined ? {} : { within: scope }),
      },
      parameters.values,
    );
    total.joined += counted.joined;
    total.left += counted.left;
  }
  return total;
}

/**
 * Every assignment of the tenant brought up to date after `change`, looking only at the people
 * changed (or at everyone): a dynamic one takes whom its selection selects now, a static one loses
 * the people it names who were deactivated or left its scope. Nothing but the lock and one read
 * when the tenant has no assignment.
 */
export async function refreshAssignments(
  tx: SqlClient,
  tenant: Pick<Tenant, 'id' | 'name'>,
  baseDomain: string,
  change: PeopleChange,
): Promise<void> {
  if (change.kind === 'people' && change.agentKeys.length === 0) return;
  // A few people's refresh writes their own member rows: beside other such refreshes, never beside a write of an assignment.
  if (change.kind === 'people') await lockAssignmentsShared(tx, tenant.id);
  else await lockAssignments(tx, tenant.id);
  const assignments = await findAssignmentSelections(tx, tenant.id);
  if (assignments.length === 0) return;
  const settings = await getTenantSettings(tx, tenant, baseDomain);
  await refreshMemberships(tx, tenant.id, assignments, settings, change.kind === 'people' ? [...new Set(change.agentKeys)] : undefined);
}

/**
 * What the writers of people (imports, `PUT /api/actors/agents`, `PUT /api/settings`) tell: the
 * dynamic assignments refreshed in their transaction. The entries (server/app.ts, cli/import.ts)
 * make it and hand it to the actors and imports modules.
 */
export function assignmentPeopleChanges(baseDomain: string): PeopleChanges {
  return { changed: (tx, tenant, change) => refreshAssignments(tx, tenant, baseDomain, change) };
}
