/**
 * SCIM PATCH on a User (RFC 7644 §3.5.2), as identity providers really send it. scim-patch applies
 * the operations; this file first rewrites each one into a form that library handles correctly and
 * safely, because sent as they come:
 *
 * - it treats `op` case-sensitively beyond `Add`/`Replace`/`Remove`, and fails with a TypeError on a
 *   `Remove` without path;
 * - a value without path replaces a complex attribute whole (`{"name": {"givenName": "Ada"}}` drops
 *   `familyName`), where §3.5.2.3 keeps the sub-attributes not sent;
 * - it walks the resource with `obj[key]` and `key in obj`, so a path like `toString.x` or a value
 *   key like `"__proto__.polluted"` writes into Object.prototype and its methods (checked with 0.8.3).
 *
 * So every operation reaching the library has a path we built from the schema's own spelling of an
 * attribute we map, and a value that is a string, a boolean, or an email entry we built. Operations
 * on attributes we do not map (phoneNumbers, another extension's, …) are dropped: the person we
 * store could not hold their result anyway (scimPersonOf ignores those attributes).
 */
import {
  InvalidScimPatchRequest,
  InvalidScimRemoveValue,
  NoTarget,
  ScimError,
  type ScimPatchOperation,
  type ScimResource,
  scimPatch,
} from 'scim-patch';
import { filter as filterOf, parse as parseFilter } from 'scim2-parse-filter';
import { ScimErrors } from './scim.errors.js';
import {
  type AttributeSpec,
  CORE_ATTRIBUTES,
  canonicalName,
  describe,
  ENTERPRISE_ATTRIBUTES,
  isObject,
  memberOf,
  readBoolean,
  SCIM_ENTERPRISE_SCHEMA,
  SCIM_PATCH_SCHEMA,
  SCIM_USER_SCHEMA,
  specOf,
} from './scim-schema.js';

/** Most operations one PATCH may hold: enough for any real change of one User, few enough to bound the work. */
export const MAX_PATCH_OPERATIONS = 1000;
/** Longest `path` read: the longest real one (a URN, an attribute and a short filter) is under 200 characters. */
const MAX_PATH_LENGTH = 1000;

type OpName = 'add' | 'replace' | 'remove';

/** Where an operation points: an attribute we map (`spec` undefined: the whole enterprise extension), one we guard, or one we drop. */
type Target =
  | { kind: 'attribute'; schema: 'core' | 'enterprise'; spec?: AttributeSpec; filter?: string; sub?: string }
  | { kind: 'protected'; name: 'id' | 'meta' }
  | { kind: 'dropped' };

/** An operation as scim-patch receives it: always with a path, `op` in lower case. */
interface PlainOperation {
  op: OpName;
  path: string;
  value?: unknown;
}

interface Context {
  /** The operation's index in `Operations`, to name it in errors. */
  index: number;
  /** The resource as patched so far. */
  resource: Record<string, unknown>;
  /** True for a member of a value without path (Okta repeats the id there). */
  fromValue: boolean;
}

// RFC 7644 §3.5.2's PATH: [URI ":"] ATTRNAME ["[" valFilter "]"] ["." subAttr] (ATTRNAME of RFC 7643 §2.1; "$ref" as a sub-attribute).
const ATTRIBUTE_PATH = /^([A-Za-z][\w-]*)(?:\[(.+)\])?(?:\.([A-Za-z$][\w-]*))?$/;

const where = (context: Context) => `Operations[${context.index}]`;

/**
 * The target a path (or a key of a value without path) names. Attribute names and schema URIs are
 * matched case-insensitively (RFC 7643 §2.1) and rewritten in the schema's spelling, so `Active`
 * and `active` patch one member. A key that is no attribute path is dropped: it names nothing we map.
 */
