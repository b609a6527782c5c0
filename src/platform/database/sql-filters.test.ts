import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SqlFilter } from './sql-filters.js';

describe('SqlFilter', () => {
  it('starts with the conditions and values it is given', () => {
    const where = new SqlFilter(['tenant-a'], 'tenant_id = $1');
    assert.equal(where.clause, 'WHERE tenant_id = $1');
    assert.deepEqual(where.values, ['tenant-a']);
  });

  it('adds an optional condition only for a value given, numbering placeholders in order', () => {
    const since = new Date('2026-01-31T12:00:00Z');
    const where = new SqlFilter(['tenant-a'], 'tenant_id = $1')
      .andIf(undefined, (p) => `actor_key = ${p}`)
      .andIf('hr-sync', (p) => `source = ${p}`)
      .andIf(since, (p) => `at > ${p}`);
    assert.equal(where.clause, 'WHERE tenant_id = $1 AND source = $2 AND at > $3');
    assert.deepEqual(where.values, ['tenant-a', 'hr-sync', since]);
  });

  it('binds null, false, 0 and the empty string: only undefined leaves a filter out', () => {
    const where = new SqlFilter()
      .andIf(null, (p) => `a = ${p}`)
      .andIf(false, (p) => `b = ${p}`)
      .andIf(0, (p) => `c = ${p}`)
      .andIf('', (p) => `d = ${p}`);
    assert.equal(where.clause, 'WHERE a = $1 AND b = $2 AND c = $3 AND d = $4');
    assert.deepEqual(where.values, [null, false, 0, '']);
  });

  it('never puts a value into the text, whatever it holds', () => {
    const hostile = "x' OR '1'='1";
    const where = new SqlFilter(['tenant-a'], 'tenant_id = $1').andIf(hostile, (p) => `channel = ${p}`);
    assert.equal(where.clause, 'WHERE tenant_id = $1 AND channel = $2');
    assert.ok(!where.clause.includes(hostile));
    assert.deepEqual(where.values, ['tenant-a', hostile]);
  });

  it('takes conditions written around several bound placeholders, and arrays as one value', () => {
    const where = new SqlFilter(['tenant-a'], 'k.tenant_id = $1', 'NOT s.voided');
    where.and(`k.kind = ${where.bind('g')} AND k.key = ${where.bind('mbox|mailto:ada@example.com')}`, 'k.reach <= 0');
    where.and(`tags @> ${where.bind(['safety'])}::text[]`);
    assert.equal(
      where.clause,
      'WHERE k.tenant_id = $1 AND NOT s.voided AND k.kind = $2 AND k.key = $3 AND k.reach <= 0 AND tags @> $4::text[]',
    );
    assert.deepEqual(where.values, ['tenant-a', 'g', 'mbox|mailto:ada@example.com', ['safety']]);
  });

  it('appends the order and the page after the conditions, binding limit and then skip', () => {
    const where = new SqlFilter(['tenant-a'], 'tenant_id = $1').andIf('email', (p) => `channel = ${p}`);
    const text = `SELECT id FROM notifications ${where.clause} ${where.paged('timestamp DESC, seq DESC', { limit: 100, skip: 200 })}`;
    assert.equal(
      text,
      'SELECT id FROM notifications WHERE tenant_id = $1 AND channel = $2 ORDER BY timestamp DESC, seq DESC LIMIT $3 OFFSET $4',
    );
    assert.deepEqual(where.values, ['tenant-a', 'email', 100, 200]);
  });

  it('answers no clause without conditions', () => {
    const where = new SqlFilter();
    assert.equal(where.clause, '');
    assert.equal(where.paged('id', { limit: 1, skip: 0 }), 'ORDER BY id LIMIT $1 OFFSET $2');
    assert.deepEqual(where.values, [1, 0]);
  });

  it('copies the values it starts with', () => {
    const initial = ['tenant-a'];
    new SqlFilter(initial, 'tenant_id = $1').andIf('x', (p) => `a = ${p}`);
    assert.deepEqual(initial, ['tenant-a']);
  });
});
