import type { SqlClient } from '../../../platform/database/sql-client.js';
import { recordAudit } from '../../audit/index.js';
import { outOfScope, type Principal } from '../../../kernel/principal.js';
import { getTenantSettings, lockTenantIdentities, type TenantSettings } from '../settings/tenant-settings.service.js';
import { findActorAndStateByKey, findPersonState, type PersonRecord } from '../actor.repository.js';
import { showActors, type ActorDomains } from '../actor.service.js';
import { identifiersOf, parseAgentWrite, personWriteOf, resolveAgentWrite, type AgentWrite } from './agent-upsert.js';
import { findIdentifierHolders, replacePersonIdentifiers } from '../actor-identifiers.repository.js';
import { upsertAgentActor } from './agent-upsert.repository.js';
import type { PeopleChanges } from '../../../kernel/people-changes.port.js';
import { mayRead, PersonAccessErrors } from '../people/person-access.service.js';

export { parseAgentWrite, personWriteOf, type AgentWrite };

export interface AgentUpsertResult {
  created: boolean;
  /** The stored actor as GET /api/actors shows it: the matched actor's IFI, not always the one sent. */
  actor: Record<string, unknown>;
}

/**
 * `PUT /api/actors/agents`: checks the sent agent (agent-upsert.ts), finds the actor it names by
 * its IFI, else by a unique attribute, and updates it, or creates one. A scoped credential may
 * write only a person of its subtree, before (404 for another) and after (403 `auth.out_of_scope`
 * for an agent the write would place outside it). One transaction holding the
 * tenant's identity lock from the first read to the commit, the one the user import and a change
 * of the unique attributes take: two upserts of one person (or an upsert and an import) run one
 * after the other, the second matching what the first stored, so they make one actor. The audit
 * entry is written in the same transaction, and so is what `peopleChanges` makes of the change.
 */
export async function upsertAgent(
  sql: SqlClient,
  principal: Principal,
  body: unknown,
  source: string | undefined,
  domains: ActorDomains,
  peopleChanges: PeopleChanges,
): Promise<AgentUpsertResult> {
  const write = parseAgentWrite(body);
  return sql.transaction(async (tx) => {
    const { created, actor } = await writeAgent(tx, principal, write, { source, domains, peopleChanges });
    return { created, actor: actor as Record<string, unknown> };
  });
}

/** How a write of one person is made, besides what it writes. */
export interface AgentWriteContext {
  /** Stored with the audit entry (`svc-account-source`, or the channel: `scim`). */
  source: string | undefined;
  domains: ActorDomains;
  peopleChanges: PeopleChanges;
  /**
   * Undefined: the person stays active or deactivated as they are; false: deactivated, true:
   * active again (docs/identity.md). A change is audited (`actor.deactivated`, `actor.reactivated`).
   */
  active?: boolean;
  /**
   * The tenant's settings as the caller read them under the identity lock it already holds (a
   * caller that writes many people in one transaction): then writeAgent neither takes the lock nor
   * reads them again. Under the lock they cannot change.
   */
  lockedSettings?: TenantSettings;
  /** false: no answer is built (the actor as GET /api/actors shows it costs three more reads); a caller with a shape of its own. */
  answer?: boolean;
}

/**
 * upsertAgent's work inside the caller's transaction (`tx`), for a caller that writes people
 * through other channels (identity's SCIM) and checks more under the same lock: it takes the
 * tenant's identity lock itself (a caller that took it already holds it: it is re-entrant).
 */
export async function writeAgent(
  tx: SqlClient,
  principal: Principal,
  write: AgentWrite,
  context: AgentWriteContext,
): Promise<{ created: boolean; agentKey: string; actor?: Record<string, unknown>; record: PersonRecord }> {
  const { source, domains, peopleChanges } = context;
  const tenant = principal.tenant;
  let settings = context.lockedSettings;
  if (settings === undefined) {
    await lockTenantIdentities(tx, tenant.id);
    settings = await getTenantSettings(tx, tenant, domains.baseDomain);
  }
  const identifiers = identifiersOf(write.attributes, settings.uniqueAttributes, write.attributesPath);
  const byKey = await findActorAndStateByKey(tx, tenant.id, write.key);
  const holders = await findIdentifierHolders(tx, tenant.id, identifiers);
  const resolution = resolveAgentWrite(write, identifiers, {
    byKey: byKey && { objectType: byKey.actor.objectType ?? 'Agent' },
    holders,
  });
  // A scoped credential writes only people of its subtree, before and after the write (person-access.service.ts).
  if (resolution.action === 'update' && !(await mayRead(tx, principal, resolution.key))) throw PersonAccessErrors.notFound(resolution.key);
  // Whether a deactivation or reactivation is to audit: only a write that sets the state can change it.
  const wasActive =
    context.active === undefined || resolution.action !== 'update'
      ? undefined
      : resolution.key === write.key
        ? byKey?.active
        : (await findPersonState(tx, tenant.id, resolution.key))?.active;

  const { created, stored, record } = await upsertAgentActor(tx, tenant.id, {
    key: resolution.key,
    ifi: write.ifi,
    name: write.name,
    attributes: write.attributes,
    active: context.active,
  });
  if (write.attributes !== undefined) await replacePersonIdentifiers(tx, tenant.id, resolution.key, identifiers);

  if (!(await mayRead(tx, principal, stored.agentKey))) {
    // Thrown inside the transaction: nothing of the write stays.
    throw outOfScope('This credential may place people only in its organisation subtree: the agent written would fall outside it.');
  }
  await peopleChanges.changed(tx, tenant, { kind: 'people', agentKeys: [resolution.key] });
  const details: Record<string, unknown> = {};
  if (write.name !== undefined) details.name = write.name;
  if (resolution.action === 'update') details.matchedBy = resolution.matchedBy;
  const audited = { principal, actor: { key: stored.agentKey, agent: stored.ifi }, source };
  const stateChanged = context.active !== undefined && context.active !== (wasActive ?? true);
  // A write of the state alone (PATCH /api/actors/item sends neither name nor attributes) is audited
  // as that change only: an `actor.updated` beside it would record a change that was not made.
  const stateOnly = stateChanged && !created && write.name === undefined && write.attributes === undefined;
  if (!stateOnly) await recordAudit(tx, { action: created ? 'actor.created' : 'actor.updated', ...audited, details });
  if (stateChanged) {
    await recordAudit(tx, { action: context.active ? 'actor.reactivated' : 'actor.deactivated', ...audited, details: {} });
  }
  if (context.answer === false) return { created, agentKey: stored.agentKey, record };
  const [actor] = await showActors(tx, tenant, [stored], domains, settings);
  return { created, actor, agentKey: stored.agentKey, record };
}
