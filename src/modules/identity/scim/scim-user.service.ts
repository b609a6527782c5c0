import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError } from '../../../platform/http/app-error.js';
import {
  listPersonRecords,
  personRecordById,
  personRecordsByUniqueValues,
  type PersonRecord,
  getTenantSettings,
} from '../../actors/index.js';
import {
  inIdentityTransaction,
  lockedPlan,
  newPersonIfi,
  personKeys,
  writePerson,
  type IdentityWriter,
} from '../identity-person.service.js';
import { userFilterSql } from './scim-filter-rules.js';
import { foldUserNames } from './scim-user.repository.js';
import { applyScimPatch, MAPPED_ATTRIBUTES, scimPersonOf, scimUserOf, versionOf, type ScimPerson } from './scim-user-rules.js';

/**
 * SCIM 2.0 Users (RFC 7644 §3) over the actor store (docs/identity.md, "SCIM"). A SCIM User is a
 * person with a `userName` attribute: one an identity provider created, or one it adopted (an
 * imported person it matched through the tenant's unique attributes). Every write goes through
 * the actors module's one way of writing a person (`writeAgent`: the identity lock, the unique
 * values, people changes, the audit), in one transaction with SCIM's own checks.
 */
export interface ScimContext extends IdentityWriter {
  /** The base of the resources' locations: `<public url>/scim/v2`. */
  base: string;
}

/** A User as answered, with its version (the ETag). */
export interface ScimUserAnswer {
  resource: Record<string, unknown>;
  version: string;
  location: string;
}

/** The attribute the SCIM User's `userName` is kept in: a person has it once SCIM created or adopted them. */
const USER_NAME = 'userName';
/** The most Users one list page answers (ServiceProviderConfig's `filter.maxResults`). */
export const MAX_RESULTS = 1000;

export const ScimUserErrors = {
  notFound: (id: string) => new AppError('identity.user_not_found', 404, `No User has the id "${id}".`),
  userNameTaken: (userName: string) => new AppError('scim.uniqueness', 409, `Another User has the userName "${userName}".`),
  adoptedElsewhere: (userName: string, attributes: string) =>
    new AppError(
      'scim.uniqueness',
      409,
      `The person this User's ${attributes} identify is already the User "${userName}": update that User, or send other values.`,
    ),
  noUniqueValue: (uniqueAttributes: readonly string[]) =>
    new AppError(
      'scim.invalidValue',
      400,
      `The tenant identifies people by ${uniqueAttributes.map((name) => `"${name}"`).join(', ')} (uniqueAttributes in /api/settings), ` +
        'and this User carries none of them (docs/identity.md lists what each SCIM attribute becomes).',
    ),
  versionMismatch: () => new AppError('identity.version_mismatch', 412, 'If-Match names another version of this User: read it again.'),
};

const answerOf = (context: ScimContext, record: PersonRecord): ScimUserAnswer => {
  const location = `${context.base}/Users/${record.id}`;
  const resource = scimUserOf(record, location);
  return { resource, version: (resource.meta as { version: string }).version, location };
};

/** The SCIM User of a person (one with a userName), else 404. */
async function requireUser(sql: SqlClient, context: ScimContext, id: string): Promise<PersonRecord> {
  const record = await personRecordById(sql, context.principal.tenant.id, id);
  if (!record?.attributes[USER_NAME]) throw ScimUserErrors.notFound(id);
  return record;
}

/** `If-Match` (RFC 7644 §3.14): `*` or the User's version among those listed; absent: no condition. */
function checkIfMatch(context: ScimContext, record: PersonRecord, ifMatch: string | undefined): void {
  if (ifMatch === undefined) return;
  const wanted = ifMatch.split(',').map((tag) => tag.trim());
  if (wanted.includes('*') || wanted.includes(answerOf(context, record).version)) return;
  throw ScimUserErrors.versionMismatch();
}

/**
 * Whether another person than `agentKey` holds `userName` (case-insensitively, as RFC 7643 §4.1.1
 * compares it): by lower() on both sides, the expression the unique index enforces (foldUserNames).
 */
