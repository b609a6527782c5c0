/**
 * The `filter` of `GET /Users` (RFC 7644 §3.4.2.2) as a parameterised SQL condition over an
 * actors row. Pure: no database, no HTTP. scim2-parse-filter reads the text; this file decides
 * what each attribute is in the store and writes the SQL.
 *
 * Every value from the filter is bound through `bind`; the SQL text holds only this file's own
 * fragments and the column names of a fixed table. String attributes compare ignoring case, as
 * RFC 7643 §4.1 declares the User's strings caseExact false (userName, emails, names, title, …).
 */
import { type Compare, type Filter, parse, type Suffix } from 'scim2-parse-filter';
import { isUuid } from '../../../kernel/formats.js';
import { textProblem } from '../../../platform/json-guard.js';
import { ScimErrors } from './scim.errors.js';
import { SCIM_ENTERPRISE_SCHEMA, SCIM_USER_SCHEMA } from './scim-schema.js';

/** Longest filter read, in characters: Entra's and Okta's are one comparison, under 300. */
export const MAX_FILTER_LENGTH = 2000;
/** Deepest nesting of and, or, not and value filters: a comparison alone is depth 1. */
export const MAX_FILTER_DEPTH = 20;
/** Most comparisons (`pr` included) in one filter. */
export const MAX_FILTER_COMPARISONS = 100;

/** What an attribute is in the store: a text (`sql` makes it from the row alias), the id, or the active flag. */
type TextColumn = { kind: 'text'; sql: (alias: string) => string };
type Column = TextColumn | { kind: 'id' } | { kind: 'active' };

const attribute = (name: string): TextColumn => ({ kind: 'text', sql: (alias) => `(${alias}.attributes ->> '${name}')` });
const nameColumn: Column = { kind: 'text', sql: (alias) => `${alias}.name` };
const email = attribute('email');
/** The one email a person keeps is shown as the work email (scimUserOf), so its type is 'work' exactly when there is one. */
const emailType: Column = {
  kind: 'text',
  sql: (alias) => `(CASE WHEN ${email.sql(alias)} <> '' THEN 'work' END)`,
};

/** The attributes a filter may name, by their lower-case path (RFC 7643 §2.1: names are case-insensitive). */
const USER_COLUMNS: Record<string, Column> = {
  id: { kind: 'id' },
  active: { kind: 'active' },
  username: attribute('userName'),
  externalid: attribute('externalId'),
  displayname: nameColumn,
  'name.formatted': nameColumn,
  'name.givenname': attribute('givenName'),
  'name.familyname': attribute('familyName'),
  title: attribute('title'),
  emails: email,
  'emails.value': email,
  'emails.type': emailType,
  [`${SCIM_ENTERPRISE_SCHEMA.toLowerCase()}:employeenumber`]: attribute('employeeNumber'),
  [`${SCIM_ENTERPRISE_SCHEMA.toLowerCase()}:department`]: attribute('department'),
  [`${SCIM_ENTERPRISE_SCHEMA.toLowerCase()}:costcenter`]: attribute('costCenter'),
  [`${SCIM_ENTERPRISE_SCHEMA.toLowerCase()}:organization`]: attribute('organization'),
  [`${SCIM_ENTERPRISE_SCHEMA.toLowerCase()}:division`]: attribute('division'),
  [`${SCIM_ENTERPRISE_SCHEMA.toLowerCase()}:manager.value`]: attribute('manager'),
};

/** Inside `emails[…]`: the sub-attributes of one email. */
const EMAIL_COLUMNS: Record<string, Column> = { value: email, type: emailType };

const LIKE_PATTERNS = { co: (text: string) => `%${text}%`, sw: (text: string) => `${text}%`, ew: (text: string) => `%${text}` };
/** `COLLATE "C"`: code-point order, the same on PostgreSQL and PGlite whatever the database's locale. */
const ORDER_OPERATORS = { gt: '>', ge: '>=', lt: '<', le: '<=' };

