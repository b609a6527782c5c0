import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Principal } from '../../../kernel/principal.js';
import { deactivatePeople, findActivePeopleOutside } from '../../actors/index.js';
import type { PeopleChanges } from '../../../kernel/people-changes.port.js';
import type { CredentialService } from '../../auth/index.js';
import type { UserImportSummary } from './user-import.js';
import { syncRefusal, UserSyncErrors } from './user-sync-rules.js';

/**
 * A users import's `sync` mode (docs/identity.md, "A sync: people left out are deactivated"): the
 * file is the whole list of the tenant's people, and the active people it leaves out are
 * deactivated as SCIM deactivates a person, in the import's transaction, under the tenant's
 * identity lock it holds alone (no SCIM, HR or single sign-on write of a person runs beside it).
 */
export interface UserSyncContext {
  /** LEARNBASE_IMPORT_SYNC_MAX_SHARE: the largest share of the tenant's active people one sync may deactivate. */
  maxShare: number;
  /** Auth's learner credentials: the deactivated people's are revoked in the import's transaction, and announced after it. */
  credentials: Pick<CredentialService, 'revokeAllOfPeople' | 'announce'>;
  /** The audit entries' source (`import-folder`, or the request's `svc-account-source`). */
  source: string | undefined;
}

/**
 * Whether `principal` may sync, checked before the import reads anything: the whole tenant's
 * credential only (a scoped one cannot tell whom the file leaves out, 403), and only where the
 * caller can revoke credentials (`sync` given; `learnbase import` cannot, 400).
 */
export function checkSyncAllowed(principal: Principal, sync: UserSyncContext | undefined): UserSyncContext {
  if (principal.scope) throw UserSyncErrors.scoped();
  if (!sync) throw UserSyncErrors.unavailable();
  return sync;
}

/**
 * Whom a sync deactivates: the tenant's active people not among `present`, the agent keys the
 * import resolved its rows to (created, updated or unchanged), in key order. Refused whole when a
 * row has errors (its person would count as left out) or when more than `maxShare` of the active
 * people would go (user-sync-rules.ts: a truncated export).
 */
export async function planSync(
  tx: SqlClient,
  tenantId: string,
  summary: UserImportSummary,
  present: readonly string[],
  maxShare: number,
): Promise<string[]> {
  if (summary.errorCount > 0) throw UserSyncErrors.rowErrors(summary);
  const { active, absent } = await findActivePeopleOutside(tx, tenantId, present);
  const refusal = syncRefusal({ active, deactivating: absent.length }, maxShare);
  if (refusal) throw refusal;
  return absent;
}

/**
 * Deactivates the people planSync found, in the import's transaction `tx`: stored deactivated,
 * audited (`actor.deactivated`), `peopleChanges` told (their dynamic assignments follow), and
 * their learner credentials revoked. Answers how many, and the credentials to announce once the
 * transaction committed.
 */
export async function deactivateAbsent(
  tx: SqlClient,
  principal: Principal,
  absent: readonly string[],
  sync: UserSyncContext,
  peopleChanges: PeopleChanges,
): Promise<{ deactivated: number; revoked: string[] }> {
  const deactivated = await deactivatePeople(tx, principal, absent, { source: sync.source, peopleChanges });
  const revoked = await sync.credentials.revokeAllOfPeople(tx, principal.tenant.id, deactivated);
  return { deactivated: deactivated.length, revoked };
}
