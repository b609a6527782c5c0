import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  CRITERIA_PARAMETER,
  type ConditionNode,
  type Criteria,
  type CriteriaModel,
  checkModel,
  decodeCriteria,
  emptyModel,
  encodeCriteria,
  FIELD_CHOICES,
  FIELD_KINDS,
  fieldText,
  findNode,
  fromCriteria,
  hasErrors,
  MAX_DEPTH,
  type ModelNode,
  newCondition,
  newGroup,
  OPERATOR_LABELS,
  OPERATORS,
  parseField,
  readCriteriaParameter,
  replaceNode,
  toCriteria,
  withCriteriaParameter,
  withOperator,
} from '../../console/src/criteria/criteria-model.js';
import { readCriteria } from '../../src/modules/actors/search/actor-search-compiler.js';

/**
 * The console's criteria model (console/src/criteria/criteria-model.ts): criteria the API takes are
 * read into the builder's model and written back unchanged but for the documented normalisations;
 * criteria it refuses are refused with the same JSON pointer (checked against the API's own reader);
 * the problems the builder shows; the criteria in a page's address.
 */

function modelOf(json: unknown): CriteriaModel {
  const reading = fromCriteria(json);
  if ('error' in reading) assert.fail(`refused ${JSON.stringify(json)}: ${reading.error}`);
  return reading.model;
}

const errorOf = (json: unknown): { error: string; path: string } => {
  const reading = fromCriteria(json);
  if (!('error' in reading)) assert.fail(`read ${JSON.stringify(json)}`);
  return reading;
};

const roundTrip = (json: unknown) => toCriteria(modelOf(json));

/** The model without its ids, which only tell nodes apart on a page. */
const shape = (node: ModelNode): unknown =>
  node.type === 'group' ? { ...node, id: undefined, children: node.children.map(shape) } : { ...node, id: undefined };

/**
 * What toCriteria writes for valid criteria, by the normalisations its comment lists: an and/or of
 * one node is that node, exists true loses its value, -0 is 0.
 */
function canonical(criteria: Criteria): Criteria {
  if ('and' in criteria || 'or' in criteria) {
    const items = ('and' in criteria ? criteria.and : criteria.or) as Criteria[];
    if (items.length === 1) return canonical(items[0]);
    return 'and' in criteria ? { and: items.map(canonical) } : { or: items.map(canonical) };
  }
  if ('not' in criteria) return { not: canonical(criteria.not as Criteria) };
  if (!('field' in criteria)) return {};
  if (criteria.op === 'exists') return criteria.value === false ? { ...criteria } : { field: criteria.field, op: 'exists' };
  if (typeof criteria.value === 'number' && Object.is(criteria.value, -0)) return { ...criteria, value: 0 } as Criteria;
  return { ...criteria };
}

const depthOf = (criteria: Criteria): number =>
  'and' in criteria || 'or' in criteria
    ? 1 + Math.max(...(('and' in criteria ? criteria.and : criteria.or) as Criteria[]).map(depthOf))
    : 'not' in criteria
      ? 1 + depthOf(criteria.not as Criteria)
      : 1;
const countOf = (criteria: Criteria): number =>
  'and' in criteria || 'or' in criteria
    ? 1 + (('and' in criteria ? criteria.and : criteria.or) as Criteria[]).reduce((sum, item) => sum + countOf(item), 0)
    : 'not' in criteria
      ? 1 + countOf(criteria.not as Criteria)
      : 1;

const nested = (depth: number, leaf: unknown): unknown => Array.from({ length: depth }).reduce<unknown>((inner) => ({ not: inner }), leaf);
const city = { field: 'attributes.city', op: 'eq', value: 'London' };

// ---------------------------------------------------------------------------------------------
// Generators

