/**
 * A SCIM User (RFC 7643 §4.1, with the enterprise extension of §4.3) in the actor store's terms,
 * and back: which attributes a User carries into a person, how a person is shown as a User, and
 * the User's version. Pure: no database, no HTTP. PATCH lives in scim-patch-rules.ts and is
 * re-exported here, so the identity service reads the User rules from one place.
 */
import { hash } from 'node:crypto';
import { lengthProblem, MAX_ACCOUNT_PART_BYTES } from '../../../kernel/limits.js';
import { textProblem } from '../../../platform/json-guard.js';
import { ScimErrors } from './scim.errors.js';
import {
  describe,
  isObject,
  memberOf,
  readBoolean,
  SCIM_ENTERPRISE_SCHEMA,
  SCIM_PATCH_SCHEMA,
  SCIM_USER_SCHEMA,
  sameName,
} from './scim-schema.js';

export { applyScimPatch, MAX_PATCH_OPERATIONS } from './scim-patch-rules.js';
export { SCIM_ENTERPRISE_SCHEMA, SCIM_PATCH_SCHEMA, SCIM_USER_SCHEMA };

/** What a SCIM User says of a person, in the actor store's terms. */
export interface ScimPerson {
  /** The actor's name: displayName, else name.formatted, else "givenName familyName" (trimmed, whichever present), else userName. */
  name: string;
  /** The mapped attributes the resource has values for (see MAPPED_ATTRIBUTES); a value absent or null in the resource is absent here. */
  attributes: Record<string, string>;
  /** active; true when absent. */
  active: boolean;
}

/** The enterprise extension's simple attributes, stored under the same names. */
const ENTERPRISE_TEXTS = ['employeeNumber', 'department', 'costCenter', 'organization', 'division'] as const;

/**
 * The actor attribute names the SCIM mapping owns (a PUT replaces these and keeps the person's
 * other attributes): an import or an administrator may have set attributes SCIM knows nothing of
 * (a job code, a site), and a provisioning client replacing a User must not erase them.
 */
export const MAPPED_ATTRIBUTES: readonly string[] = [
  'userName',
  'externalId',
  'givenName',
  'familyName',
  'title',
  'email',
  ...ENTERPRISE_TEXTS,
  'manager',
];

/**
 * The text of an optional string attribute, undefined when it has none (absent, null, or empty:
 * RFC 7643 §2.5 reads an empty value as unassigned). Text PostgreSQL cannot store (U+0000, a lone
 * surrogate) is refused here, naming the attribute, rather than failing later as a 500.
 */
function readText(container: Record<string, unknown>, key: string, label: string, where?: string): string | undefined {
  const value = memberOf(container, key, where);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw ScimErrors.invalidValue(`"${label}" must be a string, not ${describe(value)}.`, { attribute: label });
  const problem = textProblem(value);
  if (problem) throw ScimErrors.invalidValue(`"${label}" ${problem.why}.`, { attribute: label });
  return value.trim() === '' ? undefined : value;
}

/** The email a person keeps: the value of the entry marked primary, else of the first (RFC 7643 §4.1.2). */
function readEmail(resource: Record<string, unknown>): string | undefined {
  const emails = memberOf(resource, 'emails');
  if (emails === undefined || emails === null) return undefined;
  const shape = '"emails" must be an array of objects, each with a string "value"';
  if (!Array.isArray(emails)) throw ScimErrors.invalidValue(`${shape}, not ${describe(emails)}.`, { attribute: 'emails' });
  const values = emails.map((entry, index) => {
    const label = `emails[${index}]`;
    if (!isObject(entry)) throw ScimErrors.invalidValue(`${shape}: "${label}" is ${describe(entry)}.`, { attribute: label });
    const value = memberOf(entry, 'value', `"${label}"`);
    if (typeof value !== 'string') {
      throw ScimErrors.invalidValue(`${shape}: "${label}.value" is ${value === undefined ? 'missing' : describe(value)}.`, {
        attribute: `${label}.value`,
      });
    }
    return {
      value: readText(entry, 'value', `${label}.value`, `"${label}"`),
      primary: readBoolean(memberOf(entry, 'primary', `"${label}"`)),
    };
  });
  return (values.find((entry) => entry.primary === true) ?? values[0])?.value;
}

