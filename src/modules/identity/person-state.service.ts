import { conflict } from '../../platform/http/app-error.js';
import type { Principal } from '../../kernel/principal.js';
import { requirePerson, showPerson, type PersonItem, getTenantSettings } from '../actors/index.js';
import {
  inIdentityTransaction,
  lockedPlan,
  personLockKey,
  writePerson,
  type IdentityPeople,
  type IdentityWriter,
} from './identity-person.service.js';

/** What `PATCH /api/actors/item` writes with, besides who asks: identity's writing of people. */
export type PersonStateOptions = IdentityPeople;

/**
 * `PATCH /api/actors/item`: an admin or API key deactivates (`active` false) or reactivates the
 * person stored under `agentKey`, the way SCIM and the HR webhooks do (docs/identity.md,
 * "Changing, deactivating, deleting"): through identity's one writer of people (`writePerson`:
 * actors' `writeAgent` stores the state, tells `peopleChanges` and audits `actor.deactivated` or
 * `actor.reactivated` with `principal` and `source`; a deactivation revokes every learner credential
 * of theirs in the same transaction, announced to every process after the commit). The write holds
 * the tenant's identity lock shared and the person's own lock, the ones SCIM and the HR webhooks
 * take for the same person, so two changes of one person run one after the other, and the second
 * finds the first done. A person already in the state asked for is answered as they are: nothing
 * written, nothing audited.
 *
 * Who: requirePerson's rule (404 `actors.not_found` for nobody, a statement authority, or a person
 * outside a scoped credential's subtree). An agent only statements named is deactivated too (it
 * becomes one of the people, as `PUT /api/actors/agents` with its identifier would make it); an
 * identified group is no person: 409 `actors.not_an_agent`. Answers the person as
 * `GET /api/actors/item` does, read in the same transaction.
 */
export async function changePersonState(
  options: PersonStateOptions,
  principal: Principal,
  agentKey: string,
  active: boolean,
  source: string | undefined,
): Promise<PersonItem> {
  const writer: IdentityWriter = { ...options, principal, source };
  const tenant = principal.tenant;
  const lockKey = personLockKey(agentKey);
  const { person } = await inIdentityTransaction(writer, async (tx) => {
    const found = await lockedPlan(tx, tenant.id, async () => ({ keys: [lockKey], value: await requirePerson(tx, principal, agentKey) }), [
      lockKey,
    ]);
    if (found.actor.objectType === 'Group') {
      throw conflict(
        'actors.not_an_agent',
        'This identifier is an identified group’s (a statement named it as a Group): a group is no person to deactivate.',
        {
          actorId: agentKey,
        },
      );
    }
    let revoked: string[] = [];
    if (found.active !== active) {
      const settings = await getTenantSettings(tx, tenant, options.domains.baseDomain);
      ({ revoked } = await writePerson(tx, writer, settings, { active }, found.actor.ifi));
    }
    return { revoked, person: await showPerson(tx, principal, agentKey, options.domains) };
  });
  return person;
}
