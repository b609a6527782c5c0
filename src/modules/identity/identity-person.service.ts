import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Principal } from '../../kernel/principal.js';
import type { ActorDomains } from '../actors/actor.service.js';
import { parseAgentWrite, writeAgent } from '../actors/agent-upsert.service.js';
import type { PeopleChanges } from '../actors/people-changes.js';
import { personRecordByKey, type PersonRecord } from '../actors/person-record.service.js';
import { lockTenantIdentities, type TenantSettings } from '../actors/tenant-settings.service.js';
import type { CredentialService } from '../auth/credentials/credential.service.js';

/**
 * How every identity channel (SCIM, the HR webhooks) writes a person: through the actors module's
 * one way of writing people (`writeAgent`: the identity lock, the unique values, people changes,
 * the audit), deactivating them with their learner credentials revoked in the same transaction and
 * announced to every process after the commit (docs/identity.md).
 */
export interface IdentityWriter {
  sql: SqlClient;
  /** The channel's principal (a SCIM token, an HR webhook). */
  principal: Principal;
  /** The audit entries' source: `scim`, `webhook:<id>`. */
  source: string;
  domains: ActorDomains;
  peopleChanges: PeopleChanges;
  credentials: CredentialService;
}

/** What a channel says of a person. */
export interface PersonWrite {
  /** Undefined: the stored name stays. */
  name?: string;
  /** The person's whole attributes after the write. */
  attributes: Record<string, string>;
  /** Undefined: as they are; false: deactivated; true: active again. */
  active?: boolean;
}

/** Where a person's attributes travel in an xAPI Agent (docs/actors.md, "Writing one agent"). */
const ATTRIBUTES_KEY = 'http://localhost/api/ext/agent/attributes';

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
  const write = parseAgentWrite({
    objectType: 'Agent',
    ...ifi,
    ...(person.name === undefined ? {} : { name: person.name }),
    extensions: { [ATTRIBUTES_KEY]: person.attributes },
  });
  const { agentKey } = await writeAgent(tx, principal, write, {
    source,
    domains,
    peopleChanges,
    active: person.active,
    lockedSettings: settings,
    answer: false,
  });
  const revoked = person.active === false ? await writer.credentials.revokeAllOf(tx, principal.tenant.id, agentKey) : [];
  const record = await personRecordByKey(tx, principal.tenant.id, agentKey);
  if (!record) throw new Error(`The person ${agentKey} just written is not there.`);
  return { record, revoked };
}

/**
 * Runs `work` in one transaction holding the tenant's identity lock (so its reads and writes of
 * people never interleave with an import's or another channel's); announces the credentials it
 * revoked after the commit.
 */
export async function inIdentityTransaction<T extends { revoked: string[] }>(
  writer: IdentityWriter,
  work: (tx: SqlClient) => Promise<T>,
): Promise<T> {
  const done = await writer.sql.transaction(async (tx) => {
    await lockTenantIdentities(tx, writer.principal.tenant.id);
    return work(tx);
  });
  await writer.credentials.announce(done.revoked);
  return done;
}