/** Text the API takes: any Unicode but U+0000 (graphemes never hold a lone surrogate). */
const text = fc
  .oneof(
    { weight: 8, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
    { weight: 1, arbitrary: fc.constantFrom('', '%_\\', '12', 'London', 'a.b.c') },
    { weight: 1, arbitrary: fc.string({ minLength: 990, maxLength: 1000 }) },
  )
  .filter((value) => !value.includes('\u0000') && value.length <= 1000);
const attributeName = text.filter((name) => name.length > 0 && name.length <= 900);
const field = fc.oneof(
  fc.constantFrom(...FIELD_CHOICES.filter((choice) => !choice.needsName).map((choice) => choice.kind as string)),
  fc
    .tuple(fc.constantFrom(...FIELD_CHOICES.filter((choice) => choice.needsName).map((choice) => choice.kind as string)), attributeName)
    .map(([prefix, name]) => `${prefix}.${name}`),
);
const pad = (n: number) => String(n).padStart(2, '0');
const date = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((day) => day.toISOString().slice(0, 10));
const dateTime = fc
  .tuple(
    date,
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.constantFrom('', ':07', ':59.123456789'),
    fc.constantFrom('Z', '+01:00', '-14:59', '+05:30'),
  )
  .map(([day, hour, minute, seconds, offset]) => `${day}T${pad(hour)}:${pad(minute)}${seconds}${offset}`);
const comparableValue = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), date, dateTime);

const condition: fc.Arbitrary<Criteria> = fc.oneof(
  fc.record({ field, op: fc.constantFrom('eq', 'ne', 'contains', 'startsWith'), value: text }),
  fc.record({ field, op: fc.constant('in'), value: fc.array(text, { minLength: 1, maxLength: 4 }) }),
  fc.record({ field, op: fc.constant('exists'), value: fc.boolean() }, { requiredKeys: ['field', 'op'] }),
  fc.record({ field, op: fc.constantFrom('lt', 'lte', 'gt', 'gte'), value: comparableValue }),
) as fc.Arbitrary<Criteria>;

/**
 * Criteria of at most `levels` levels, every node form, recursion favoured so that deep criteria are
 * common (fast-check's own depth bias keeps most trees at one or two levels).
 */
const criteriaOfLevels = (levels: number): fc.Arbitrary<Criteria> => {
  const leaf = fc.oneof({ weight: 5, arbitrary: condition }, { weight: 1, arbitrary: fc.constant({} as Criteria) });
  if (levels === 1) return leaf;
  const inner = criteriaOfLevels(levels - 1);
  const items = fc.array(inner, { minLength: 1, maxLength: 3 });
  return fc.oneof(
    { weight: 1, arbitrary: leaf },
    { weight: 2, arbitrary: items.map((and): Criteria => ({ and })) },
    { weight: 2, arbitrary: items.map((or): Criteria => ({ or })) },
    { weight: 1, arbitrary: inner.map((not): Criteria => ({ not })) },
  );
};

/** Any criteria the API takes: every node form, up to the depth bound, and up to the node bound. */
const validCriteria: fc.Arbitrary<Criteria> = fc
  .oneof(
    { weight: 12, arbitrary: fc.integer({ min: 1, max: MAX_DEPTH }).chain(criteriaOfLevels) },
    { weight: 1, arbitrary: fc.array(condition, { minLength: 90, maxLength: 99 }).map((or): Criteria => ({ or })) },
  )
  .filter((criteria) => countOf(criteria) <= 100);

const nearCondition = fc.record(
  {
    field: fc.oneof(field, fc.constantFrom('attributes.', 'attributes', 'job', 'Name', 'x.y', '', 'attributes.\u0000', 7)),
    op: fc.constantFrom(...OPERATORS, 'like', 'EQ', '', null),
    value: fc.oneof(
      text,
      fc.array(fc.oneof(text, fc.integer()), { maxLength: 3 }),
      comparableValue,
      fc.constantFrom(true, false, null, 'tomorrow', '2023-02-29', '2026-01-01T10:00', '2026-01-01T10:00:00+15:00', 'a'.repeat(1001)),
    ),
  },
  { requiredKeys: [] },
);

/** Criteria near the valid ones: each part sometimes wrong in one of the ways the API names. */
const nearCriteria: fc.Arbitrary<unknown> = fc.oneof(
  fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { maxDepth: 10, depthIdentifier: 'near', depthSize: 'large' },
      { weight: 6, arbitrary: nearCondition },
      { weight: 1, arbitrary: nearCondition.map((node) => ({ ...node, sort: 'name' })) },
      { weight: 1, arbitrary: fc.constantFrom<unknown>({}, null, [], 'x', 1, { and: [] }, { or: {} }) },
      { weight: 2, arbitrary: fc.array(tie('node'), { maxLength: 3, depthIdentifier: 'near' }).map((and) => ({ and })) },
      { weight: 2, arbitrary: fc.array(tie('node'), { maxLength: 3, depthIdentifier: 'near' }).map((or) => ({ or })) },
      { weight: 1, arbitrary: tie('node').map((not) => ({ not })) },
      { weight: 1, arbitrary: tie('node').map((not) => ({ not, and: [] })) },
    ),
  })).node,
  // Past the bounds: valid criteria under more "not"s than there are levels left, or a few nodes too many.
  fc.tuple(fc.integer({ min: 1, max: MAX_DEPTH }), validCriteria).map(([depth, criteria]) => nested(depth, criteria)),
  fc.array(condition, { minLength: 98, maxLength: 102 }).map((and) => ({ and })),
);