/** The enterprise extension's attributes we map; `manager` may be `{value}` or, as Okta sends it, the id alone. */
function readEnterprise(resource: Record<string, unknown>, attributes: Record<string, string>): void {
  const extension = memberOf(resource, SCIM_ENTERPRISE_SCHEMA);
  if (extension === undefined || extension === null) return;
  if (!isObject(extension)) {
    throw ScimErrors.invalidValue(`"${SCIM_ENTERPRISE_SCHEMA}" must be an object, not ${describe(extension)}.`, {
      attribute: SCIM_ENTERPRISE_SCHEMA,
    });
  }
  const where = `"${SCIM_ENTERPRISE_SCHEMA}"`;
  for (const name of ENTERPRISE_TEXTS) {
    const value = readText(extension, name, `${SCIM_ENTERPRISE_SCHEMA}:${name}`, where);
    if (value !== undefined) attributes[name] = value;
  }
  const label = `${SCIM_ENTERPRISE_SCHEMA}:manager`;
  const manager = memberOf(extension, 'manager', where);
  let id: string | undefined;
  if (typeof manager === 'string') id = readText(extension, 'manager', label, where);
  else if (isObject(manager)) id = readText(manager, 'value', `${label}.value`, `"${label}"`);
  else if (manager !== undefined && manager !== null) {
    throw ScimErrors.invalidValue(`"${label}" must be an object with a string "value", not ${describe(manager)}.`, { attribute: label });
  }
  if (id !== undefined) attributes.manager = id;
}

/**
 * The person a User resource describes (POST and PUT bodies, and the result of a PATCH). RFC 7644
 * §3.3 and §3.5.1 require `schemas` on a create and a replace, so a body without the User schema
 * is refused. Everything the mapping does not name (phoneNumbers, addresses, groups, roles, id,
 * meta, …) is ignored: the service provider owns id and meta, and the rest has no place in the store.
 */
export function scimPersonOf(resource: unknown): ScimPerson {
  if (!isObject(resource)) throw ScimErrors.invalidSyntax(`A SCIM User must be a JSON object, not ${describe(resource)}.`);
  const schemas = memberOf(resource, 'schemas');
  if (!Array.isArray(schemas) || !schemas.some((schema) => typeof schema === 'string' && sameName(schema, SCIM_USER_SCHEMA))) {
    throw ScimErrors.invalidSyntax(`"schemas" must be an array holding "${SCIM_USER_SCHEMA}".`, { attribute: 'schemas' });
  }
  const userName = readText(resource, 'userName', 'userName');
  if (userName === undefined) throw ScimErrors.invalidValue('"userName" must be a non-empty string.', { attribute: 'userName' });
  // Indexed for its uniqueness (migration 0040), so held to a unique value's length: a B-tree entry
  // holds at most 2,704 bytes, and a longer name failed the write with a 500.
  const tooLong = lengthProblem(userName, MAX_ACCOUNT_PART_BYTES);
  if (tooLong) throw ScimErrors.invalidValue(`"userName" ${tooLong}.`, { attribute: 'userName' });

  const attributes: Record<string, string> = { userName };
  const externalId = readText(resource, 'externalId', 'externalId');
  if (externalId !== undefined) attributes.externalId = externalId;
  const title = readText(resource, 'title', 'title');
  if (title !== undefined) attributes.title = title;

  const name = memberOf(resource, 'name');
  if (name !== undefined && name !== null && !isObject(name)) {
    throw ScimErrors.invalidValue(`"name" must be an object, not ${describe(name)}.`, { attribute: 'name' });
  }
  const names = isObject(name) ? name : {};
  const formatted = readText(names, 'formatted', 'name.formatted', '"name"');
  const givenName = readText(names, 'givenName', 'name.givenName', '"name"');
  const familyName = readText(names, 'familyName', 'name.familyName', '"name"');
  if (givenName !== undefined) attributes.givenName = givenName;
  if (familyName !== undefined) attributes.familyName = familyName;

  const email = readEmail(resource);
  if (email !== undefined) attributes.email = email;
  readEnterprise(resource, attributes);

  const activeValue = memberOf(resource, 'active');
  const active = activeValue === undefined || activeValue === null ? true : readBoolean(activeValue);
  if (active === undefined)
    throw ScimErrors.invalidValue(`"active" must be true or false, not ${describe(activeValue)}.`, { attribute: 'active' });

  const displayName = readText(resource, 'displayName', 'displayName');
  const composed = [givenName?.trim(), familyName?.trim()].filter((part) => part).join(' ');
  return { name: displayName ?? formatted ?? (composed || userName), attributes, active };
}

