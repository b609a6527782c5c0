import { SqlValues } from '../../../platform/database/sql-filters.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileCriteria, escapeLike, readCriteria, readsAsDate, readsAsNumber, type Criteria } from './actor-search-compiler.js';

const read = (criteria: unknown): Criteria => {
  const reading = readCriteria(criteria);
  assert.ok(reading.ok, JSON.stringify(reading));
  return reading.criteria;
};
const compile = (
  criteria: unknown,
  links: { organisationAttribute: string | null; jobAttribute: string | null; positionJobAttribute?: string | null } = {
    organisationAttribute: 'position',
    jobAttribute: 'job',
  },
) => {
  const parameters = new SqlValues(['tenant']);
  const sql = compileCriteria(read(criteria), { tenantParameter: '$1', ...links }, parameters);
  return { sql, values: parameters.values };
};

describe('readCriteria', () => {
  it('reads conditions, combinators and {} and fills exists’ value', () => {
    assert.deepEqual(read({}), { all: true });
    assert.deepEqual(read({ field: 'name', op: 'exists' }), { field: 'name', op: 'exists', value: true });
    assert.deepEqual(read({ not: { field: 'attributes.a', op: 'gt', value: 3 } }), {
      not: { field: 'attributes.a', op: 'gt', value: { kind: 'number', value: 3 } },
    });
    assert.deepEqual(read({ and: [{ field: 'attributes.d', op: 'lt', value: '2026-01-01' }] }), {
      and: [{ field: 'attributes.d', op: 'lt', value: { kind: 'date', value: '2026-01-01' } }],
    });
  });

  it('names the first bad node by its JSON pointer, escaping ~ and /', () => {
    assert.deepEqual(readCriteria({ or: [{}, { field: 'x', op: 'eq', value: '' }] }), {
      ok: false,
      path: '/criteria/or/1/field',
      message: 'names no field: "x" (docs/actors.md lists them)',
    });
    const extra = readCriteria({ field: 'name', op: 'eq', value: 'x', 'a/~b': 1 });
    assert.equal(!extra.ok && extra.path, '/criteria/a~1~0b');
  });
});

describe('compileCriteria', () => {
  it('binds every value and attribute name, never splicing them into the text', () => {
    const hostile = "x'; DROP TABLE actors; --";
    const { sql, values } = compile({
      and: [
        { field: `attributes.${hostile}`, op: 'ne', value: hostile },
        { field: 'organisation.ancestors.attributes.k', op: 'in', value: [hostile] },
        { field: 'job.competencies.Name', op: 'contains', value: hostile },
      ],
    });
    assert.ok(!sql.includes('DROP'), sql);
    assert.ok(values.some((value) => value === hostile));
  });

  it('uses the GIN-friendly @> for eq on an attribute, and IS NOT TRUE for not', () => {
    const { sql, values } = compile({ not: { field: 'attributes.department', op: 'eq', value: 'Sales' } });
    assert.equal(sql, '(((a.attributes @> $2::jsonb)) IS NOT TRUE)');
    assert.deepEqual(values, ['tenant', '{"department":"Sales"}']);
  });

  it('makes enrichment conditions false when the tenant has no link setting', () => {
    const { sql } = compile({ field: 'organisation.id', op: 'exists' }, { organisationAttribute: null, jobAttribute: null });
    assert.equal(sql, '(false)');
  });

  it('binds exactly the values its text uses, for job fields with any link settings (the position’s job included)', () => {
    const settings = [
      { organisationAttribute: null, jobAttribute: null, positionJobAttribute: 'job' },
      { organisationAttribute: 'position', jobAttribute: null, positionJobAttribute: null },
      { organisationAttribute: 'position', jobAttribute: 'jobCode', positionJobAttribute: null },
      { organisationAttribute: 'position', jobAttribute: null, positionJobAttribute: 'job' },
      { organisationAttribute: 'position', jobAttribute: 'jobCode', positionJobAttribute: 'job' },
    ];
    const conditions = [
      { field: 'job.id', op: 'eq', value: 'J1' },
      { field: 'job.id', op: 'in', value: ['J1', 'J2'] },
      { field: 'job.name', op: 'contains', value: 'x' },
      { field: 'job.competencies.Name', op: 'eq', value: 'SQL' },
      { field: 'job.attributes.grade', op: 'gt', value: 3 },
      { field: 'job.id', op: 'exists', value: false },
    ];
    for (const links of settings) {
      for (const condition of conditions) {
        const { sql, values } = compile(condition, links);
        const used = new Set([...sql.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
        // The tenant's $1 only where something is compared.
        const bound = values.map((_, i) => i + 1).filter((n) => n > 1 || used.has(1));
        assert.deepEqual(
          [...used].sort((a, b) => a - b),
          bound,
          `${JSON.stringify(links)} ${JSON.stringify(condition)}: ${sql}`,
        );
      }
    }
    assert.equal(compile({ field: 'job.id', op: 'eq', value: 'J1' }, settings[0]).sql, '(false)', 'no organisationAttribute, no position');
  });
});

describe('values', () => {
  it('escapes LIKE wildcards', () => assert.equal(escapeLike('100%_a\\b'), '100\\%\\_a\\\\b'));
  it('reads numbers as JSON writes them, within numeric’s range', () => {
    for (const text of ['0', '-1.5', '12.50', '1e3', '2E-7']) assert.ok(readsAsNumber(text), text);
    for (const text of ['', ' 1', '+1', '01', '1.', '.5', '0x10', 'NaN', '1e9999', '1,5']) assert.ok(!readsAsNumber(text), text);
  });
  it('reads real days and date-times with offsets', () => {
    for (const text of ['2024-02-29', '2026-11-23T17:00Z', '2026-11-23T17:00:00.123456789+14:59']) assert.ok(readsAsDate(text), text);
    for (const text of [
      '2023-02-29',
      '2026-04-31',
      '0000-01-01',
      '2026-11-23T17:00:00',
      '2026-11-23T24:00:00Z',
      '2026-11-23T23:59:60Z',
      '2026-11-23T10:00+15:00',
    ]) {
      assert.ok(!readsAsDate(text), text);
    }
  });
});
