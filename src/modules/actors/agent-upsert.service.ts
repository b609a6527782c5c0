import type { SqlClient } from '../../platform/database/sql-client.js';
import { recordAudit } from '../audit/audit.service.js';
import { outOfScope, type Principal } from '../../kernel/principal.js';
import { getTenantSettings, lockTenantIdentities } from './tenant-settings.service.js';
import { findActorByKey } from './actor.repository.js';
import { showActors, type ActorDomains } from './actor.service.js';
import { identifiersOf, parseAgentWrite, resolveAgentWrite } from './agent-upsert.js';
import { findIdentifierHolders, replaceIdentifiers } from './actor-identifiers.repository.js';
import { upsertAgentActor } from './agent-upsert.repository.js';
import type { PeopleChanges } from './people-changes.js';
import { mayRead, PersonAccessErrors } from './person-access.service.js';

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
  const tenant = principal.tenant;
  return sql.transaction(async (tx) => {
    await lockTenantIdentities(tx, tenant.id);
    const settings = await getTenantSettings(tx, tenant, domains.baseDomain);
    const identifiers = identifiersOf(write.attributes, settings.uniqueAttributes, write.attributesPath);
    const byKey = await findActorByKey(tx, tenant.id, write.key);
    const holders = await findIdentifierHolders(tx, tenant.id, identifiers);
    const resolution = resolveAgentWrite(write, identifiers, { byKey: byKey && { objectType: byKey.objectType ?? 'Agent' }, holders });
    // A scoped credential writes only people of its subtree, before and after the write (person-access.service.ts).
    if (resolution.action === 'update' && !(await mayRead(tx, principal, resolution.key)))
      throw PersonAccessErrors.notFound(resolution.key);

    const { created } = await upsertAgentActor(tx, tenant.id, {
      key: resolution.key,
      ifi: write.ifi,
      name: write.name,
      attributes: write.attributes,
    });
    if (write.attributes !== undefined) {
      const agentKey = resolution.key;
      await replaceIdentifiers(
        tx,
        tenant.id,
        [{ agentKey, identifiers }],
        identifiers.map((identifier) => ({ ...identifier, agentKey })),
      );
    }

    const stored = await findActorByKey(tx, tenant.id, resolution.key);
    if (!stored) throw new Error(`The actor ${resolution.key} just written is not there.`);
    if (!(await mayRead(tx, principal, stored.agentKey))) {
      // Thrown inside the transaction: nothing of the write stays.
      throw outOfScope('This credential may place people only in its organisation subtree: the agent written would fall outside it.');
    }
    await peopleChanges.changed(tx, tenant, { kind: 'people', agentKeys: [resolution.key] });
    const details: Record<string, unknown> = {};
    if (write.name !== undefined) details.name = write.name;
    if (resolution.action === 'update') details.matchedBy = resolution.matchedBy;
    await recordAudit(tx, {
      action: created ? 'actor.created' : 'actor.updated',
      principal,
      actor: { key: stored.agentKey, agent: stored.ifi },
      source,
      details,
    });
    const [actor] = await showActors(tx, tenant, [stored], domains);
    return { created, actor };
  });
}
