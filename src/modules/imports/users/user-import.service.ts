import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ANALYZE_AFTER_ROWS, refreshStatistics } from '../../../platform/database/statistics.js';
import { badRequest } from '../../../platform/http/app-error.js';
import type { Principal } from '../../../kernel/principal.js';
import {
  getTenantSettings,
  lockTenantIdentities,
  findHoldersOf,
  findImportedKeys,
  inBatches,
  storeImportedPeople,
  readableAmong,
  scopeEntryIds,
} from '../../actors/index.js';
import type { PeopleChanges } from '../../../kernel/people-changes.port.js';
import { parseAgent } from '../../../kernel/agent.js';
import { type OnCommitting, recordImportRun } from '../import-run.service.js';
import { existingJobIds, existingOrganisationIds } from '../../organisation/index.js';
import {
  attributeOf,
  type CandidateUser,
  checkRows,
  linkWarnings,
  narrowToScope,
  resolveCandidates,
  type ResolvedUser,
  type StoredIdentities,
  storedIdentifierKey,
  summarise,
  type UserImportMessage,
  type UserImportSummary,
} from './user-import.js';
import { isUserImportMode, type UserImportMode, withDeactivated } from './user-sync-rules.js';
import { checkSyncAllowed, deactivateAbsent, planSync, type UserSyncContext } from './user-sync.service.js';

export interface UserImportRequest {
  users: unknown[];
  verify: boolean;
  /** `sync`: the tenant's active people the rows leave out are deactivated (user-sync.service.ts). */
  mode: UserImportMode;
}

/**
 * The body of `POST /api/import/users` as a whole: an object whose `users` is an array, whose
 * `verify`, when sent, is a boolean and whose `mode`, when sent, `merge` or `sync`. Anything else is
 * refused (400) before any row is looked at.
 */
export function parseUserImportBody(body: unknown): UserImportRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    const shape = '{"users": [...], "verify"?: boolean, "mode"?: "merge" | "sync"}';
    throw badRequest('imports.invalid_body', `The body must be a JSON object ${shape}.`, { field: 'body' });
  }
  const { users, verify, mode } = body as Record<string, unknown>;
  if (users === undefined) throw badRequest('imports.invalid_body', 'The body has no "users" array.', { field: 'users' });
  if (!Array.isArray(users)) throw badRequest('imports.invalid_body', '"users" must be an array of users.', { field: 'users' });
  if (verify !== undefined && typeof verify !== 'boolean') {
    throw badRequest('imports.invalid_body', '"verify" must be true or false.', { field: 'verify' });
  }
  if (mode !== undefined && !isUserImportMode(mode)) {
    throw badRequest('imports.invalid_body', '"mode" must be "merge" or "sync".', { field: 'mode' });
  }
  return { users, verify: verify ?? false, mode: mode ?? 'merge' };
}

/** The agent key and IFI of the account an imported user gets (agent.ts's canonical form). */
function accountAgent(homePage: string, name: string) {
  const { key, agent } = parseAgent({ account: { homePage, name } }, 'account');
  return { key, ifi: agent };
}

/**
 * What the store holds that a batch of candidates meets: their unique values' holders and whether
 * their account keys exist. `accountKey` answers the agent key of an account name.
 */
async function findStoredIdentities(
  tx: SqlClient,
  tenantId: string,
  candidates: readonly CandidateUser[],
  accountKey: (accountName: string) => string,
): Promise<StoredIdentities> {
  const identifiers = new Map<string, string>();
  for (const holder of await findHoldersOf(
    tx,
    tenantId,
    candidates.flatMap((candidate) => candidate.identifiers),
  )) {
    identifiers.set(storedIdentifierKey(holder), holder.agentKey);
  }
  const actors = await findImportedKeys(tx, tenantId, [
    ...new Set(candidates.map((candidate) => accountKey(candidate.identifiers[0].value))),
  ]);
  return { identifiers, actors };
}

/**
 * Every candidate resolved against the store (user-import.ts), a batch of rows at a time: each
 * batch's lookups, parameters and maps stay small and short-lived, so 100,000 users never hold
 * all their matches in memory at once. Nothing is written before every row is resolved, so each
 * batch meets the store as it was before the import: the same answer as all rows at once.
 */
async function resolveAll(
  tx: SqlClient,
  tenantId: string,
  candidates: readonly CandidateUser[],
  accountKey: (accountName: string) => string,
): Promise<{ users: ResolvedUser[]; errors: UserImportMessage[] }> {
  const resolved = { users: [] as ResolvedUser[], errors: [] as UserImportMessage[] };
  const usedKeys = new Map<string, number>();
  await inBatches(candidates, async (batch) => {
    const keys = new Map<string, string>();
    const batchKey = (name: string) => {
      const known = keys.get(name);
      if (known !== undefined) return known;
      const key = accountKey(name);
      keys.set(name, key);
      return key;
    };
    const stored = await findStoredIdentities(tx, tenantId, batch, batchKey);
    const { users, errors } = resolveCandidates(batch, stored, batchKey, usedKeys);
    for (const user of users) resolved.users.push(user);
    for (const error of errors) resolved.errors.push(error);
  });
  return resolved;
}

/** What a users import is run with, besides the request. */
export interface UserImportContext {
  /** For the default accountHomePage, the tenant's own address. */
  baseDomain: string;
  /** Told of the users written (and, by a sync, deactivated), in the import's transaction. */
  peopleChanges: PeopleChanges;
  /** What a sync needs; without it a request in `sync` mode is refused (user-sync.service.ts). */
  sync?: UserSyncContext;
  /** Runs last in the import's transaction, with the summary answered. */
  onCommitting?: OnCommitting<UserImportSummary>;
}