/** `%`, `_` and `\` taken literally in a LIKE pattern whose escape is `\`. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (match) => `\\${match}`);

const ALIAS = /^[a-z_][a-z0-9_]*$/i;

interface Walk {
  alias: string;
  bind: (value: unknown) => string;
  comparisons: number;
  /** The filter's strings, decoded; the parser saw `"0"`, `"1"`, … in their place (readStrings). */
  strings: string[];
}

const JSON_STRING = /"(?:[^"\\]|\\.)*"/y;

/**
 * The filter with each string literal replaced by its index (`"0"`, `"1"`, …), and the strings
 * decoded as JSON (RFC 7644 §3.4.2.2 takes compValue's string from JSON). scim2-parse-filter
 * decodes only `\"`: it reads `"a\\b"` as two backslashes, `"\u00e9"` as six characters, and
 * cannot read a string ending in an escaped backslash at all. A quote starts a string wherever
 * it stands outside one (no other token of the grammar holds a quote), so this scan finds the
 * same strings the parser's tokenizer does.
 */
function readStrings(filter: string): { text: string; strings: string[] } {
  const strings: string[] = [];
  let text = '';
  let at = 0;
  for (let quote = filter.indexOf('"'); quote >= 0; quote = filter.indexOf('"', at)) {
    JSON_STRING.lastIndex = quote;
    const literal = JSON_STRING.exec(filter)?.[0];
    let value: unknown;
    try {
      value = literal === undefined ? undefined : JSON.parse(literal);
    } catch {
      // A raw control character or an escape JSON does not know (\x41).
    }
    if (typeof value !== 'string' || literal === undefined) {
      throw ScimErrors.invalidFilter(`The filter has a string at character ${quote + 1} that is not a JSON string.`);
    }
    text += `${filter.slice(at, quote)}"${strings.length}"`;
    strings.push(value);
    at = quote + literal.length;
  }
  return { text: text + filter.slice(at), strings };
}

/** The column a path names; the core schema's URN may lead it (RFC 7644 §3.10). */
function columnOf(path: string, columns: Record<string, Column>): Column {
  let key = path.toLowerCase();
  const core = `${SCIM_USER_SCHEMA.toLowerCase()}:`;
  if (key.startsWith(core)) key = key.slice(core.length);
  const column = Object.hasOwn(columns, key) ? columns[key] : undefined;
  if (!column)
    throw ScimErrors.invalidFilter(`The filter names ${JSON.stringify(path)}, which Users cannot be filtered on.`, { attribute: path });
  return column;
}

/** The comparison value as text: a string, or a number as its JSON text (`employeeNumber eq 42`). */
function textValue(path: string, op: string, value: unknown): string {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') {
    throw ScimErrors.invalidFilter(`"${path} ${op}" needs a string to compare with, not ${JSON.stringify(value)}.`, { attribute: path });
  }
  // PostgreSQL cannot take U+0000 or a lone surrogate as a text parameter.
  const problem = textProblem(text);
  if (problem) throw ScimErrors.invalidFilter(`The value compared with "${path}" ${problem.why}.`, { attribute: path });
  return text;
}

function booleanValue(path: string, op: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw ScimErrors.invalidFilter(`"${path} ${op}" needs true or false, not ${JSON.stringify(value)}.`, { attribute: path });
}

const unsupported = (path: string, op: string) =>
  ScimErrors.invalidFilter(`The operator "${op}" cannot be used on "${path}".`, { attribute: path, operator: op });

/**
 * One comparison. A condition may be NULL where the attribute is (a missing attribute compares
 * as NULL): the WHERE drops such a row, and `not` reads NULL as false (IS NOT TRUE), so every
 * comparison with a missing attribute is false and `ne` is true for it.
 */