async function userNameHeldElsewhere(sql: SqlClient, tenantId: string, userName: string, agentKey?: string): Promise<boolean> {
  const { total } = await listPersonRecords(
    sql,
    tenantId,
    `a.attributes ? '${USER_NAME}' AND lower(a.attributes ->> '${USER_NAME}') = lower($2)${agentKey === undefined ? '' : ' AND a.agent_key <> $3'}`,
    agentKey === undefined ? [userName] : [userName, agentKey],
    { skip: 0, limit: 1 },
  );
  return total > 0;
}

/**
 * The lock keys of the userNames a write takes and frees, folded by the database (foldUserNames):
 * two writes of names the uniqueness holds for one (`İrace`, `irace`) wait for each other.
 */
async function userNameKeys(sql: SqlClient, taken: string | undefined, stored: PersonRecord | undefined): Promise<string[]> {
  const names = [taken, stored?.attributes[USER_NAME]].filter((name): name is string => Boolean(name));
  return (await foldUserNames(sql, names)).map((folded) => `userName:${folded}`);
}

/** The person's attributes after a write: the ones SCIM does not map stay as an import or upsert left them. */
function mergedAttributes(stored: Readonly<Record<string, string>>, sent: Readonly<Record<string, string>>): Record<string, string> {
  const kept = Object.fromEntries(Object.entries(stored).filter(([name]) => !MAPPED_ATTRIBUTES.includes(name)));
  return { ...kept, ...sent };
}

/**
 * `POST /Users`: a new person, or the adoption of a stored one the User's unique values match (an
 * imported person becomes this User: one person, whichever channel came first). 409 for a
 * `userName` another User has, or for a match that is already another User.
 */
export async function createUser(context: ScimContext, body: unknown): Promise<ScimUserAnswer> {
  const person = scimPersonOf(body);
  const tenant = context.principal.tenant;
  const userName = person.attributes[USER_NAME] as string;
  const { record } = await inIdentityTransaction(context, async (tx) => {
    const settings = await getTenantSettings(tx, tenant, context.domains.baseDomain);
    const keysWith = async (found: PersonRecord | undefined) =>
      personKeys(settings, person.attributes, found, newPersonIfi(settings, person.attributes), await userNameKeys(tx, userName, found));
    const matched = await lockedPlan(
      tx,
      tenant.id,
      async () => {
        const [found] = await personRecordsByUniqueValues(tx, tenant.id, settings.uniqueAttributes, person.attributes);
        return { keys: await keysWith(found), value: found };
      },
      await keysWith(undefined),
    );
    if (await userNameHeldElsewhere(tx, tenant.id, userName)) throw ScimUserErrors.userNameTaken(userName);
    if (matched?.attributes[USER_NAME]) {
      throw ScimUserErrors.adoptedElsewhere(matched.attributes[USER_NAME], settings.uniqueAttributes.join(', '));
    }
    if (matched)
      return writePerson(
        tx,
        context,
        settings,
        { ...person, attributes: mergedAttributes(matched.attributes, person.attributes) },
        matched.ifi,
      );
    const ifi = newPersonIfi(settings, person.attributes);
    if (ifi === undefined) throw ScimUserErrors.noUniqueValue(settings.uniqueAttributes);
    return writePerson(tx, context, settings, person, ifi);
  });
  return answerOf(context, record);
}

/** `GET /Users/{id}`. */
export async function getUser(context: ScimContext, id: string): Promise<ScimUserAnswer> {
  return answerOf(context, await requireUser(context.sql, context, id));
}