/** A person as the actor store holds it, with what a User's `meta` needs. */
export interface StoredPerson {
  id: string;
  name: string | null;
  attributes: Record<string, string>;
  active: boolean;
  created: Date;
  lastModified: Date;
}

/** `key: value` when the value is there, nothing when it is not: members are present or absent, never null. */
const present = <T>(key: string, value: T | undefined | null): Record<string, T> =>
  value === undefined || value === null ? {} : { [key]: value };

/**
 * The User resource of a person (RFC 7643 §4.1, §8.2). The one email is shown as the work email
 * and primary, which is how the identity providers we meet send it; the name shows as
 * `displayName` and `name.formatted` both. `meta.version` is computed from everything else, so
 * two renderings of the same person carry the same ETag.
 */
export function scimUserOf(person: StoredPerson, location: string): Record<string, unknown> {
  const a = person.attributes;
  const name = { ...present('givenName', a.givenName), ...present('familyName', a.familyName), ...present('formatted', person.name) };
  const enterprise = {
    ...Object.fromEntries(ENTERPRISE_TEXTS.flatMap((key) => (a[key] !== undefined ? [[key, a[key]]] : []))),
    ...present('manager', a.manager !== undefined ? { value: a.manager } : undefined),
  };
  const hasEnterprise = Object.keys(enterprise).length > 0;
  const resource: Record<string, unknown> = {
    schemas: hasEnterprise ? [SCIM_USER_SCHEMA, SCIM_ENTERPRISE_SCHEMA] : [SCIM_USER_SCHEMA],
    id: person.id,
    ...present('externalId', a.externalId),
    ...present('userName', a.userName),
    ...(Object.keys(name).length > 0 ? { name } : {}),
    ...present('displayName', person.name),
    ...present('emails', a.email !== undefined ? [{ value: a.email, type: 'work', primary: true }] : undefined),
    ...present('title', a.title),
    active: person.active,
    ...(hasEnterprise ? { [SCIM_ENTERPRISE_SCHEMA]: enterprise } : {}),
  };
  return {
    ...resource,
    meta: {
      resourceType: 'User',
      created: person.created.toISOString(),
      lastModified: person.lastModified.toISOString(),
      location,
      version: versionOf(resource),
    },
  };
}

/** JSON with every object's keys sorted, recursively: equal content, equal text, whatever the key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The resource's version (RFC 7644 §3.14): a weak entity tag, `W/"<20 hex>"`, from the SHA-256 of
 * its canonical JSON, `meta` left out (meta holds the version itself and timestamps that change
 * without the content changing). Weak, because the tag stands for the content, not for one byte
 * sequence of it (RFC 9110 §8.8.1). 80 bits tell versions of one resource apart many times over.
 */
export function versionOf(resource: Record<string, unknown>): string {
  const { meta: _meta, ...content } = resource;
  return `W/"${hash('sha256', canonicalJson(content), 'hex').slice(0, 20)}"`;
}