function targetOf(path: string, context: Context): Target {
  const invalid = (why: string) => ScimErrors.invalidPath(`${where(context)}: path ${JSON.stringify(path)} ${why}.`, { path });
  if (path.length > MAX_PATH_LENGTH) throw invalid(`is longer than ${MAX_PATH_LENGTH} characters`);
  const lower = path.toLowerCase();
  let rest = path;
  let schema: 'core' | 'enterprise' = 'core';
  if (lower === SCIM_ENTERPRISE_SCHEMA.toLowerCase()) return { kind: 'attribute', schema: 'enterprise' };
  if (lower.startsWith(`${SCIM_ENTERPRISE_SCHEMA.toLowerCase()}:`)) {
    schema = 'enterprise';
    rest = path.slice(SCIM_ENTERPRISE_SCHEMA.length + 1);
  } else if (lower.startsWith(`${SCIM_USER_SCHEMA.toLowerCase()}:`)) {
    rest = path.slice(SCIM_USER_SCHEMA.length + 1);
  } else if (lower.startsWith('urn:')) {
    return { kind: 'dropped' };
  }
  const match = ATTRIBUTE_PATH.exec(rest);
  if (!match) {
    if (context.fromValue) return { kind: 'dropped' };
    throw invalid('is not a SCIM attribute path (attribute, attribute.subAttribute or attribute[filter].subAttribute)');
  }
  const [, attribute, filter, sub] = match;
  const spec = specOf(schema === 'core' ? CORE_ATTRIBUTES : ENTERPRISE_ATTRIBUTES, attribute);
  if (spec === undefined || spec.name === 'schemas') return { kind: 'dropped' };
  if (schema === 'core' && (spec.name === 'id' || spec.name === 'meta')) return { kind: 'protected', name: spec.name };
  if (filter !== undefined) {
    if (!spec.multiValued) throw invalid(`filters "${spec.name}", which is single-valued`);
    // scim-patch splits a path at its last ':' to find a schema URN, even inside the filter's quotes.
    if (filter.includes(':')) throw invalid('has a ":" in its filter, which this server cannot apply');
    try {
      parseFilter(filter);
    } catch (error) {
      throw invalid(`has a filter that cannot be read (${(error as Error).message})`);
    }
  }
  let subName: string | undefined;
  if (sub !== undefined) {
    if (!spec.subs) throw invalid(`names a sub-attribute of "${spec.name}", which has none`);
    subName = canonicalName(spec.subs, sub);
    if (subName === undefined) return { kind: 'dropped' };
    if (spec.multiValued && filter === undefined) {
      throw invalid(
        `names "${subName}" of every one of "${spec.name}": choose one with a filter, as ${spec.name}[type eq "work"].${subName}`,
      );
    }
  }
  return { kind: 'attribute', schema, spec, filter, sub: subName };
}

/** The path scim-patch reads for an attribute target, in the schema's spelling. */
function pathOf(target: Extract<Target, { kind: 'attribute' }>, spec: AttributeSpec): string {
  const attribute = `${spec.name}${target.filter !== undefined ? `[${target.filter}]` : ''}${target.sub !== undefined ? `.${target.sub}` : ''}`;
  return target.schema === 'enterprise' ? `${SCIM_ENTERPRISE_SCHEMA}:${attribute}` : attribute;
}

/** An email entry holding only the sub-attributes we know, under their own names (no key from the request reaches scim-patch). */
function emailEntryOf(entry: unknown, label: string): Record<string, unknown> {
  if (!isObject(entry))
    throw ScimErrors.invalidValue(`"${label}" must be an object with a string "value", not ${describe(entry)}.`, { attribute: label });
  const shaped: Record<string, unknown> = {};
  for (const sub of ['value', 'type', 'display', 'primary']) {
    const value = memberOf(entry, sub, `"${label}"`);
    if (value === undefined || value === null) continue;
    shaped[sub] = sub === 'primary' ? booleanOf(value, `${label}.primary`) : textOf(value, `${label}.${sub}`);
  }
  return shaped;
}

function textOf(value: unknown, label: string): string {
  if (typeof value !== 'string')
    throw ScimErrors.invalidValue(`"${label}" must be a string, not ${describe(value)}.`, { attribute: label });
  return value;
}

function booleanOf(value: unknown, label: string): boolean {
  const read = readBoolean(value);
  if (read === undefined) throw ScimErrors.invalidValue(`"${label}" must be true or false, not ${describe(value)}.`, { attribute: label });
  return read;
}

/** True when some entry of `values` matches the value filter (a remove of nothing is no error: §3.5.2.2 removes what matches). */
function anyMatches(values: unknown, filter: string): boolean {
  return Array.isArray(values) && values.some(filterOf(parseFilter(filter)));
}

/**
 * The entry a value filter describes when it is one `eq` on a sub-attribute (`type eq "work"` →
 * `{type: 'work'}`), else undefined: an add or replace through a filter that matches nothing
 * creates such an entry, as Entra expects of `Add emails[type eq "work"].value` on a User without
 * email (RFC 7644 §3.5.2.3 reads a target that does not exist as an add).
 */