/** Replaces the User `id` with what `person` says (PUT, and PATCH once applied); 412 when If-Match names another version. */
async function rewriteUser(
  context: ScimContext,
  id: string,
  ifMatch: string | undefined,
  next: (record: PersonRecord) => ScimPerson,
): Promise<ScimUserAnswer> {
  const tenant = context.principal.tenant;
  const { record } = await inIdentityTransaction(context, async (tx) => {
    const settings = await getTenantSettings(tx, tenant, context.domains.baseDomain);
    const { stored, person, nameKeys } = await lockedPlan(tx, tenant.id, async () => {
      const stored = await requireUser(tx, context, id);
      const person = next(stored);
      const nameKeys = await userNameKeys(tx, person.attributes[USER_NAME] as string, stored);
      return { keys: personKeys(settings, person.attributes, stored, undefined, nameKeys), value: { stored, person, nameKeys } };
    });
    checkIfMatch(context, stored, ifMatch);
    const userName = person.attributes[USER_NAME] as string;
    // A userName kept (however cased) was checked when it was taken: only a new one may be another
    // User's. Kept means folded alike by the database (the keys of the name taken and the name
    // stored are one), the folding the unique index holds: `ΣΑΣ` is not `σας` there (σασ).
    const renamed = nameKeys[0] !== nameKeys[1];
    if (renamed && (await userNameHeldElsewhere(tx, tenant.id, userName, stored.agentKey))) throw ScimUserErrors.userNameTaken(userName);
    return writePerson(
      tx,
      context,
      settings,
      { ...person, attributes: mergedAttributes(stored.attributes, person.attributes) },
      stored.ifi,
    );
  });
  return answerOf(context, record);
}

/** `PUT /Users/{id}`: the User replaced; the person's attributes SCIM does not map stay. */
export function replaceUser(context: ScimContext, id: string, body: unknown, ifMatch?: string): Promise<ScimUserAnswer> {
  const person = scimPersonOf(body);
  return rewriteUser(context, id, ifMatch, () => person);
}

/** `PATCH /Users/{id}`: the operations applied to the User as stored, the result written as a PUT would. */
export function patchUser(context: ScimContext, id: string, body: unknown, ifMatch?: string): Promise<ScimUserAnswer> {
  return rewriteUser(context, id, ifMatch, (stored) => scimPersonOf(applyScimPatch(answerOf(context, stored).resource, body)));
}

/**
 * `DELETE /Users/{id}`: the person is deactivated (their records stay, their credentials are
 * revoked) and is no longer a SCIM User (the `userName` attribute goes): the id answers 404 from
 * now on, and a later POST with the same unique values adopts the same person again.
 */
export async function deleteUser(context: ScimContext, id: string, ifMatch?: string): Promise<void> {
  await inIdentityTransaction(context, async (tx) => {
    const settings = await getTenantSettings(tx, context.principal.tenant, context.domains.baseDomain);
    const stored = await lockedPlan(tx, context.principal.tenant.id, async () => {
      const stored = await requireUser(tx, context, id);
      return { keys: personKeys(settings, stored.attributes, stored, undefined, await userNameKeys(tx, undefined, stored)), value: stored };
    });
    checkIfMatch(context, stored, ifMatch);
    const { [USER_NAME]: _gone, ...attributes } = stored.attributes;
    return writePerson(tx, context, settings, { name: stored.name ?? stored.attributes[USER_NAME], attributes, active: false }, stored.ifi);
  });
}

/** `GET /Users`: a page (`startIndex` from 1, `count` up to MAX_RESULTS) of the Users a filter selects, in the order they were stored. */
export async function listUsers(
  context: ScimContext,
  query: { filter?: string; startIndex?: number; count?: number },
): Promise<Record<string, unknown>> {
  const values: unknown[] = [];
  const bind = (value: unknown) => `$${values.push(value) + 1}`;
  const filter = query.filter === undefined || query.filter.trim() === '' ? undefined : userFilterSql(query.filter, 'a', bind);
  const condition = `a.attributes ? '${USER_NAME}'${filter === undefined ? '' : ` AND (${filter})`}`;
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const count = Math.min(MAX_RESULTS, Math.max(0, query.count ?? 100));
  const { records, total } = await listPersonRecords(context.sql, context.principal.tenant.id, condition, values, {
    skip: startIndex - 1,
    limit: count,
  });
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: total,
    startIndex,
    itemsPerPage: records.length,
    Resources: records.map((record) => answerOf(context, record).resource),
  };
}

export { versionOf };
