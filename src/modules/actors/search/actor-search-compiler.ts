/**
 * The criteria language of `POST /api/actors/search` (docs/actors.md, "Searching actors"): reading
 * a body into criteria, naming the first bad node by its JSON pointer, and compiling criteria to
 * a parameterised SQL condition over `actors a`. Pure: no database, no HTTP.
 *
 * Every value a client sends (and every attribute name) becomes a bound parameter; the SQL text
 * holds only this file's own fragments. Casts are guarded (CASE WHEN <regex> THEN <cast> END), so
 * an attribute value PostgreSQL cannot read as a number or a date never raises an error: it
 * simply never matches a comparison.
 */
import type { SqlValues } from '../../../platform/database/sql-filters.js';
import { textProblem } from '../../../platform/json-guard.js';
import { positionAmongSql } from '../actor-position.js';
import {
  competencyNameSql,
  jobIdsSql,
  organisationEntryIdsSql,
  positionIdsOfFewJobsSql,
  positionIdsOfJobsSql,
} from '../../organisation/index.js';
import { pointerToken } from '../../../platform/json-pointer.js';

/** Deepest nesting of and/or/not: the top node is level 1. */
export const MAX_CRITERIA_DEPTH = 8;
/** Most nodes (and, or, not, conditions) in one criteria. */
export const MAX_CRITERIA_NODES = 100;
/** Most values of one `in`. */
export const MAX_IN_VALUES = 1000;
/** Longest string value, and longest attribute name, in characters. */
export const MAX_TEXT_LENGTH = 1000;

export const OPERATORS = ['eq', 'ne', 'in', 'exists', 'contains', 'startsWith', 'lt', 'lte', 'gt', 'gte'] as const;
export type Operator = (typeof OPERATORS)[number];

/** The fields without a variable part; `attributes.<name>` and the enrichment's `….attributes.<name>` add to them. */
export const FIXED_FIELDS = [
  'objectType',
  'name',
  'mbox',
  'mbox_sha1sum',
  'openid',
  'account.homePage',
  'account.name',
  'organisation.id',
  'organisation.ancestors.id',
  'job.id',
  'job.name',
  'job.competencies.Name',
] as const;
export const ATTRIBUTE_FIELD_PREFIXES = [
  'attributes.',
  'organisation.attributes.',
  'organisation.ancestors.attributes.',
  'job.attributes.',
] as const;

/** What a condition compares: a value a comparison reads as a number or as an instant. */
export type Comparable = { kind: 'number'; value: number } | { kind: 'date'; value: string };

export type Condition =
  | { field: string; op: 'eq' | 'ne' | 'contains' | 'startsWith'; value: string }
  | { field: string; op: 'in'; value: string[] }
  | { field: string; op: 'exists'; value: boolean }
  | { field: string; op: 'lt' | 'lte' | 'gt' | 'gte'; value: Comparable };

export type Criteria = { all: true } | { and: Criteria[] } | { or: Criteria[] } | { not: Criteria } | Condition;

export type CriteriaReading = { ok: true; criteria: Criteria } | { ok: false; path: string; message: string };

// ---------------------------------------------------------------------------------------------
// Values: what reads as a number, a date, a date-time (shared with the attribute catalogue)

/**
 * A number as JSON writes one, bounded so that PostgreSQL's numeric reads every match: at most
 * 100 digits either side of the point and a three-digit exponent.
 */
export const NUMBER_PATTERN = '^-?(0|[1-9][0-9]{0,99})([.][0-9]{1,100})?([eE][-+]?[0-9]{1,3})?$';
const YEAR = '([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})';
const DATE = `${YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])`;
/** Seconds and offsets limited to what PostgreSQL's timestamptz reads (no leap second, offsets to ±14:59). */
const TIME = 'T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9]([.][0-9]{1,9})?)?(Z|[+-](0[0-9]|1[0-4]):[0-5][0-9])';
/** An ISO 8601 calendar date, `2026-11-23` (the day is checked against its month apart). */
export const DATE_PATTERN = `^${DATE}$`;
/** An ISO 8601 date-time with its offset, `2026-11-23T17:00:00Z`, `2026-11-23T18:00+01:00`. */
export const DATE_TIME_PATTERN = `^${DATE}${TIME}$`;

