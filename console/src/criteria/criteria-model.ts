/**
 * The criteria of `POST /api/actors/search` (docs/actors.md, "Searching actors") and the model the
 * console's criteria builder edits: reading any criteria the API takes into the model, writing the
 * model back, the problems to show beside each control, and the criteria in a page's address.
 *
 * No imports: the console imports nothing from src/, and the tests compile this file under the root
 * tsconfig too. So the API's rules are restated here from src/modules/actors/actor-search-compiler.ts
 * (`readCriteria`); test/console/criteria-model.test.ts checks that both accept the same criteria.
 */

// ---------------------------------------------------------------------------------------------
// The criteria as the API takes them

/** Deepest nesting of and/or/not: the top node is level 1. */
export const MAX_DEPTH = 8;
/** Most nodes (every and, or, not, {} and condition) in one criteria. */
export const MAX_NODES = 100;
/** Most values of one `in`. */
export const MAX_IN_VALUES = 1000;
/** Longest string value, and longest field (prefix and attribute name together), in UTF-16 units. */
export const MAX_TEXT_LENGTH = 1000;

export const OPERATORS = ['eq', 'ne', 'in', 'exists', 'contains', 'startsWith', 'lt', 'lte', 'gt', 'gte'] as const;
export type Operator = (typeof OPERATORS)[number];
/** The operators whose value is one string. */
export type TextOperator = 'eq' | 'ne' | 'contains' | 'startsWith';
/** The operators whose value is a number or an ISO 8601 date or date-time. */
export type CompareOperator = 'lt' | 'lte' | 'gt' | 'gte';

export type ConditionCriteria =
  | { field: string; op: TextOperator; value: string }
  | { field: string; op: 'in'; value: string[] }
  | { field: string; op: 'exists'; value?: boolean }
  | { field: string; op: CompareOperator; value: number | string };

/** The JSON `POST /api/actors/search` takes as `criteria`; `{}` matches every actor. */
export type Criteria = ConditionCriteria | { and: Criteria[] } | { or: Criteria[] } | { not: Criteria } | Record<string, never>;

// ---------------------------------------------------------------------------------------------
// Fields and operators, as the builder offers them

/**
 * What a condition is about. A field with `needsName` is a family (`attributes` stands for every
 * `attributes.<name>`); the others are the API's field names themselves.
 */
export const FIELD_KINDS = [
  'attributes',
  'name',
  'objectType',
  'mbox',
  'mbox_sha1sum',
  'openid',
  'account.homePage',
  'account.name',
  'organisation.id',
  'organisation.attributes',
  'organisation.ancestors.id',
  'organisation.ancestors.attributes',
  'job.id',
  'job.name',
  'job.attributes',
  'job.competencies.Name',
] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

export interface FieldChoice {
  kind: FieldKind;
  label: string;
  section: 'The actor' | 'Organisation' | 'Job';
  /** The field takes an attribute name after its prefix (`attributes.` + name). */
  needsName: boolean;
  /**
   * Every operator: the API compares any field with any of them (`objectType contains "Gro"` is
   * valid), and the builder must show whatever criteria a shared link holds.
   */
  ops: readonly Operator[];
  /** Values the field can hold, offered while writing one (any other is still accepted). */
  suggestedValues?: readonly string[];
}

const choice = (kind: FieldKind, label: string, section: FieldChoice['section'], extra: Partial<FieldChoice> = {}): FieldChoice => ({
  kind,
  label,
  section,
  needsName: kind.endsWith('attributes'),
  ops: OPERATORS,
  ...extra,
});

export const FIELD_CHOICES: readonly FieldChoice[] = [
  choice('attributes', 'Attribute …', 'The actor'),
  choice('name', 'Name', 'The actor'),
  choice('objectType', 'Kind (Agent or Group)', 'The actor', { suggestedValues: ['Agent', 'Group'] }),
  choice('mbox', 'E-mail address (mbox)', 'The actor'),
  choice('mbox_sha1sum', 'E-mail address hash (mbox_sha1sum)', 'The actor'),
  choice('openid', 'OpenID', 'The actor'),
  choice('account.homePage', 'Account home page', 'The actor'),
  choice('account.name', 'Account name', 'The actor'),
  choice('organisation.id', 'Organisation entry id', 'Organisation'),
  choice('organisation.attributes', 'Organisation entry attribute …', 'Organisation'),
  choice('organisation.ancestors.id', 'Below organisation entry (ancestors id)', 'Organisation'),
  choice('organisation.ancestors.attributes', 'Below organisation entry (ancestors attribute …)', 'Organisation'),
  choice('job.id', 'Job id', 'Job'),
  choice('job.name', 'Job name', 'Job'),
  choice('job.attributes', 'Job attribute …', 'Job'),
  choice('job.competencies.Name', 'Job competency', 'Job'),
];