function seedOf(filter: string, spec: AttributeSpec): Record<string, unknown> | undefined {
  const parsed = parseFilter(filter);
  if (parsed.op !== 'eq' || !('compValue' in parsed)) return undefined;
  const sub = canonicalName(spec.subs ?? [], parsed.attrPath);
  const value = sub === 'primary' ? readBoolean(parsed.compValue) : typeof parsed.compValue === 'string' ? parsed.compValue : undefined;
  return sub === undefined || value === undefined ? undefined : { [sub]: value };
}

/**
 * The plain operations one operation (or one member of a value without path) comes to. Complex
 * values are taken apart into one operation per sub-attribute, so a replace of `name` keeps the
 * sub-attributes not sent (RFC 7644 §3.5.2.3) and no value object from the request reaches scim-patch.
 */
function expand(op: OpName, target: Target, value: unknown, context: Context): PlainOperation[] {
  if (target.kind === 'dropped') return [];
  if (target.kind === 'protected') {
    // Okta repeats the resource's own id in a value without path: that changes nothing.
    if (target.name === 'id' && context.fromValue && op !== 'remove' && value === context.resource.id) return [];
    throw ScimErrors.mutability(`${where(context)} would change "${target.name}", which the service provider assigns (RFC 7643 §3.1).`, {
      attribute: target.name,
    });
  }
  const spec = target.spec;
  if (spec === undefined) {
    // The whole enterprise extension: one operation per attribute of it.
    if (op === 'remove') return ENTERPRISE_ATTRIBUTES.flatMap((each) => expand('remove', { ...target, spec: each }, undefined, context));
    if (value === null) return op === 'replace' ? expand('remove', target, undefined, context) : [];
    if (!isObject(value)) throw ScimErrors.invalidValue(`"${SCIM_ENTERPRISE_SCHEMA}" must be an object, not ${describe(value)}.`);
    return Object.entries(value).flatMap(([key, member]) => {
      const each = specOf(ENTERPRISE_ATTRIBUTES, key);
      return each ? expand(op, { ...target, spec: each }, member, context) : [];
    });
  }
  const path = pathOf(target, spec);
  const label = target.schema === 'enterprise' ? `${SCIM_ENTERPRISE_SCHEMA}:${spec.name}` : path;
  if (op === 'remove') {
    if (target.filter !== undefined && !anyMatches(context.resource[spec.name], target.filter)) return [];
    // A value on a remove names entries of a multi-valued attribute; on any other it says nothing more (and scim-patch refuses it).
    if (spec.multiValued && target.filter === undefined && value !== undefined && value !== null) {
      const entries = (Array.isArray(value) ? value : [value]).map((entry, index) => emailEntryOf(entry, `${label}[${index}]`));
      return [{ op, path, value: entries }];
    }
    return [{ op, path }];
  }
  if (value === null) return op === 'replace' ? expand('remove', target, undefined, context) : [];
  if (spec.subs && target.sub === undefined) {
    if (spec.multiValued) {
      if (target.filter !== undefined) {
        const entry = emailEntryOf(value, label);
        if (anyMatches(context.resource[spec.name], target.filter)) return [{ op, path, value: entry }];
        // What scim-patch does for `emails[type eq "work"].value` when nothing matches, done for the whole entry.
        const seed = seedOf(target.filter, spec);
        if (seed === undefined) {
          throw ScimErrors.noTarget(`${where(context)}: no entry of "${spec.name}" matches the filter of path ${JSON.stringify(path)}.`, {
            path,
          });
        }
        return [{ op: 'add', path: spec.name, value: [{ ...seed, ...entry }] }];
      }
      const entries = (Array.isArray(value) ? value : [value]).map((entry, index) => emailEntryOf(entry, `${label}[${index}]`));
      return [{ op, path, value: entries }];
    }
    // Entra sends the manager's id alone (`"value": "<id>"`), older Entra jobs as `[{"value": "<id>"}]`.
    let members = value;
    if (spec.name === 'manager' && Array.isArray(members)) members = members.length > 0 ? members[0] : null;
    if (spec.name === 'manager' && typeof members === 'string') members = { value: members };
    if (members === null) return op === 'replace' ? expand('remove', target, undefined, context) : [];
    if (!isObject(members)) throw ScimErrors.invalidValue(`"${label}" must be an object, not ${describe(value)}.`, { attribute: label });
    return Object.entries(members).flatMap(([key, member]) => {
      const sub = canonicalName(spec.subs ?? [], key);
      return sub === undefined ? [] : expand(op, { ...target, sub }, member, context);
    });
  }
  const valueLabel = target.sub !== undefined && target.filter === undefined ? `${label}.${target.sub}` : label;
  const isBoolean = (spec.name === 'active' && target.schema === 'core') || target.sub === 'primary';
  return [{ op, path, value: isBoolean ? booleanOf(value, valueLabel) : textOf(value, valueLabel) }];
}

