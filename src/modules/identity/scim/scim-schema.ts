/**
 * The part of the SCIM User schema (RFC 7643 §4.1, §4.3) the identity module reads and writes, and
 * the reading helpers the User mapping and the PATCH rules share. Pure: no database, no HTTP.
 */
import { ScimErrors } from './scim.errors.js';

export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const SCIM_PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** An attribute as the schema spells it, with the sub-attributes we know (complex attributes only). */
export interface AttributeSpec {
  name: string;
  subs?: readonly string[];
  /** Multi-valued (RFC 7643 §2.4): its values are an array a PATCH path may filter. */
  multiValued?: boolean;
}

/**
 * The core attributes we map (and `id`, `meta`, `schemas`, which a PATCH must not break). Anything
 * else a client sends (phoneNumbers, addresses, locale, …) is no part of the person we store.
 */
export const CORE_ATTRIBUTES: readonly AttributeSpec[] = [
  { name: 'id' },
  { name: 'meta' },
  { name: 'schemas' },
  { name: 'userName' },
  { name: 'externalId' },
  { name: 'displayName' },
  { name: 'title' },
  { name: 'active' },
  { name: 'name', subs: ['givenName', 'familyName', 'formatted'] },
  { name: 'emails', subs: ['value', 'type', 'primary', 'display'], multiValued: true },
];

/** The enterprise extension's attributes (RFC 7643 §4.3) we map. */
export const ENTERPRISE_ATTRIBUTES: readonly AttributeSpec[] = [
  { name: 'employeeNumber' },
  { name: 'costCenter' },
  { name: 'organization' },
  { name: 'division' },
  { name: 'department' },
  { name: 'manager', subs: ['value'] },
];

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const describe = (value: unknown): string =>
  value === undefined
    ? 'absent'
    : value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? 'an object'
          : `a ${typeof value}`;

export const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The schema's spelling of `name` among `names` (RFC 7643 §2.1: attribute names are case-insensitive), or undefined. */
export const canonicalName = (names: readonly string[], name: string): string | undefined => names.find((known) => sameName(known, name));

export const specOf = (specs: readonly AttributeSpec[], name: string): AttributeSpec | undefined =>
  specs.find((spec) => sameName(spec.name, name));

/**
 * The value of `object`'s own member named `name` in any case (RFC 7643 §2.1), undefined when it
 * has none. Two members differing only in case (`userName` and `USERNAME`) name one attribute
 * twice: which one the client meant cannot be known, so the request is refused rather than one
 * of them silently winning.
 */
export function memberOf(object: Record<string, unknown>, name: string, where = 'The resource'): unknown {
  const keys = Object.keys(object).filter((key) => sameName(key, name));
  if (keys.length > 1) {
    throw ScimErrors.invalidSyntax(`${where} names "${name}" more than once (${keys.map((key) => JSON.stringify(key)).join(', ')}).`, {
      attribute: name,
    });
  }
  return keys.length === 1 ? object[keys[0]] : undefined;
}

/**
 * true or false from a SCIM boolean, undefined when `value` is none. The strings "true" and
 * "false" in any case are read too: Microsoft Entra ID sends `"value": "False"` for `active` in
 * its PATCH requests (a known deviation from RFC 7643 §2.3.2 it keeps for compatibility).
 */
export function readBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
  }
  return undefined;
}