export const fieldChoice = (kind: FieldKind): FieldChoice => FIELD_CHOICES.find((candidate) => candidate.kind === kind)!;

export const OPERATOR_LABELS: Readonly<Record<Operator, string>> = {
  eq: 'is',
  ne: 'is not (has another value)',
  in: 'is one of',
  exists: 'has a value or not',
  contains: 'contains',
  startsWith: 'starts with',
  lt: 'is less than / before',
  lte: 'is at most / on or before',
  gt: 'is more than / after',
  gte: 'is at least / on or after',
};

// ---------------------------------------------------------------------------------------------
// The builder's model

/** A condition's value as the builder edits it: numbers and dates stay text until written. */
export type ConditionValue =
  | { op: TextOperator | CompareOperator; value: string }
  | { op: 'in'; value: string[] }
  | { op: 'exists'; value: boolean };

interface ConditionBase {
  type: 'condition';
  id: string;
  negated: boolean;
  field: FieldKind;
  /** The attribute name of a field that needs one; kept (unused) when the field changes to one that does not. */
  name: string;
}

export type ConditionNode = ConditionBase & ConditionValue;

export interface GroupNode {
  type: 'group';
  id: string;
  negated: boolean;
  combinator: 'and' | 'or';
  children: ModelNode[];
}

export type ModelNode = ConditionNode | GroupNode;
/** The builder's whole model: always a group, so that there is somewhere to add the first condition. */
export type CriteriaModel = GroupNode;

// Ids only tell the nodes apart while a page is open (React keys, problems, focus): a counter will do.
let lastId = 0;
const nextId = () => `node-${++lastId}`;

/** A new condition: `is`, nothing written yet. */
export const newCondition = (field: FieldKind = 'attributes'): ConditionBase & { op: TextOperator | CompareOperator; value: string } => ({
  type: 'condition',
  id: nextId(),
  negated: false,
  field,
  name: '',
  op: 'eq',
  value: '',
});

export const newGroup = (combinator: 'and' | 'or' = 'and', children: ModelNode[] = []): GroupNode => ({
  type: 'group',
  id: nextId(),
  negated: false,
  combinator,
  children,
});

/** The model of `{}`: every actor. */
export const emptyModel = (): CriteriaModel => newGroup('and');

/** The condition with another operator, its value carried over where it fits (a text becomes a one-value list). */
export function withOperator(condition: ConditionNode, op: Operator): ConditionNode {
  const { type, id, negated, field, name } = condition;
  const base = { type, id, negated, field, name };
  const text = condition.op === 'in' ? (condition.value[0] ?? '') : condition.op === 'exists' ? '' : condition.value;
  if (op === 'in') return { ...base, op, value: condition.op === 'in' ? condition.value : text === '' ? [] : [text] };
  if (op === 'exists') return { ...base, op, value: condition.op === 'exists' ? condition.value : true };
  return { ...base, op, value: text };
}

/** `root` with the node `id` replaced by `replacement`, or removed when that is null. */
export function replaceNode(root: CriteriaModel, id: string, replacement: ModelNode | null): CriteriaModel {
  const visit = (group: GroupNode): GroupNode => ({
    ...group,
    children: group.children.flatMap((child) => {
      if (child.id === id) return replacement === null ? [] : [replacement];
      return child.type === 'group' ? [visit(child)] : [child];
    }),
  });
  if (root.id === id) return replacement?.type === 'group' ? replacement : root;
  return visit(root);
}

export function findNode(root: CriteriaModel, id: string): ModelNode | undefined {
  if (root.id === id) return root;
  for (const child of root.children) {
    const found = child.type === 'group' ? findNode(child, id) : child.id === id ? child : undefined;
    if (found) return found;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Values: what reads as a number, a date, a date-time (actor-search-compiler.ts)

/** A number as JSON writes one (`12`, `-0.5`, `1e3`; not `+1`, `01`, `.5`, ` 7`). */
const NUMBER = /^-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][-+]?[0-9]+)?$/;
const DATE = '([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])';
const TIME = 'T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9]([.][0-9]{1,9})?)?';
const OFFSET = '(Z|[+-](0[0-9]|1[0-4]):[0-5][0-9])';
const DATE_OR_DATE_TIME = new RegExp(`^${DATE}(${TIME}${OFFSET})?$`);
/** A date-time without its offset: the API refuses it, and the builder says why. */
const LOCAL_DATE_TIME = new RegExp(`^${DATE}${TIME}$`);