/** The `Operations` of a PATCH body, once the body is known to be a PatchOp (RFC 7644 §3.5.2). */
function readOperations(body: unknown): unknown[] {
  if (!isObject(body)) throw ScimErrors.invalidSyntax(`A PATCH body must be a JSON object, not ${describe(body)}.`);
  const schemas = memberOf(body, 'schemas', 'The PATCH body');
  if (
    !Array.isArray(schemas) ||
    !schemas.some((schema) => typeof schema === 'string' && schema.toLowerCase() === SCIM_PATCH_SCHEMA.toLowerCase())
  ) {
    throw ScimErrors.invalidSyntax(`"schemas" must be an array holding "${SCIM_PATCH_SCHEMA}" (RFC 7644 §3.5.2).`, {
      attribute: 'schemas',
    });
  }
  const operations = memberOf(body, 'Operations', 'The PATCH body');
  if (!Array.isArray(operations)) {
    throw ScimErrors.invalidSyntax(
      operations === undefined
        ? '"Operations" is missing: a PATCH body holds an array of operations.'
        : `"Operations" must be an array, not ${describe(operations)}.`,
    );
  }
  if (operations.length === 0) throw ScimErrors.invalidValue('"Operations" must hold at least one operation.');
  if (operations.length > MAX_PATCH_OPERATIONS) {
    throw ScimErrors.invalidValue(`"Operations" holds ${operations.length} operations; at most ${MAX_PATCH_OPERATIONS} are accepted.`);
  }
  return operations;
}

/** The plain operations of `Operations[index]`, against the resource as patched so far. */
function plainOperationsOf(operation: unknown, index: number, resource: Record<string, unknown>): PlainOperation[] {
  const context: Context = { index, resource, fromValue: false };
  if (!isObject(operation)) throw ScimErrors.invalidSyntax(`${where(context)} must be an object, not ${describe(operation)}.`);
  const opValue = memberOf(operation, 'op', where(context));
  const op = typeof opValue === 'string' ? opValue.toLowerCase() : undefined;
  if (op !== 'add' && op !== 'replace' && op !== 'remove') {
    throw ScimErrors.invalidSyntax(
      `${where(context)}.op must be "add", "replace" or "remove", not ${JSON.stringify(opValue) ?? 'absent'}.`,
    );
  }
  const path = memberOf(operation, 'path', where(context));
  const value = memberOf(operation, 'value', where(context));
  if (path !== undefined && path !== null && typeof path !== 'string') {
    throw ScimErrors.invalidPath(`${where(context)}.path must be a string, not ${describe(path)}.`);
  }
  const pathText = typeof path === 'string' ? path.trim() : '';
  if (pathText === '') {
    if (op === 'remove') throw ScimErrors.noTarget(`${where(context)} is a remove without a path (RFC 7644 §3.5.2.2).`);
    if (!isObject(value)) {
      throw ScimErrors.invalidValue(
        `${where(context)}.value must be an object of attributes when there is no path, not ${describe(value)}.`,
      );
    }
    const members = { ...context, fromValue: true };
    return Object.entries(value).flatMap(([key, member]) => expand(op, targetOf(key, members), member, members));
  }
  if (op !== 'remove' && value === undefined) throw ScimErrors.invalidValue(`${where(context)} (${op}) must have a "value".`);
  return expand(op, targetOf(pathText, context), value, context);
}

/** scim-patch's errors as ours: its classes say which of RFC 7644 §3.12's keywords applies. */
function patchFailure(error: unknown, index: number, path: string): unknown {
  if (!(error instanceof ScimError)) return error;
  const detail = `Operations[${index}] (path ${JSON.stringify(path)}) cannot be applied: ${error.message.replace(/^Invalid SCIM [\w ]+: /, '')}`;
  const details = { operation: index, path };
  if (error instanceof NoTarget || error.scimCode === 'noTarget') return ScimErrors.noTarget(detail, details);
  if (error instanceof InvalidScimRemoveValue) return ScimErrors.invalidValue(detail, details);
  if (error instanceof InvalidScimPatchRequest) return ScimErrors.invalidSyntax(detail, details);
  return ScimErrors.invalidPath(detail, details);
}

