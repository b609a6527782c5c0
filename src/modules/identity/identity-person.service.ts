import type { SqlClient } from '../../platform/database/sql-client.js';
import { AppError } from '../../platform/http/app-error.js';
import type { Principal } from '../../kernel/principal.js';
import {
  type ActorDomains,
  personWriteOf,
  writeAgent,
  type PersonRecord,
  lockPeopleIdentities,
  lockPersonKeys,
  type TenantSettings,
} from '../actors/index.js';
import type { PeopleChanges } from '../../kernel/people-changes.port.js';
import type { CredentialService } from '../auth/index.js';

/**
 * How every identity channel (SCIM, the HR webhooks) writes a person: through the actors module's
 * one way of writing people (`writeAgent`: the identity lock, the unique values, people changes,
 * the audit), deactivating them with their learner credentials revoked in the same transaction and
 * announced to every process after the commit (docs/identity.md).
 */
export interface IdentityWriter extends IdentityPeople {
  /** The channel's principal (a SCIM token, an HR webhook). */
  principal: Principal;
  /** The audit entries' source: `scim`, `webhook:<id>`; an admin's `svc-account-source` header, when sent. */
  source: string | undefined;
}

/**
 * What every channel of identity writes people with, whoever it writes for: built once by the
 * identity module (identity.module.ts) and handed to SCIM, the HR webhooks, single sign-on and
 * `PATCH /api/actors/item`. The port `peopleChanges` is told of every person written.
 */
export interface IdentityPeople {
  sql: SqlClient;
  domains: ActorDomains;
  peopleChanges: PeopleChanges;
  /** Learner credentials: a deactivation revokes them (auth's). */
  credentials: CredentialService;
}

/** What a channel says of a person. */
export interface PersonWrite {
  /** Undefined: the stored name stays. */
  name?: string;
  /** The person's whole attributes after the write; undefined: the stored ones stay (a change of `active` alone). */
  attributes?: Record<string, string>;
  /** Undefined: as they are; false: deactivated; true: active again. */
  active?: boolean;
}

/** A written person and the credentials to announce revoked once the transaction committed. */
export interface Written {
  record: PersonRecord;
  revoked: string[];
}

/**
 * The identifier of a new person: an account at the tenant's accountHomePage named by the first of
 * its unique attributes the person has a value of, as the user import names it; undefined when
 * they have none.
 */
export function newPersonIfi(settings: TenantSettings, attributes: Readonly<Record<string, string>>): Record<string, unknown> | undefined {
  const first = settings.uniqueAttributes.find((name) => attributes[name]);
  return first === undefined ? undefined : { account: { homePage: settings.accountHomePage, name: attributes[first] } };
}

/**
 * Writes `person` as the actor `ifi` names (a stored person's own identifier, or newPersonIfi's),
 * inside `tx`, which holds the identity lock (inIdentityTransaction) and read `settings` under it.
 */
export async function writePerson(
  tx: SqlClient,
  writer: IdentityWriter,
  settings: TenantSettings,
  person: PersonWrite,
  ifi: Record<string, unknown>,
): Promise<Written> {
  const { principal, domains, peopleChanges, source } = writer;
  const write = personWriteOf({ ifi, name: person.name, attributes: person.attributes });
  const { agentKey, record } = await writeAgent(tx, principal, write, {
    source,
    domains,
    peopleChanges,
    active: person.active,
    lockedSettings: settings,
    answer: false,
  });
  const revoked = person.active === false ? await writer.credentials.revokeAllOf(tx, principal.tenant.id, agentKey) : [];
  return { record, revoked };
}

/**
 * Runs `work` in one transaction holding the tenant's identity lock shared (never beside an import
 * or a settings change, which take it alone; beside other channels' writes of other people), and
 * announces the credentials it revoked after the commit. `work` locks the people it writes with
 * `lockedPlan` before it writes them.
 */
export async function inIdentityTransaction<T extends { revoked: string[] }>(
  writer: IdentityWriter,
  work: (tx: SqlClient) => Promise<T>,
): Promise<T> {
  const done = await writer.sql.transaction(async (tx) => {
    await lockPeopleIdentities(tx, writer.principal.tenant.id, []);
    return work(tx);
  });
  await writer.credentials.announce(done.revoked);
  return done;
}

/** How many times `lockedPlan` plans again when the people it found changed before it held their locks. */
const PLAN_ROUNDS = 5;

/**
 * What a write of people decides, decided while holding the locks of everything it reads and
 * writes: `plan` reads the people concerned and says which keys it needs (personKeys'); they are
 * locked, and `plan` runs again until what it needs is held (a person found through a value may
 * have changed before its lock was taken). Answers the last plan's value, read under its locks.
 * `known`: keys the write needs whatever `plan` finds (those of the values sent), locked before
 * the first plan: a write that finds nobody else then plans once.
 */
export async function lockedPlan<T>(
  tx: SqlClient,
  tenantId: string,
  plan: () => Promise<{ keys: string[]; value: T }>,
  known: readonly string[] = [],
): Promise<T> {
  const held = new Set<string>();
  if (known.length > 0) {
    await lockPersonKeys(tx, tenantId, [...new Set(known)]);
    for (const key of known) held.add(key);
  }
  for (let round = 0; round < PLAN_ROUNDS; round++) {
    const { keys, value } = await plan();
    const missing = [...new Set(keys)].filter((key) => !held.has(key));
    if (missing.length === 0) return value;
    // The caller holds the tenant's lock shared (inIdentityTransaction, the HR applier): only the people's keys are left to take.
    await lockPersonKeys(tx, tenantId, missing);
    for (const key of missing) held.add(key);
  }
  throw new AppError('identity.busy', 503, 'The people this write concerns kept changing while it waited for them: send it again.', {
    headers: { 'Retry-After': '1' },
  });
}

/** The lock key of the person stored under `agentKey`: every writer of them takes it (personKeys). */
export const personLockKey = (agentKey: string): string => `agent:${agentKey}`;

/**
 * The lock keys of writing a person: their agent key (of the stored person, or of the new one
 * `ifi` names), and every value of the tenant's unique attributes they hold now or will hold (a
 * value freed or taken is another writer's concern too), plus `extra` (SCIM's userName).
 */
export function personKeys(
  settings: TenantSettings,
  attributes: Readonly<Record<string, string>>,
  stored: PersonRecord | undefined,
  ifi: Record<string, unknown> | undefined,
  extra: readonly string[] = [],
): string[] {
  const values = (from: Readonly<Record<string, string>>) =>
    settings.uniqueAttributes.filter((name) => from[name]).map((name) => `value:${name}=${from[name]}`);
  const agent = stored ? [personLockKey(stored.agentKey)] : ifi ? [`ifi:${JSON.stringify(ifi)}`] : [];
  return [...agent, ...values(attributes), ...(stored ? values(stored.attributes) : []), ...extra];
}