const numberRegExp = new RegExp(NUMBER_PATTERN);
const dateRegExp = new RegExp(`^${DATE}(${TIME})?$`);

/** The day exists in its month (regexes let 2026-02-30 through). */
function isRealDay(text: string): boolean {
  const [year, month, day] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export const readsAsNumber = (text: string) => numberRegExp.test(text);
export const readsAsDate = (text: string) => dateRegExp.test(text) && isRealDay(text);

/**
 * SQL: `expression` (text) reads as a date (`'date'`), as a date-time (`'date-time'`) or as either
 * (`'either'`), its day real for its month. Nested CASEs, because PostgreSQL does not promise to
 * evaluate AND's operands in order and the day check casts parts of the text to integers.
 */
export function sqlReadsAsDate(expression: string, form: 'date' | 'date-time' | 'either'): string {
  const pattern = form === 'date' ? DATE_PATTERN : form === 'date-time' ? DATE_TIME_PATTERN : `^${DATE}(${TIME})?$`;
  const year = `substr(${expression}, 1, 4)::int`;
  const leap = `(${year} % 4 = 0 AND ${year} % 100 <> 0 OR ${year} % 400 = 0)`;
  const daysInMonth =
    `CASE substr(${expression}, 6, 2) WHEN '02' THEN CASE WHEN ${leap} THEN 29 ELSE 28 END ` +
    `WHEN '04' THEN 30 WHEN '06' THEN 30 WHEN '09' THEN 30 WHEN '11' THEN 30 ELSE 31 END`;
  return `(CASE WHEN ${expression} ~ '${pattern}' THEN substr(${expression}, 9, 2)::int <= ${daysInMonth} ELSE false END)`;
}

/** SQL: `expression` as an instant; a date stands for midnight UTC of its day. Only for text sqlReadsAsDate accepts. */
const sqlAsInstant = (expression: string) =>
  `(CASE WHEN length(${expression}) = 10 THEN ${expression} || 'T00:00:00Z' ELSE ${expression} END)::timestamptz`;

// ---------------------------------------------------------------------------------------------
// Reading a body into criteria

const pointer = (path: string, key: string | number) => `${path}/${pointerToken(key)}`;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;

class CriteriaProblem extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

export function isKnownField(field: string): boolean {
  if ((FIXED_FIELDS as readonly string[]).includes(field)) return true;
  return ATTRIBUTE_FIELD_PREFIXES.some((prefix) => field.startsWith(prefix) && field.length > prefix.length);
}

function checkText(text: string, path: string): void {
  if (text.length > MAX_TEXT_LENGTH) throw new CriteriaProblem(path, `is longer than ${MAX_TEXT_LENGTH} characters`);
  const problem = textProblem(text);
  if (problem) throw new CriteriaProblem(path, problem.why);
}

function readComparable(value: unknown, path: string): Comparable {
  if (typeof value === 'number' && Number.isFinite(value)) return { kind: 'number', value };
  if (typeof value === 'string' && readsAsDate(value)) return { kind: 'date', value };
  throw new CriteriaProblem(path, 'must be a number or an ISO 8601 date (2026-11-23) or date-time with its offset (2026-11-23T17:00:00Z)');
}

function readCondition(node: Record<string, unknown>, path: string): Condition {
  for (const key of Object.keys(node)) {
    if (key !== 'field' && key !== 'op' && key !== 'value')
      throw new CriteriaProblem(pointer(path, key), 'is not a property of a condition (field, op, value)');
  }
  const { field, op, value } = node;
  if (typeof field !== 'string') throw new CriteriaProblem(pointer(path, 'field'), `must be a string, not ${describe(field)}`);
  checkText(field, pointer(path, 'field'));
  if (!isKnownField(field))
    throw new CriteriaProblem(pointer(path, 'field'), `names no field: ${JSON.stringify(field)} (docs/actors.md lists them)`);
  if (typeof op !== 'string' || !(OPERATORS as readonly string[]).includes(op)) {
    throw new CriteriaProblem(pointer(path, 'op'), `must be one of ${OPERATORS.join(', ')}`);
  }
  const valuePath = pointer(path, 'value');
  switch (op as Operator) {
    case 'exists':
      if (value !== undefined && typeof value !== 'boolean')
        throw new CriteriaProblem(valuePath, `must be true, false or absent for exists, not ${describe(value)}`);
      return { field, op: 'exists', value: value ?? true };
    case 'in': {
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN_VALUES) {
        throw new CriteriaProblem(valuePath, `must be an array of 1 to ${MAX_IN_VALUES} strings for in`);
      }
      value.forEach((item, index) => {
        if (typeof item !== 'string') throw new CriteriaProblem(pointer(valuePath, index), `must be a string, not ${describe(item)}`);
        checkText(item, pointer(valuePath, index));
      });
      return { field, op: 'in', value: value as string[] };
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return { field, op: op as 'lt', value: readComparable(value, valuePath) };
    default:
      if (typeof value !== 'string') throw new CriteriaProblem(valuePath, `must be a string for ${op}, not ${describe(value)}`);
      checkText(value, valuePath);
      return { field, op: op as 'eq', value };
  }
}

/**
 * Reads criteria, depth first in document order, stopping at the first problem. The depth bound
 * is checked before going down, so a body nested thousands deep costs nine levels of recursion.
 */
export function readCriteria(criteria: unknown, path = '/criteria'): CriteriaReading {
  let nodes = 0;
  const read = (node: unknown, nodePath: string, depth: number): Criteria => {
    if (depth > MAX_CRITERIA_DEPTH) throw new CriteriaProblem(nodePath, `is nested deeper than ${MAX_CRITERIA_DEPTH} levels`);
    if (++nodes > MAX_CRITERIA_NODES)
      throw new CriteriaProblem(nodePath, `is one node more than the ${MAX_CRITERIA_NODES} criteria may hold`);
    if (!isObject(node)) throw new CriteriaProblem(nodePath, `must be an object (a condition, and, or, not), not ${describe(node)}`);
    const keys = Object.keys(node);
    if (keys.length === 0) return { all: true };
    const combinator = keys.find((key) => key === 'and' || key === 'or' || key === 'not');
    if (combinator === undefined) return readCondition(node, nodePath);
    const extra = keys.find((key) => key !== combinator);
    if (extra !== undefined) throw new CriteriaProblem(pointer(nodePath, extra), `must not sit beside "${combinator}"`);
    const inner = node[combinator];
    const innerPath = pointer(nodePath, combinator);
    if (combinator === 'not') return { not: read(inner, innerPath, depth + 1) };
    if (!Array.isArray(inner) || inner.length === 0) throw new CriteriaProblem(innerPath, 'must be a non-empty array of criteria');
    const items = inner.map((item, index) => read(item, pointer(innerPath, index), depth + 1));
    return combinator === 'and' ? { and: items } : { or: items };
  };
  try {
    return { ok: true, criteria: read(criteria, path, 1) };
  } catch (error) {
    if (error instanceof CriteriaProblem) return { ok: false, path: error.path, message: error.message };
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Compiling criteria to SQL

export interface CompileContext {
  /** The parameter holding the tenant id, `$1`. */
  tenantParameter: string;
  /** The tenant settings that link users to organisation entries and jobs (null: no link). */
  organisationAttribute: string | null;
  jobAttribute: string | null;
  /** The organisation entry attribute naming the job of a position (null or absent: none). */
  positionJobAttribute?: string | null;
}

/** `%`, `_` and `\` taken literally in a LIKE pattern whose escape is `\`. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (match) => `\\${match}`);

const COMPARISON_SQL = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/**
 * A condition on one text value `x` (NULL when the actor has none). NULL results are left to the
 * caller: the top-level WHERE drops them and `not` reads them as false (IS NOT TRUE).
 */
function valuePredicate(x: string, condition: Condition, parameters: SqlValues): string {
  switch (condition.op) {
    case 'eq':
      return `${x} = ${parameters.bind(condition.value)}`;
    case 'ne':
      return `${x} <> ${parameters.bind(condition.value)}`;
    case 'in':
      return `${x} = ANY(${parameters.bind(condition.value)}::text[])`;
    case 'exists':
      return `${x} IS NOT NULL`;
    case 'contains':
      return `${x} LIKE ${parameters.bind(`%${escapeLike(condition.value)}%`)} ESCAPE '\\'`;
    case 'startsWith':
      return `${x} LIKE ${parameters.bind(`${escapeLike(condition.value)}%`)} ESCAPE '\\'`;
    default: {
      const operator = COMPARISON_SQL[condition.op];
      const { kind, value } = condition.value;
      if (kind === 'number') {
        return `(CASE WHEN ${x} ~ '${NUMBER_PATTERN}' THEN ${x}::numeric ${operator} ${parameters.bind(String(value))}::numeric END)`;
      }
      const instant = value.length === 10 ? `${value}T00:00:00Z` : value;
      return `(CASE WHEN ${sqlReadsAsDate(x, 'either')} THEN ${sqlAsInstant(x)} ${operator} ${parameters.bind(instant)}::timestamptz END)`;
    }
  }
}

/** Longest `in` on an attribute written as `@> ANY` (a longer one compares text with `= ANY`). */
const MAX_CONTAINMENT_IN = 20;

/**
 * An attribute condition. `eq` as `@>`, and a short `in` as `@> ANY(jsonb[])`, so the GIN index on
 * the attributes can serve them: several such conditions under one AND become one index scan that
 * intersects them before a single row is read (docs/performance.md, "Actor search: the GIN index and
 * the materialised match set").
 */
function attributePredicate(column: string, name: string, condition: Condition, parameters: SqlValues): string {
  const pair = (value: string) => JSON.stringify({ [name]: value });
  if (condition.op === 'eq') return `${column} @> ${parameters.bind(pair(condition.value))}::jsonb`;
  if (condition.op === 'in' && condition.value.length <= MAX_CONTAINMENT_IN) {
    return `${column} @> ANY(${parameters.bind([...new Set(condition.value)].map(pair))}::jsonb[])`;
  }
  return valuePredicate(`(${column} ->> ${parameters.bind(name)})`, condition, parameters);
}

const IFI_COLUMNS: Record<string, string> = {
  objectType: 'a.object_type',
  name: 'COALESCE(a.name, a.names[1])',
  mbox: `(a.ifi ->> 'mbox')`,
  mbox_sha1sum: `(a.ifi ->> 'mbox_sha1sum')`,
  openid: `(a.ifi ->> 'openid')`,
  'account.homePage': `(a.ifi #>> '{account,homePage}')`,
  'account.name': `(a.ifi #>> '{account,name}')`,
};

/**
 * How many characters of the shown name its index holds (migration 0022): any name fits in the
 * index that way, and `name` eq and in still find their rows through it.
 */
export const NAME_INDEX_PREFIX = 200;

/** The first `NAME_INDEX_PREFIX` characters, counted as PostgreSQL's left() counts them: code points. */
const namePrefix = (value: string) => Array.from(value).slice(0, NAME_INDEX_PREFIX).join('');

/**
 * A condition on the shown name. eq and in compare the indexed prefix (the index's expression,
 * written exactly as in the migration, so the planner matches it) and then the whole name.
 */
function namePredicate(condition: Condition, parameters: SqlValues): string {
  const column = IFI_COLUMNS.name;
  const prefix = `left(${column}, ${NAME_INDEX_PREFIX})`;
  if (condition.op === 'eq') {
    return `${prefix} = ${parameters.bind(namePrefix(condition.value))} AND ${column} = ${parameters.bind(condition.value)}`;
  }
  if (condition.op === 'in') {
    const prefixes = [...new Set(condition.value.map(namePrefix))];
    return `${prefix} = ANY(${parameters.bind(prefixes)}::text[]) AND ${column} = ANY(${parameters.bind(condition.value)}::text[])`;
  }
  return valuePredicate(column, condition, parameters);
}

/**
 * `value IN (set)`, kept from being turned into a join: inside COALESCE the planner runs the
 * uncorrelated subquery once into a hash table and probes it per actor. As a top-level IN it
 * becomes a semi-join whose method rests on row estimates that jsonb conditions make poor (a
 * nested loop comparing every actor with every entry, ten times slower in the bench).
 */
const hashedMembership = (value: string, set: string) => `COALESCE(${value} IN (${set}), false)`;

/**
 * An enrichment condition: the actor's link attribute names an entry (or a job) of the set that
 * `entries` selects. The set is one uncorrelated subquery, computed once per search, whatever
 * the number of actors; with no link setting nothing matches.
 */
function organisationPredicate(condition: Condition, context: CompileContext, parameters: SqlValues): string {
  if (context.organisationAttribute === null) return 'false';
  const tenant = context.tenantParameter;
  const ancestors = condition.field.startsWith('organisation.ancestors.');
  const rest = condition.field.slice(ancestors ? 'organisation.ancestors.'.length : 'organisation.'.length);
  const matching =
    rest === 'id'
      ? valuePredicate('o.id', condition, parameters)
      : attributePredicate('o.attributes', rest.slice('attributes.'.length), condition, parameters);
  const set = organisationEntryIdsSql(tenant, matching, ancestors);
  // organisation.id or organisation.ancestors.id eq / in name the entries: a bounded set, whose
  // people the (tenant_id, position_id) index finds; other conditions may select any share of
  // the structure, probed per actor from a hash.
  if (rest === 'id' && (condition.op === 'eq' || condition.op === 'in')) return positionAmongSql('a', set);
  return hashedMembership('a.position_id', set);
}

/** Whether the settings give people a job through their position. */
const linksPositionJobs = (context: CompileContext) =>
  context.organisationAttribute !== null && (context.positionJobAttribute ?? null) !== null;
/** Whether the settings give people a job at all. */
const linksJobs = (context: CompileContext) => context.jobAttribute !== null || linksPositionJobs(context);

/**
 * A `job.*` condition: the actor's current job (actor-job-rules.ts) is one of the jobs the
 * condition selects. With no link setting nothing matches.
 */
function jobPredicate(condition: Condition, context: CompileContext, parameters: SqlValues): string {
  // Nothing bound when nothing can match: every placeholder added must be in the text.
  if (!linksJobs(context)) return 'false';
  const rest = condition.field.slice('job.'.length);
  const matching =
    rest === 'id'
      ? valuePredicate('j.id', condition, parameters)
      : rest === 'name'
        ? valuePredicate('j.name', condition, parameters)
        : rest === 'competencies.Name'
          ? competencyNameSql(valuePredicate(`(c.value ->> 'Name')`, condition, parameters))
          : attributePredicate('j.attributes', rest.slice('attributes.'.length), condition, parameters);
  // job.id eq / in also say which attribute values to look for: the GIN index finds the people.
  const byId = rest === 'id' && (condition.op === 'eq' || condition.op === 'in') ? condition : undefined;
  return currentJobIn(jobIdsSql(context.tenantParameter, matching), context, parameters, byId);
}

/**
 * SQL over `actors a`: the actor's current job is in `jobs` (an SQL set of job ids). The rule of
 * actor-job-rules.ts, as uncorrelated sets computed once per statement and probed per actor
 * (hashedMembership): the own `jobAttribute` value is in `jobs`; or it names no job at all and the
 * actor's position (`position_id`) is one whose `positionJobAttribute` names a job in `jobs`.
 * `byId` (a job.id eq or in) states the tests as indexes serve them: the own value as containment
 * (`@>`, attributePredicate: the GIN index on the attributes), the positions as positionAmongSql (the
 * actors' (tenant_id, position_id) index) of the job's positions, themselves found through the
 * entries' attributes index; a tenant-wide scan is then never needed.
 */
export function currentJobIn(jobs: string, context: CompileContext, parameters: SqlValues, byId?: Condition): string {
  const tenant = context.tenantParameter;
  const viaPosition = linksPositionJobs(context);
  if (!linksJobs(context)) return 'false';
  const arms: string[] = [];
  const own = context.jobAttribute === null ? undefined : `(a.attributes ->> ${parameters.bind(context.jobAttribute)})`;
  if (own !== undefined && context.jobAttribute !== null) {
    const exact = hashedMembership(own, jobs);
    arms.push(byId ? `(${attributePredicate('a.attributes', context.jobAttribute, byId, parameters)} AND ${exact})` : exact);
  }
  if (viaPosition) {
    const attribute = parameters.bind(context.positionJobAttribute);
    const parts = [
      byId
        ? positionAmongSql('a', positionIdsOfFewJobsSql(tenant, attribute, jobs))
        : hashedMembership('a.position_id', positionIdsOfJobsSql(tenant, attribute, jobs)),
    ];
    if (own !== undefined) parts.push(`NOT ${hashedMembership(own, jobIdsSql(tenant, 'true'))}`);
    arms.push(`(${parts.join(' AND ')})`);
  }
  return arms.length === 1 ? arms[0] : `(${arms.join(' OR ')})`;
}

function conditionSql(condition: Condition, context: CompileContext, parameters: SqlValues): string {
  // exists false is the negation of exists true, whatever the field.
  if (condition.op === 'exists' && !condition.value)
    return `(${conditionSql({ ...condition, value: true }, context, parameters)}) IS NOT TRUE`;
  const { field } = condition;
  if (field === 'name') return namePredicate(condition, parameters);
  if (Object.hasOwn(IFI_COLUMNS, field)) return valuePredicate(IFI_COLUMNS[field], condition, parameters);
  if (field.startsWith('attributes.')) return attributePredicate('a.attributes', field.slice('attributes.'.length), condition, parameters);
  if (field.startsWith('organisation.')) return organisationPredicate(condition, context, parameters);
  return jobPredicate(condition, context, parameters);
}

/**
 * The SQL condition (over `actors a`) that `criteria` states, its values added to `parameters`.
 * NULL (an actor without the value) counts as not matching: `not` is `IS NOT TRUE`, and AND/OR
 * with NULL give what two-valued logic would once the WHERE drops NULL. Leaves stay bare so the
 * planner sees `a.attributes @> $n` at the top of an AND and can use the GIN index.
 */
export function compileCriteria(criteria: Criteria, context: CompileContext, parameters: SqlValues): string {
  if ('all' in criteria) return 'true';
  if ('and' in criteria) return `(${criteria.and.map((item) => compileCriteria(item, context, parameters)).join(' AND ')})`;
  if ('or' in criteria) return `(${criteria.or.map((item) => compileCriteria(item, context, parameters)).join(' OR ')})`;
  if ('not' in criteria) return `((${compileCriteria(criteria.not, context, parameters)}) IS NOT TRUE)`;
  return `(${conditionSql(criteria, context, parameters)})`;
}