// ---------------------------------------------------------------------------------------------

describe('the criteria model: reading criteria the API takes', () => {
  it('reads {} as an empty group, and writes an empty builder as {}', () => {
    const model = modelOf({});
    assert.deepEqual(shape(model), { type: 'group', id: undefined, negated: false, combinator: 'and', children: [] });
    assert.deepEqual(toCriteria(model), {});
    assert.deepEqual(toCriteria(emptyModel()), {});
  });

  it('reads a bare condition into a group of one, and writes it back bare', () => {
    const model = modelOf(city);
    assert.equal(model.children.length, 1);
    assert.deepEqual(shape(model.children[0]), {
      type: 'condition',
      id: undefined,
      negated: false,
      field: 'attributes',
      name: 'city',
      op: 'eq',
      value: 'London',
    });
    assert.deepEqual(toCriteria(model), city);
  });

  it('reads every value kind as the builder edits it: text, a list, a boolean, a number or date as text', () => {
    const cases: [unknown, unknown][] = [
      [{ field: 'name', op: 'eq', value: 'Ada' }, 'Ada'],
      [{ field: 'name', op: 'ne', value: '' }, ''],
      [{ field: 'mbox', op: 'contains', value: '100%' }, '100%'],
      [{ field: 'openid', op: 'startsWith', value: 'https://' }, 'https://'],
      [{ field: 'objectType', op: 'in', value: ['Agent', 'Group', 'Agent'] }, ['Agent', 'Group', 'Agent']],
      [{ field: 'attributes.email', op: 'exists' }, true],
      [{ field: 'attributes.email', op: 'exists', value: true }, true],
      [{ field: 'attributes.email', op: 'exists', value: false }, false],
      [{ field: 'attributes.grade', op: 'lt', value: 3 }, '3'],
      [{ field: 'attributes.grade', op: 'lte', value: -0.5 }, '-0.5'],
      [{ field: 'attributes.grade', op: 'gt', value: 1e21 }, '1e+21'],
      [{ field: 'attributes.start', op: 'gte', value: '2024-02-29' }, '2024-02-29'],
      [{ field: 'attributes.start', op: 'gt', value: '2026-11-23T17:00:00.5+01:00' }, '2026-11-23T17:00:00.5+01:00'],
    ];
    for (const [criteria, value] of cases) {
      const read = modelOf(criteria).children[0] as ConditionNode;
      assert.deepEqual(read.value, value, JSON.stringify(criteria));
      assert.deepEqual(toCriteria(modelOf(criteria)), canonical(criteria as Criteria), JSON.stringify(criteria));
    }
    assert.deepEqual(roundTrip({ field: 'attributes.grade', op: 'gt', value: 1e21 }), { field: 'attributes.grade', op: 'gt', value: 1e21 });
    assert.equal(typeof (roundTrip({ field: 'attributes.grade', op: 'gt', value: 12 }) as { value: unknown }).value, 'number');
  });

  it('reads every field, an attribute name being everything after its prefix, dots included', () => {
    for (const choice of FIELD_CHOICES) {
      const criteriaField = choice.needsName ? `${choice.kind}.a.b c` : choice.kind;
      const read = modelOf({ field: criteriaField, op: 'exists' }).children[0] as ConditionNode;
      assert.equal(read.field, choice.kind);
      assert.equal(read.name, choice.needsName ? 'a.b c' : '');
      assert.deepEqual(toCriteria(modelOf({ field: criteriaField, op: 'exists' })), { field: criteriaField, op: 'exists' });
    }
    assert.deepEqual(parseField('organisation.ancestors.attributes.cost.centre'), {
      kind: 'organisation.ancestors.attributes',
      name: 'cost.centre',
    });
    assert.deepEqual(parseField('attributes.attributes.'), { kind: 'attributes', name: 'attributes.' });
    assert.equal(parseField('attributes.'), undefined);
    assert.equal(parseField('job.competencies.name'), undefined, 'case-sensitive, as the API');
  });

  it('reads not around a condition as a negated condition, and not around not as a negated group of one', () => {
    const once = modelOf({ not: city });
    assert.equal(once.negated, false);
    assert.equal(once.children[0].negated, true);
    assert.equal(once.children[0].type, 'condition');
    assert.deepEqual(toCriteria(once), { not: city });

    const twice = modelOf({ not: { not: city } });
    assert.equal(twice.negated, true);
    assert.equal(twice.children.length, 1);
    assert.deepEqual([twice.children[0].type, twice.children[0].negated], ['condition', true]);
    assert.deepEqual(toCriteria(twice), { not: { not: city } });
    for (const depth of [3, 4, MAX_DEPTH - 1]) assert.deepEqual(roundTrip(nested(depth, city)), nested(depth, city));
    assert.deepEqual(roundTrip(nested(MAX_DEPTH - 1, {})), nested(MAX_DEPTH - 1, {}), 'eight levels: the deepest the API takes');
  });

  it('reads not around a group as a negated group, and not around {} as a negated empty group', () => {
    const group = { not: { or: [city, { field: 'name', op: 'eq', value: 'Ada' }] } };
    const model = modelOf(group);
    assert.equal(model.negated, true);
    assert.equal(model.combinator, 'or');
    assert.deepEqual(toCriteria(model), group);
    const nobody = modelOf({ not: {} });
    assert.deepEqual(shape(nobody), { type: 'group', id: undefined, negated: true, combinator: 'and', children: [] });
    assert.deepEqual(toCriteria(nobody), { not: {} });
  });

  it('keeps nested and/or as they are, an empty {} inside included', () => {
    const criteria = {
      and: [
        { field: 'attributes.city', op: 'in', value: ['London', 'Paris'] },
        { or: [{ field: 'organisation.ancestors.id', op: 'eq', value: 'CTO' }, { not: { field: 'job.id', op: 'eq', value: 'J-1' } }, {}] },
        { and: [{ field: 'job.competencies.Name', op: 'contains', value: 'Rust' }, { not: {} }] },
      ],
    };
    assert.deepEqual(roundTrip(criteria), criteria);
  });

  it('writes an and/or of one node as that node, and exists true without its value', () => {
    assert.deepEqual(roundTrip({ and: [city] }), city);
    assert.deepEqual(roundTrip({ or: [{ and: [{ not: city }] }] }), { not: city });
    assert.deepEqual(roundTrip({ not: { and: [{ not: city }] } }), { not: { not: city } });
    assert.deepEqual(roundTrip({ or: [{}] }), {});
    assert.deepEqual(roundTrip({ field: 'name', op: 'exists', value: true }), { field: 'name', op: 'exists' });
    assert.deepEqual(roundTrip({ field: 'attributes.grade', op: 'gt', value: -0 }), { field: 'attributes.grade', op: 'gt', value: 0 });
  });

  it('writes back any criteria the API takes, but for the normalisations (property)', () => {
    fc.assert(
      fc.property(validCriteria, (criteria) => {
        assert.ok(readCriteria(criteria).ok, 'the generator makes valid criteria');
        const model = modelOf(criteria);
        const written = toCriteria(model);
        assert.deepEqual(written, canonical(criteria));
        assert.ok(readCriteria(written).ok, 'the API takes what the builder writes');
        assert.deepEqual(toCriteria(modelOf(written)), written, 'written criteria are a fixed point');
        assert.deepEqual(
          checkModel(model).filter((problem) => problem.severity === 'error'),
          [],
          'criteria the API takes show no error',
        );
      }),
      { numRuns: 400 },
    );
  });
});