/** The day exists in its month (the pattern lets 2026-02-30 through). */
function isRealDay(text: string): boolean {
  const [year, month, day] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const readsAsDate = (text: string) => DATE_OR_DATE_TIME.test(text) && isRealDay(text);

/**
 * The value a comparison sends for the text the builder holds: a JSON number when the text is one
 * (the API takes numbers as numbers only), the text itself when it is a date or date-time.
 */
function comparable(text: string): number | string | undefined {
  if (NUMBER.test(text)) {
    const number = Number(text);
    return Number.isFinite(number) ? number : undefined;
  }
  return readsAsDate(text) ? text : undefined;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why the API would refuse this text as a value or a field (src/platform/json-guard.ts `textProblem`), or undefined. */
function textProblem(text: string): string | undefined {
  if (text.length > MAX_TEXT_LENGTH) return `is longer than ${MAX_TEXT_LENGTH} characters`;
  if (text.includes('\u0000')) return 'must not contain U+0000 (NUL)';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone surrogate (U+D800-U+DFFF without its pair)';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Reading criteria into the model

export type Reading = { model: CriteriaModel } | { error: string; path: string };

class ReadProblem extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const pointer = (path: string, key: string | number) => `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown) =>
  value === undefined
    ? 'absent'
    : value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value === 'object'
          ? 'an object'
          : `a ${typeof value}`;

/** The field's kind and attribute name, or undefined for a field the API does not know. */
export function parseField(field: string): { kind: FieldKind; name: string } | undefined {
  for (const { kind, needsName } of FIELD_CHOICES) {
    if (!needsName && field === kind) return { kind, name: '' };
    const prefix = `${kind}.`;
    if (needsName && field.startsWith(prefix) && field.length > prefix.length) return { kind, name: field.slice(prefix.length) };
  }
  return undefined;
}

/** The field the API reads for a kind and an attribute name. */
export const fieldText = (kind: FieldKind, name: string) => (fieldChoice(kind).needsName ? `${kind}.${name}` : kind);

function readText(value: unknown, path: string, what: string): string {
  if (typeof value !== 'string') throw new ReadProblem(path, `${what} must be a string, not ${describe(value)}`);
  const problem = textProblem(value);
  if (problem) throw new ReadProblem(path, `${what} ${problem}`);
  return value;
}

function readConditionValue(op: Operator, value: unknown, path: string): ConditionValue {
  switch (op) {
    case 'exists':
      if (value !== undefined && typeof value !== 'boolean')
        throw new ReadProblem(path, `The value of exists must be true, false or absent, not ${describe(value)}`);
      return { op, value: value ?? true };
    case 'in':
      if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN_VALUES)
        throw new ReadProblem(path, `The value of in must be an array of 1 to ${MAX_IN_VALUES} strings, not ${describe(value)}`);
      return { op, value: value.map((item, index) => readText(item, pointer(path, index), 'Each value of in')) };
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      // String(n) is the shortest text that reads back as the same double: the round trip keeps the number.
      if (typeof value === 'number' && Number.isFinite(value)) return { op, value: String(value) };
      if (typeof value === 'string' && readsAsDate(value)) return { op, value };
      throw new ReadProblem(
        path,
        `The value of ${op} must be a number or an ISO 8601 date (2026-11-23) or date-time with its offset (2026-11-23T17:00:00Z), not ${typeof value === 'string' ? JSON.stringify(value) : describe(value)}`,
      );
    default:
      return { op, value: readText(value, path, `The value of ${op}`) };
  }
}

function readCondition(node: Record<string, unknown>, path: string): ConditionNode {
  for (const key of Object.keys(node)) {
    if (key !== 'field' && key !== 'op' && key !== 'value')
      throw new ReadProblem(pointer(path, key), `"${key}" is not a property of a condition (field, op, value)`);
  }
  const fieldPath = pointer(path, 'field');
  const field = parseField(readText(node.field, fieldPath, 'The field'));
  if (!field) throw new ReadProblem(fieldPath, `Unknown field ${JSON.stringify(node.field)}: docs/actors.md lists the fields`);
  if (typeof node.op !== 'string' || !(OPERATORS as readonly string[]).includes(node.op)) {
    const given = typeof node.op === 'string' ? JSON.stringify(node.op) : describe(node.op);
    throw new ReadProblem(pointer(path, 'op'), `Unknown operator ${given}: one of ${OPERATORS.join(', ')}`);
  }
  const value = readConditionValue(node.op as Operator, node.value, pointer(path, 'value'));
  return { type: 'condition', id: nextId(), negated: false, field: field.kind, name: field.name, ...value };
}

/**
 * Any criteria the API takes, as the builder's model; or, for criteria the API would refuse, why
 * and where (a JSON pointer below the criteria, as the API's `details.path` without `/criteria`).
 * The checks are the API's, in its order, so the first problem named is the one it would name.
 *
 * Shapes: `{}` is an empty group; a condition or a `not` at the top is wrapped in an `and` group of
 * one; `not` sets the negated flag of what it holds, and a `not` around something already negated
 * (`{"not": {"not": x}}`) becomes a negated group of one, so that toCriteria writes both back.
 */
export function fromCriteria(json: unknown): Reading {
  let nodes = 0;
  const read = (node: unknown, path: string, depth: number): ModelNode => {
    // The depth is checked before going down: a body nested thousands deep costs nine levels.
    if (depth > MAX_DEPTH) throw new ReadProblem(path, `Nested deeper than ${MAX_DEPTH} levels`);
    if (++nodes > MAX_NODES) throw new ReadProblem(path, `One node more than the ${MAX_NODES} criteria may hold`);
    if (!isObject(node)) throw new ReadProblem(path, `Criteria must be an object (a condition, and, or, not, {}), not ${describe(node)}`);
    const keys = Object.keys(node);
    if (keys.length === 0) return newGroup('and');
    const combinator = keys.find((key) => key === 'and' || key === 'or' || key === 'not');
    if (combinator === undefined) return readCondition(node, path);
    const extra = keys.find((key) => key !== combinator);
    if (extra !== undefined) throw new ReadProblem(pointer(path, extra), `"${extra}" must not sit beside "${combinator}"`);
    const innerPath = pointer(path, combinator);
    if (combinator === 'not') return negate(read(node.not, innerPath, depth + 1));
    const items = node[combinator];
    if (!Array.isArray(items) || items.length === 0)
      throw new ReadProblem(innerPath, `"${combinator}" must be a non-empty array of criteria`);
    return newGroup(
      combinator as 'and' | 'or',
      items.map((item, index) => read(item, pointer(innerPath, index), depth + 1)),
    );
  };
  try {
    const node = read(json, '', 1);
    return { model: node.type === 'group' ? node : newGroup('and', [node]) };
  } catch (error) {
    if (!(error instanceof ReadProblem)) throw error;
    return { error: `${error.message} (at ${error.path || 'the top'}).`, path: error.path };
  }
}

const negate = (node: ModelNode): ModelNode => (node.negated ? { ...newGroup('and', [node]), negated: true } : { ...node, negated: true });

// ---------------------------------------------------------------------------------------------
// Writing the model as criteria

/**
 * The criteria the model states, written minimally. For criteria read by fromCriteria,
 * `toCriteria(fromCriteria(x).model)` is x but for these normalisations, none of which changes
 * what matches:
 * - an `and` or `or` of one node is that node (`{"and": [x]}` → x; `{"or": [{}]}` → `{}`);
 * - `exists` with `"value": true` is written without its value (the API's default);
 * - `-0` is written `0` (JSON.stringify writes both so anyway).
 * Nothing else moves: and/or of two or more keep their order and nesting (an `and` inside an `and`
 * is not flattened), `in` keeps its order and repeats, `not` around `not` stays.
 * Beyond the round trip: a group the builder has left empty is `{}` (every actor), even an `or`;
 * a number typed with more digits than a double holds is sent rounded, as any JSON parser would
 * read it; values are sent as typed (no trimming: `" London"` is another value than `"London"`).
 */
export function toCriteria(model: CriteriaModel): Criteria {
  return write(model);
}

function write(node: ModelNode): Criteria {
  const inner = node.type === 'condition' ? writeCondition(node) : writeGroup(node);
  return node.negated ? { not: inner } : inner;
}

function writeGroup(group: GroupNode): Criteria {
  if (group.children.length === 0) return {};
  if (group.children.length === 1) return write(group.children[0]);
  const children = group.children.map(write);
  return group.combinator === 'and' ? { and: children } : { or: children };
}

function writeCondition(condition: ConditionNode): ConditionCriteria {
  const field = fieldText(condition.field, condition.name);
  switch (condition.op) {
    case 'exists':
      return condition.value ? { field, op: 'exists' } : { field, op: 'exists', value: false };
    case 'in':
      return { field, op: 'in', value: [...condition.value] };
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      // Text that reads as neither is sent as it is: the API names it, and checkModel already has.
      return { field, op: condition.op, value: comparable(condition.value) ?? condition.value };
    default:
      return { field, op: condition.op, value: condition.value };
  }
}

// ---------------------------------------------------------------------------------------------
// Checking the model before it is sent

export interface Problem {
  /** The node the problem is on. */
  id: string;
  /** Where it is, as the builder numbers nodes: `2.1` is the first child of the top group's second. */
  where: string;
  /** Which part of the node to show it beside. */
  part: 'name' | 'value' | 'node';
  /** An error: the API would refuse the criteria. A warning: they are valid but likely not meant. */
  severity: 'error' | 'warning';
  message: string;
}

/** Every problem of the model, in document order. Criteria with no error are criteria the API takes. */
export function checkModel(model: CriteriaModel): Problem[] {
  const problems: Problem[] = [];
  const nodes = measure(model, '', 1, false, problems);
  if (nodes > MAX_NODES) {
    problems.unshift({
      id: model.id,
      where: '',
      part: 'node',
      severity: 'error',
      message: `These criteria hold ${nodes} parts (each condition, group of two or more, empty group and "not" counts); the search takes at most ${MAX_NODES}.`,
    });
  }
  return problems;
}

/** Whether the model can be sent: no problem is an error. */
export const hasErrors = (problems: readonly Problem[]) => problems.some((problem) => problem.severity === 'error');

/**
 * Checks `node` and returns how many nodes its written criteria hold. `level` is the JSON level at
 * which toCriteria writes it: a group of one is written as its child, so it takes no level of its own.
 * Only the outermost node past the depth bound is named (`deepAbove`): its insides are too.
 */
function measure(node: ModelNode, where: string, level: number, deepAbove: boolean, problems: Problem[]): number {
  const problem = (part: Problem['part'], severity: Problem['severity'], message: string) =>
    problems.push({ id: node.id, where, part, severity, message });
  const own = node.type === 'condition' || node.children.length !== 1 ? 1 : 0;
  const innermost = level + (node.negated ? 1 : 0);
  const tooDeep = !deepAbove && innermost + own - 1 > MAX_DEPTH;
  if (tooDeep) problem('node', 'error', `Nested deeper than the ${MAX_DEPTH} levels the search takes: move it up a level.`);
  const count = (node.negated ? 1 : 0) + own;
  if (node.type === 'condition') {
    checkCondition(node, problem);
    return count;
  }
  if (node.children.length === 0 && (where !== '' || node.negated))
    problem('node', 'warning', node.negated ? 'Empty under "not": matches no one.' : 'Empty: matches everyone.');
  const childLevel = innermost + (node.children.length === 1 ? 0 : 1);
  return node.children.reduce(
    (sum, child, index) =>
      sum + measure(child, where === '' ? `${index + 1}` : `${where}.${index + 1}`, childLevel, deepAbove || tooDeep, problems),
    count,
  );
}

type Report = (part: Problem['part'], severity: Problem['severity'], message: string) => void;

function checkCondition(condition: ConditionNode, problem: Report): void {
  if (fieldChoice(condition.field).needsName) {
    const fieldProblem = textProblem(fieldText(condition.field, condition.name));
    if (condition.name === '') problem('name', 'error', 'Name the attribute.');
    else if (fieldProblem) problem('name', 'error', `The field (${condition.field}.<name>) ${fieldProblem}.`);
  }
  switch (condition.op) {
    case 'exists':
      return;
    case 'in':
      return checkList(condition.value, problem);
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return checkComparable(condition.value, problem);
    default: {
      const valueProblem = textProblem(condition.value);
      if (valueProblem) problem('value', 'error', `The value ${valueProblem}.`);
      else if (condition.value === '') problem('value', 'warning', EMPTY_TEXT[condition.op]);
    }
  }
}

/** An empty text is a valid value; what it matches is seldom what was meant, so the builder says it. */
const EMPTY_TEXT: Record<TextOperator, string> = {
  eq: 'No value written: this matches only an empty value.',
  ne: 'No value written: this matches every value but an empty one.',
  contains: 'No value written: this matches every value.',
  startsWith: 'No value written: this matches every value.',
};

function checkList(values: readonly string[], problem: Report): void {
  if (values.length === 0) return problem('value', 'error', 'Add at least one value.');
  if (values.length > MAX_IN_VALUES) return problem('value', 'error', `At most ${MAX_IN_VALUES} values (${values.length} now).`);
  const index = values.findIndex((value) => textProblem(value) !== undefined);
  if (index >= 0) problem('value', 'error', `Value ${index + 1} ${textProblem(values[index])}.`);
}

function checkComparable(text: string, problem: Report): void {
  if (comparable(text) !== undefined) return;
  if (text === '') return problem('value', 'error', 'Write a number (12, -0.5) or a date (2026-11-23).');
  if (NUMBER.test(text)) return problem('value', 'error', 'This number is too large.');
  if (LOCAL_DATE_TIME.test(text))
    return problem('value', 'error', 'A date-time needs its offset: Z (UTC) or +01:00, as in 2026-11-23T17:00Z.');
  if (DATE_OR_DATE_TIME.test(text)) return problem('value', 'error', 'No such day in that month.');
  problem(
    'value',
    'error',
    'Not a number or a date: write a number as 12, -0.5 or 1e3 (a point, no spaces or thousands separators), a date as 2026-11-23, a date-time as 2026-11-23T17:00:00Z.',
  );
}

// ---------------------------------------------------------------------------------------------
// Criteria in a page's address

/**
 * The search parameter that holds a page's criteria: `?q=` followed by the criteria's JSON (UTF-8)
 * in base64url without padding. Chosen over JSON written into the parameter as it is, because
 * URLSearchParams writes each of JSON's `{ } [ ] : , "` as three characters (`%7B`...): a typical
 * filter comes out a third shorter, holds only letters, digits, `-` and `_`, and survives being
 * pasted into mail or chat whole. A parameter that starts with `{` is read as plain JSON, so a
 * hand-written link works too. No `q` (or `{}`) is every actor.
 *
 * Node's HTTP server refuses request heads over 16 KB: a link to criteria much over 10 KB of JSON
 * cannot be reloaded, though the builder holds them.
 */
export const CRITERIA_PARAMETER = 'q';

export function encodeCriteria(criteria: Criteria): string {
  const bytes = new TextEncoder().encode(JSON.stringify(criteria));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The JSON of an encoded parameter, not yet checked as criteria (fromCriteria does that). */
export function decodeCriteria(text: string): { json: unknown } | { error: string } {
  const refused = { error: `The address's criteria (${CRITERIA_PARAMETER}=) cannot be read: the link was cut short or changed.` };
  let json: string;
  if (text.startsWith('{')) json = text;
  else {
    if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return refused;
    try {
      const binary = atob(
        text
          .replace(/-/g, '+')
          .replace(/_/g, '/')
          .padEnd(Math.ceil(text.length / 4) * 4, '='),
      );
      json = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
    } catch {
      return refused;
    }
  }
  try {
    return { json: JSON.parse(json) };
  } catch {
    return refused;
  }
}

/** The model of the criteria a page's address holds: every actor without any (or with an empty `q=`). */
export function readCriteriaParameter(search: URLSearchParams): Reading {
  const text = search.get(CRITERIA_PARAMETER);
  if (text === null || text === '') return { model: emptyModel() };
  const decoded = decodeCriteria(text);
  if ('error' in decoded) return { error: decoded.error, path: '' };
  const reading = fromCriteria(decoded.json);
  return 'error' in reading ? { ...reading, error: `The address's criteria are not valid: ${reading.error}` } : reading;
}

/** The page's parameters with the model's criteria in them; none for `{}`, so the plain address is everyone. */
export function withCriteriaParameter(search: URLSearchParams, model: CriteriaModel): URLSearchParams {
  const next = new URLSearchParams(search);
  const criteria = toCriteria(model);
  if (Object.keys(criteria).length === 0) next.delete(CRITERIA_PARAMETER);
  else next.set(CRITERIA_PARAMETER, encodeCriteria(criteria));
  return next;
}