/**
 * Imports (or, with `verify`, only checks) users: the rules of user-import.ts against what the
 * tenant stores, then the valid rows written in one transaction, with the run recorded in it.
 * The tenant's identity lock is held from the first read to the commit, so two imports of one
 * tenant run one after the other and each sees what the other stored: never two actors for one
 * person. Verify takes the same path and writes nothing but the run. `peopleChanges` hears of the
 * users written, in the same transaction; so does `onCommitting`, with the summary, last. In `sync`
 * mode the active people the rows leave out are deactivated in the same transaction too (or, with
 * verify, counted), and their revoked credentials announced once it committed.
 */
export async function importUsers(
  sql: SqlClient,
  principal: Principal,
  request: UserImportRequest,
  context: UserImportContext,
): Promise<UserImportSummary> {
  const { baseDomain, peopleChanges, onCommitting } = context;
  const sync = request.mode === 'sync' ? checkSyncAllowed(principal, context.sync) : undefined;
  const startedAt = new Date();
  const tenant = principal.tenant;
  const { answered, revoked } = await sql.transaction(async (tx) => {
    await lockTenantIdentities(tx, tenant.id);
    const settings = await getTenantSettings(tx, tenant, baseDomain);
    const checked = checkRows(request.users, settings);
    const accountKey = (name: string) => accountAgent(settings.accountHomePage, name).key;

    let resolved = await resolveAll(tx, tenant.id, checked.candidates, accountKey);
    // A scoped credential changes and places people of its subtree only: other rows are skipped (out_of_scope).
    const entries = await scopeEntryIds(tx, principal);
    if (entries !== undefined) {
      const stored = resolved.users.filter((user) => user.action !== 'new').map((user) => user.agentKey);
      const narrowed = narrowToScope(resolved.users, settings.organisationAttribute, {
        entries,
        reachable: await readableAmong(tx, principal, stored),
      });
      resolved = { users: narrowed.users, errors: [...resolved.errors, ...narrowed.errors] };
    }

    const linked = (attribute: string | null) =>
      attribute
        ? [...new Set(resolved.users.map((user) => attributeOf(user.attributes, attribute)).filter((value): value is string => !!value))]
        : [];
    const organisationIds = linked(settings.organisationAttribute);
    const jobIds = linked(settings.jobAttribute);
    const links = linkWarnings(resolved.users, settings, {
      organisations: organisationIds.length > 0 ? await existingOrganisationIds(tx, tenant.id, organisationIds) : new Set(),
      jobs: jobIds.length > 0 ? await existingJobIds(tx, tenant.id, jobIds) : new Set(),
    });
    let summary = summarise(request.users.length, resolved.users, [...checked.errors, ...resolved.errors], [...checked.warnings, ...links]);
    // A sync is planned before anything is written: refused, it writes nothing.
    const present = sync ? resolved.users.map((user) => user.agentKey) : [];
    const absent = sync ? await planSync(tx, tenant.id, summary, present, sync.maxShare) : [];

    // With verify, a sync only counts whom it would deactivate.
    let synced = { deactivated: absent.length, revoked: [] as string[] };
    if (!request.verify) {
      await storeUsers(tx, tenant, settings.accountHomePage, resolved.users, peopleChanges);
      if (sync) synced = await deactivateAbsent(tx, principal, absent, sync, peopleChanges);
    }
    if (sync) summary = withDeactivated(summary, synced.deactivated);

    const { errors: _errors, warnings: _warnings, ...counts } = summary;
    await recordImportRun(tx, { kind: 'users', verify: request.verify, principal, startedAt, summary: counts });
    await onCommitting?.(tx, summary);
    return { answered: summary, revoked: synced.revoked };
  });
  // Every process stops trusting the revoked credentials at once (as SCIM's deactivation does).
  if (sync) await sync.credentials.announce(revoked);
  // The planner should see the new rows before the next search or import does.
  if (!request.verify && answered.new + answered.existing >= ANALYZE_AFTER_ROWS)
    await refreshStatistics(sql, ['actors', 'actor_identifiers']);
  return answered;
}

/**
 * Writes the resolved users in key order (the indexes are filled in order, and rows are always
 * locked in one order), and tells `peopleChanges` of them.
 */
async function storeUsers(
  tx: SqlClient,
  tenant: Principal['tenant'],
  accountHomePage: string,
  users: readonly ResolvedUser[],
  peopleChanges: PeopleChanges,
): Promise<void> {
  const written = [...users].sort((a, b) => (a.agentKey < b.agentKey ? -1 : a.agentKey > b.agentKey ? 1 : 0));
  const updated = written.filter((user) => user.action !== 'new');
  const created = written.filter((user) => user.action === 'new');
  await storeImportedPeople(tx, tenant.id, {
    updated: updated.map((user) => ({ key: user.agentKey, name: user.name, attributes: user.attributes })),
    created: created.map((user) => ({
      key: user.agentKey,
      ifi: accountAgent(accountHomePage, user.identifiers[0].value).ifi,
      name: user.name,
      attributes: user.attributes,
    })),
    identified: written.filter((user) => user.action === 'existing'),
    // Only the values their user does not hold yet: a re-import of the same people adds none.
    addedIdentifiers: written.flatMap((user) => user.unheld.map((identifier) => ({ ...identifier, agentKey: user.agentKey }))),
  });
  if (written.length > 0) await peopleChanges.changed(tx, tenant, { kind: 'people', agentKeys: written.map((user) => user.agentKey) });
}