function comparisonSql(node: Compare | Suffix, column: Column, walk: Walk): string {
  const { op, attrPath: path } = node;
  const compared = 'compValue' in node ? node.compValue : undefined;
  const value = typeof compared === 'string' ? walk.strings[Number(compared)] : compared;
  if (column.kind === 'active') {
    if (op === 'pr') return 'true';
    if (op !== 'eq' && op !== 'ne') throw unsupported(path, op);
    const active = booleanValue(path, op, value) === (op === 'eq');
    return `${walk.alias}.deactivated_at ${active ? 'IS NULL' : 'IS NOT NULL'}`;
  }
  if (column.kind === 'id') {
    if (op !== 'eq') throw unsupported(path, op);
    const id = textValue(path, op, value);
    // Not a UUID: no actor has that id, and a cast would fail the whole query.
    return isUuid(id) ? `${walk.alias}.id = ${walk.bind(id)}::uuid` : 'false';
  }
  const x = column.sql(walk.alias);
  switch (op) {
    case 'pr':
      return `(${x} IS NOT NULL AND ${x} <> '')`;
    case 'eq':
      return `lower(${x}) = lower(${walk.bind(textValue(path, op, value))})`;
    case 'ne':
      return `(lower(${x}) = lower(${walk.bind(textValue(path, op, value))})) IS NOT TRUE`;
    case 'co':
    case 'sw':
    case 'ew':
      return `lower(${x}) LIKE lower(${walk.bind(LIKE_PATTERNS[op](escapeLike(textValue(path, op, value))))}) ESCAPE '\\'`;
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le':
      return `lower(${x}) COLLATE "C" ${ORDER_OPERATORS[op]} lower(${walk.bind(textValue(path, op, value))})`;
    default:
      throw unsupported(path, op);
  }
}

function nodeSql(node: Filter, walk: Walk, depth: number, columns: Record<string, Column>): string {
  if (depth > MAX_FILTER_DEPTH) throw ScimErrors.invalidFilter(`The filter is nested deeper than ${MAX_FILTER_DEPTH} levels.`);
  switch (node.op) {
    case 'and':
    case 'or':
      return `(${node.filters.map((child) => nodeSql(child, walk, depth + 1, columns)).join(node.op === 'and' ? ' AND ' : ' OR ')})`;
    case 'not':
      return `(${nodeSql(node.filter, walk, depth + 1, columns)}) IS NOT TRUE`;
    case '[]': {
      // Only emails is multi-valued among what we filter on, and a person keeps one email.
      if (
        columns !== USER_COLUMNS ||
        !['emails', `${SCIM_USER_SCHEMA}:emails`].some((path) => path.toLowerCase() === node.attrPath.toLowerCase())
      ) {
        throw ScimErrors.invalidFilter(`The filter applies a value filter to ${JSON.stringify(node.attrPath)}; only "emails" takes one.`, {
          attribute: node.attrPath,
        });
      }
      return nodeSql(node.valFilter, walk, depth + 1, EMAIL_COLUMNS);
    }
    default: {
      if (++walk.comparisons > MAX_FILTER_COMPARISONS) {
        throw ScimErrors.invalidFilter(`The filter holds more than ${MAX_FILTER_COMPARISONS} comparisons.`);
      }
      return comparisonSql(node, columnOf(node.attrPath, columns), walk);
    }
  }
}

/** SQL: a condition over an `actors` row (alias: columns `id uuid`, `name text`, `attributes jsonb`, `deactivated_at timestamptz`) for a SCIM filter on Users; values bound with `bind` (returns the placeholder, e.g. "$3"). */
export function userFilterSql(filter: string, alias: string, bind: (value: unknown) => string): string {
  // The alias is the caller's SQL, never a client's; checked because it is written into the text.
  if (!ALIAS.test(alias)) throw new Error(`userFilterSql: ${JSON.stringify(alias)} is not a table alias.`);
  if (filter.length > MAX_FILTER_LENGTH) {
    throw ScimErrors.invalidFilter(`The filter is ${filter.length} characters long; at most ${MAX_FILTER_LENGTH} are read.`);
  }
  const { text, strings } = readStrings(filter);
  let tree: Filter;
  try {
    tree = parse(text);
  } catch (error) {
    // The parser recurses once per parenthesis; within MAX_FILTER_LENGTH that is far from the stack's limit.
    throw ScimErrors.invalidFilter(`The filter cannot be read: ${(error as Error).message}.`);
  }
  return nodeSql(tree, { alias, bind, comparisons: 0, strings }, 1, USER_COLUMNS);
}