const primaryEntries = (emails: unknown): Record<string, unknown>[] =>
  Array.isArray(emails) ? emails.filter((entry): entry is Record<string, unknown> => isObject(entry) && entry.primary === true) : [];

/**
 * RFC 7644 §3.5.2: setting one value's `primary` to true sets it to false on the others. The
 * entry the operation made primary keeps it (Okta adds a new primary email beside the old one).
 */
function keepOnePrimary(resource: Record<string, unknown>, primariesBefore: Set<string>): void {
  const primaries = primaryEntries(resource.emails);
  if (primaries.length < 2) return;
  const keep = primaries.filter((entry) => !primariesBefore.has(JSON.stringify(entry))).at(-1) ?? primaries.at(-1);
  for (const entry of primaries) if (entry !== keep) entry.primary = false;
}

/** An email entry without a value is no email: Entra removes an email with `remove emails[type eq "work"].value`. */
function dropEmptyEmails(resource: Record<string, unknown>): void {
  if (!Array.isArray(resource.emails)) return;
  const kept = resource.emails.filter((entry) => isObject(entry) && typeof entry.value === 'string' && entry.value !== '');
  if (kept.length > 0) resource.emails = kept;
  else delete resource.emails;
}

/**
 * `displayName` and `name.formatted` show one stored name (scimUserOf). When a PATCH changes one of
 * them and leaves the other, the other follows, so the name scimPersonOf reads is the one sent.
 */
function followName(resource: Record<string, unknown>, displayBefore: unknown, formattedBefore: unknown): void {
  if (displayBefore !== formattedBefore) return;
  const name = isObject(resource.name) ? resource.name : undefined;
  const display = resource.displayName;
  const formatted = name?.formatted;
  if (display !== displayBefore && formatted === formattedBefore) {
    if (typeof display === 'string') resource.name = { ...name, formatted: display };
    else if (name) delete name.formatted;
  } else if (formatted !== formattedBefore && display === displayBefore) {
    if (typeof formatted === 'string') resource.displayName = formatted;
    else delete resource.displayName;
  }
}

/** `schemas` as the content says: the core schema always, the enterprise one while the extension has a member. */
function settleSchemas(resource: Record<string, unknown>): void {
  const extension = resource[SCIM_ENTERPRISE_SCHEMA];
  const hasExtension =
    isObject(extension) &&
    Object.values(extension).some((value) => value !== undefined && !(isObject(value) && Object.keys(value).length === 0));
  if (!hasExtension) delete resource[SCIM_ENTERPRISE_SCHEMA];
  const others = (Array.isArray(resource.schemas) ? resource.schemas : []).filter(
    (schema): schema is string =>
      typeof schema === 'string' &&
      schema.toLowerCase() !== SCIM_USER_SCHEMA.toLowerCase() &&
      schema.toLowerCase() !== SCIM_ENTERPRISE_SCHEMA.toLowerCase(),
  );
  resource.schemas = [SCIM_USER_SCHEMA, ...(hasExtension ? [SCIM_ENTERPRISE_SCHEMA] : []), ...others];
}

/**
 * The User `resource` (as scimUserOf renders it) after the PATCH `body` (RFC 7644 §3.5.2), a new
 * object: the caller reads the person from it with scimPersonOf. The operations apply in order,
 * each to the result of the one before; the first that fails fails the whole PATCH (§3.5.2: "the
 * operations are applied atomically").
 */
export function applyScimPatch(resource: Record<string, unknown>, body: unknown): Record<string, unknown> {
  const operations = readOperations(body);
  const patched = structuredClone(resource);
  const displayBefore = patched.displayName;
  const formattedBefore = isObject(patched.name) ? patched.name.formatted : undefined;
  // mutateDocument: the library changes `patched` itself (a copy already). Both options are given
  // because scim-patch's defaults apply only when no options object is passed at all.
  const options = { mutateDocument: true, treatMissingAsAdd: true };
  operations.forEach((operation, index) => {
    for (const plain of plainOperationsOf(operation, index, patched)) {
      const primariesBefore = new Set(primaryEntries(patched.emails).map((entry) => JSON.stringify(entry)));
      try {
        scimPatch(patched as unknown as ScimResource, [plain as ScimPatchOperation], options);
      } catch (error) {
        throw patchFailure(error, index, plain.path);
      }
      if (plain.path.startsWith('emails')) keepOnePrimary(patched, primariesBefore);
    }
  });
  dropEmptyEmails(patched);
  followName(patched, displayBefore, formattedBefore);
  settleSchemas(patched);
  return patched;
}