describe('the criteria model: refusing criteria the API refuses', () => {
  it('names an unknown field, an unknown operator, a value of the wrong kind, with where', () => {
    const cases: [unknown, string, RegExp][] = [
      [{ and: [city, { field: 'salary', op: 'eq', value: 'x' }] }, '/and/1/field', /Unknown field "salary"/],
      [{ field: 'attributes.', op: 'eq', value: 'x' }, '/field', /Unknown field "attributes."/],
      [{ field: 7, op: 'eq', value: 'x' }, '/field', /The field must be a string, not a number/],
      [{ and: [city, { field: 'name', op: 'like', value: 'x' }] }, '/and/1/op', /Unknown operator "like": one of eq, ne, in, exists/],
      [{ field: 'name', value: 'x' }, '/op', /Unknown operator absent/],
      [{ field: 'name', op: 'eq', value: 3 }, '/value', /The value of eq must be a string, not a number/],
      [{ field: 'name', op: 'eq' }, '/value', /The value of eq must be a string, not absent/],
      [{ field: 'name', op: 'in', value: [] }, '/value', /The value of in must be an array of 1 to 1000 strings/],
      [{ field: 'name', op: 'in', value: 'Ada' }, '/value', /must be an array of 1 to 1000 strings, not a string/],
      [{ field: 'name', op: 'in', value: ['a', 'b', 'c', 4] }, '/value/3', /Each value of in must be a string, not a number/],
      [{ field: 'name', op: 'exists', value: 'yes' }, '/value', /The value of exists must be true, false or absent, not a string/],
      [{ field: 'attributes.grade', op: 'gt', value: '12' }, '/value', /The value of gt must be a number or an ISO 8601 date.*not "12"/],
      [{ field: 'attributes.start', op: 'gte', value: '2026-01-01T10:00' }, '/value', /date-time with its offset/],
      [{ field: 'attributes.start', op: 'lt', value: '2023-02-29' }, '/value', /not "2023-02-29"/],
      [{ field: 'name', op: 'eq', value: 'x', sort: 'name' }, '/sort', /"sort" is not a property of a condition/],
      [{ and: [city], or: [city] }, '/or', /"or" must not sit beside "and"/],
      [{ or: [] }, '/or', /"or" must be a non-empty array of criteria/],
      [{ not: null }, '/not', /Criteria must be an object .* not null/],
      [[city], '', /Criteria must be an object .* not an array/],
      [{ field: 'name', op: 'eq', value: 'x'.repeat(1001) }, '/value', /is longer than 1000 characters/],
      [{ field: 'name', op: 'eq', value: 'a\u0000b' }, '/value', /U\+0000/],
      [{ field: 'attributes.a~b/c', op: 'eq', value: '\ud800' }, '/value', /lone surrogate/],
      [nested(MAX_DEPTH, city), `${'/not'.repeat(MAX_DEPTH)}`, /Nested deeper than 8 levels/],
      [{ or: Array.from({ length: 100 }, () => city) }, '/or/99', /One node more than the 100 criteria may hold/],
    ];
    for (const [criteria, path, message] of cases) {
      const { error, path: found } = errorOf(criteria);
      assert.equal(found, path, JSON.stringify(criteria).slice(0, 80));
      assert.match(error, message);
      assert.ok(error.endsWith(`(at ${path || 'the top'}).`), error);
      const api = readCriteria(criteria);
      assert.ok(!api.ok && api.path === `/criteria${path}`, `the API names ${JSON.stringify(api)}`);
    }
  });

  it('refuses exactly what the API refuses, naming the same node (property)', () => {
    fc.assert(
      fc.property(fc.oneof(nearCriteria, validCriteria), (criteria) => {
        const api = readCriteria(criteria);
        const ours = fromCriteria(criteria);
        if (api.ok) assert.ok('model' in ours, `${'error' in ours ? ours.error : ''} for ${JSON.stringify(criteria)}`);
        else assert.equal('error' in ours ? `/criteria${ours.path}` : 'read', api.path, JSON.stringify(criteria));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the criteria model: problems shown before sending', () => {
  const problemsOf = (model: CriteriaModel) =>
    checkModel(model).map(({ where, part, severity, message }) => ({ where, part, severity, message }));

  it('names an attribute without a name, an empty in, a value a comparison cannot read', () => {
    const model = newGroup('and', [
      newCondition('attributes'),
      { ...newCondition('name'), op: 'in', value: [] },
      { ...newCondition('attributes'), name: 'grade', op: 'gt', value: 'ten' },
      { ...newCondition('job.id'), op: 'lt', value: '' },
      { ...newCondition('job.id'), op: 'lt', value: '1e400' },
      { ...newCondition('job.id'), op: 'lt', value: '2026-11-23T17:00' },
      { ...newCondition('job.id'), op: 'lt', value: '2026-02-30' },
      { ...newCondition('job.id'), op: 'lt', value: '1,5' },
      { ...newCondition('job.id'), op: 'lt', value: '2026-11-23T17:00:00+01:00' },
      { ...newCondition('job.id'), op: 'gte', value: '-0.5e3' },
    ]);
    assert.deepEqual(problemsOf(model), [
      { where: '1', part: 'name', severity: 'error', message: 'Name the attribute.' },
      { where: '1', part: 'value', severity: 'warning', message: 'No value written: this matches only an empty value.' },
      { where: '2', part: 'value', severity: 'error', message: 'Add at least one value.' },
      {
        where: '3',
        part: 'value',
        severity: 'error',
        message:
          'Not a number or a date: write a number as 12, -0.5 or 1e3 (a point, no spaces or thousands separators), a date as 2026-11-23, a date-time as 2026-11-23T17:00:00Z.',
      },
      { where: '4', part: 'value', severity: 'error', message: 'Write a number (12, -0.5) or a date (2026-11-23).' },
      { where: '5', part: 'value', severity: 'error', message: 'This number is too large.' },
      {
        where: '6',
        part: 'value',
        severity: 'error',
        message: 'A date-time needs its offset: Z (UTC) or +01:00, as in 2026-11-23T17:00Z.',
      },
      { where: '7', part: 'value', severity: 'error', message: 'No such day in that month.' },
      {
        where: '8',
        part: 'value',
        severity: 'error',
        message:
          'Not a number or a date: write a number as 12, -0.5 or 1e3 (a point, no spaces or thousands separators), a date as 2026-11-23, a date-time as 2026-11-23T17:00:00Z.',
      },
    ]);
    assert.ok(hasErrors(checkModel(model)));
    assert.deepEqual(
      (toCriteria(model) as { and: Criteria[] }).and[9],
      { field: 'job.id', op: 'gte', value: -500 },
      'a number is sent as one',
    );
  });

  it('warns, without refusing, of an empty value and an empty group', () => {
    const sub = newGroup('or');
    const model = newGroup('and', [
      { ...newCondition('name'), op: 'contains', value: '' },
      { ...newCondition('name'), op: 'ne', value: '' },
      sub,
      { ...newGroup('and'), negated: true },
    ]);
    const problems = checkModel(model);
    assert.equal(hasErrors(problems), false);
    assert.deepEqual(
      problems.map(({ id, where, message }) => [id === sub.id ? 'sub' : where, message]),
      [
        ['1', 'No value written: this matches every value.'],
        ['2', 'No value written: this matches every value but an empty one.'],
        ['sub', 'Empty: matches everyone.'],
        ['4', 'Empty under "not": matches no one.'],
      ],
    );
    assert.deepEqual(problemsOf(emptyModel()), [], 'an empty builder is everyone, and says nothing');
    assert.deepEqual(problemsOf({ ...emptyModel(), negated: true }), [
      { where: '', part: 'node', severity: 'warning', message: 'Empty under "not": matches no one.' },
    ]);
  });

  it('names values and fields the API would refuse as text', () => {
    const model = newGroup('and', [
      { ...newCondition('attributes'), name: 'x'.repeat(990) },
      { ...newCondition('name'), value: 'a\u0000' },
      { ...newCondition('name'), op: 'in', value: ['ok', '\udc00'] },
      { ...newCondition('name'), op: 'in', value: Array.from({ length: 1001 }, (_, i) => `v${i}`) },
    ]);
    assert.deepEqual(
      checkModel(model).map((problem) => `${problem.where} ${problem.part}: ${problem.message}`),
      [
        '1 name: The field (attributes.<name>) is longer than 1000 characters.',
        '1 value: No value written: this matches only an empty value.',
        '2 value: The value must not contain U+0000 (NUL).',
        '3 value: Value 2 must not contain a lone surrogate (U+D800-U+DFFF without its pair).',
        '4 value: At most 1000 values (1001 now).',
      ],
    );
  });

  it('names the outermost node nested deeper than eight levels as written', () => {
    // Groups of one take no level of their own: these are written as a bare condition.
    let flat: ModelNode = { ...newCondition('name'), value: 'x' };
    for (let i = 0; i < 20; i++) flat = newGroup('and', [flat]);
    assert.deepEqual(checkModel(newGroup('and', [flat])), []);

    const leaf = (): ConditionNode => ({ ...newCondition('name'), value: 'x' });
    const chain = (levels: number): ModelNode => (levels === 1 ? leaf() : newGroup('or', [leaf(), chain(levels - 1)]));
    assert.deepEqual(checkModel(chain(MAX_DEPTH) as CriteriaModel), []);
    const deep = chain(MAX_DEPTH + 2) as CriteriaModel;
    const problems = checkModel(deep);
    assert.deepEqual(
      problems.map(({ where, message }) => [where, message]),
      [
        ['2.2.2.2.2.2.2.1', 'Nested deeper than the 8 levels the search takes: move it up a level.'],
        ['2.2.2.2.2.2.2.2', 'Nested deeper than the 8 levels the search takes: move it up a level.'],
      ],
      'the ninth level: a condition, and a group whose conditions are not named again',
    );
    assert.equal(readCriteria(toCriteria(deep)).ok, false);
    assert.equal(readCriteria(toCriteria(chain(MAX_DEPTH) as CriteriaModel)).ok, true);

    const negated = { ...leaf(), negated: true };
    // One "not" more around the innermost condition of eight levels puts the condition on the ninth.
    const eight = modelOf(nested(MAX_DEPTH - 1, city));
    assert.deepEqual(checkModel(eight), []);
    let innermost: ModelNode = eight;
    while (innermost.type === 'group') innermost = innermost.children[0];
    const nine = replaceNode(eight, innermost.id, { ...newGroup('and', [innermost]), negated: true });
    assert.deepEqual(
      checkModel(nine).map(({ id, part }) => [id, part]),
      [[innermost.id, 'node']],
    );
    assert.equal(readCriteria(toCriteria(nine)).ok, false);
    const edge = newGroup('and', [newGroup('and', [leaf(), { ...newGroup('and', [leaf(), negated]), negated: true }])]);
    assert.equal(depthOf(toCriteria(edge)), 5);
    assert.deepEqual(checkModel(edge), []);
  });

  it('counts the nodes as the API does, and names more than a hundred', () => {
    const hundred = newGroup(
      'or',
      Array.from({ length: 99 }, () => ({ ...newCondition('name'), value: 'x' })),
    );
    assert.deepEqual(checkModel(hundred), []);
    const more = { ...hundred, children: [...hundred.children, { ...newCondition('name'), value: 'y', negated: true }] };
    const [problem] = checkModel(more);
    assert.equal(problem.id, more.id);
    assert.match(problem.message, /These criteria hold 102 parts .* at most 100\./);
    assert.equal(readCriteria(toCriteria(more)).ok, false);
  });
});

describe('the criteria model: editing', () => {
  it('offers every field with a label and every operator, and writes each field the API reads', () => {
    assert.deepEqual(
      FIELD_CHOICES.map((choice) => choice.kind),
      [...FIELD_KINDS],
    );
    assert.equal(new Set(FIELD_CHOICES.map((choice) => choice.label)).size, FIELD_CHOICES.length, 'labels tell the fields apart');
    for (const choice of FIELD_CHOICES) {
      assert.deepEqual(choice.ops, OPERATORS);
      const written = fieldText(choice.kind, 'dept');
      assert.deepEqual(parseField(written), { kind: choice.kind, name: choice.needsName ? 'dept' : '' });
      assert.ok(readCriteria({ field: written, op: 'exists' }).ok, written);
    }
    assert.deepEqual(Object.keys(OPERATOR_LABELS), [...OPERATORS]);
  });

  it('carries a value over when the operator changes', () => {
    const eq = { ...newCondition('name'), value: 'Ada' };
    const list = withOperator(eq, 'in');
    assert.deepEqual(list.value, ['Ada']);
    assert.equal(list.id, eq.id);
    assert.deepEqual(withOperator({ ...eq, value: '' }, 'in').value, []);
    assert.equal(withOperator({ ...list, value: ['Bea', 'Cy'] }, 'ne').value, 'Bea');
    assert.equal(withOperator(withOperator(eq, 'exists'), 'eq').value, '');
    assert.equal(withOperator(eq, 'exists').value, true);
    assert.equal(withOperator({ ...eq, value: '12' }, 'gte').value, '12');
    assert.deepEqual(withOperator(list, 'in'), list);
  });

  it('replaces, removes and finds nodes anywhere in the tree, leaving the rest as it was', () => {
    const inner = newCondition('name');
    const sub = newGroup('or', [inner, newCondition('job.id')]);
    const root = newGroup('and', [newCondition('mbox'), sub]);
    const renamed = replaceNode(root, inner.id, { ...inner, value: 'Ada' });
    assert.equal((findNode(renamed, inner.id) as ConditionNode).value, 'Ada');
    assert.equal(renamed.children[0], root.children[0], 'untouched nodes are the same objects');
    assert.equal((findNode(root, inner.id) as ConditionNode).value, '', 'the old model is unchanged');
    const removed = replaceNode(root, sub.id, null);
    assert.equal(removed.children.length, 1);
    assert.equal(findNode(removed, inner.id), undefined);
    const negatedRoot = replaceNode(root, root.id, { ...root, negated: true });
    assert.equal(negatedRoot.negated, true);
    assert.equal(replaceNode(root, root.id, null), root, 'the top group stays');
  });
});

describe('the criteria model: criteria in the address', () => {
  it('writes criteria as base64url JSON in q=, and reads them back', () => {
    const criteria = {
      and: [
        { field: 'attributes.city', op: 'in', value: ['London', 'Paris'] },
        { field: 'organisation.ancestors.id', op: 'eq', value: 'CTO' },
      ],
    };
    const model = modelOf(criteria);
    const search = withCriteriaParameter(new URLSearchParams('tenant=acme&page=2'), model);
    const encoded = search.get(CRITERIA_PARAMETER)!;
    assert.match(encoded, /^[A-Za-z0-9_-]+$/);
    assert.equal(search.get('tenant'), 'acme', 'the other parameters stay');
    assert.ok(search.toString().length < `q=${new URLSearchParams({ q: JSON.stringify(criteria) }).get('q')}`.length * 3);
    const read = readCriteriaParameter(new URLSearchParams(search.toString()));
    assert.ok('model' in read);
    assert.deepEqual(toCriteria(read.model), criteria);
  });

  it('leaves q out for everyone, and reads no q as everyone', () => {
    const search = withCriteriaParameter(new URLSearchParams('q=abc&tenant=acme'), emptyModel());
    assert.equal(search.toString(), 'tenant=acme');
    for (const search of ['tenant=acme', 'q=', 'q']) {
      const read = readCriteriaParameter(new URLSearchParams(search));
      assert.ok('model' in read, search);
      assert.deepEqual(toCriteria(read.model), {});
    }
  });

  it('reads a hand-written JSON q too', () => {
    const read = readCriteriaParameter(new URLSearchParams({ q: JSON.stringify(city) }));
    assert.ok('model' in read);
    assert.deepEqual(toCriteria(read.model), city);
  });

  it('says why a q cannot be read: cut short, changed, or not criteria', () => {
    const full = encodeCriteria({ field: 'attributes.city', op: 'eq', value: 'Zürich' });
    for (const q of [full.slice(0, -3), `${full}!`, 'a', '{"field":', encodeCriteria([1] as never).slice(0, 1), '_w']) {
      const read = readCriteriaParameter(new URLSearchParams({ q }));
      assert.ok('error' in read, q);
      assert.match(read.error, /The address's criteria|not valid/, q);
    }
    const invalid = readCriteriaParameter(
      new URLSearchParams({ q: encodeCriteria({ field: 'salary', op: 'eq', value: '1' } as Criteria) }),
    );
    assert.ok('error' in invalid);
    assert.equal(
      invalid.error,
      'The address\'s criteria are not valid: Unknown field "salary": docs/actors.md lists the fields (at /field).',
    );
    assert.deepEqual(decodeCriteria(''), { error: "The address's criteria (q=) cannot be read: the link was cut short or changed." });
  });

  it('keeps any criteria through the address (property)', () => {
    fc.assert(
      fc.property(validCriteria, (criteria) => {
        const written = toCriteria(modelOf(criteria));
        const search = withCriteriaParameter(new URLSearchParams(), modelOf(criteria));
        const read = readCriteriaParameter(new URLSearchParams(search.toString()));
        assert.ok('model' in read, 'error' in read ? read.error : '');
        assert.deepEqual(toCriteria(read.model), written);
      }),
      { numRuns: 200 },
    );
  });
});
