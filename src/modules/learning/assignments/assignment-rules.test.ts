import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ACTOR_IDS, MAX_PROBLEMS, readAssignmentBody, readStatusFilter, selectionCriteria } from './assignment-rules.js';

const valid = { name: 'Fire safety', activityIds: ['https://example.com/a'], people: { jobId: 'J-ENG' } };
const problemsOf = (body: unknown) => {
  const reading = readAssignmentBody(body);
  assert.equal(reading.ok, false, JSON.stringify(body).slice(0, 200));
  return reading.ok ? [] : reading.problems;
};
const pathsOf = (body: unknown) => problemsOf(body).map((problem) => problem.path);

describe('readAssignmentBody', () => {
  it('reads a valid body: the selection it holds, actor ids canonical, the due date as an instant', () => {
    const reading = readAssignmentBody({
      ...valid,
      people: { actorIds: [`mbox_sha1sum|${'A'.repeat(40)}`, 'account|https://hr.example.com|E1'] },
      dueAt: '2026-12-31T18:00:00+01:00',
    });
    assert.ok(reading.ok);
    assert.equal(reading.input.selection, 'actorIds');
    assert.deepEqual(reading.input.people, { actorIds: [`mbox_sha1sum|${'a'.repeat(40)}`, 'account|https://hr.example.com|E1'] });
    assert.equal(reading.input.dueAt?.toISOString(), '2026-12-31T17:00:00.000Z');
    const none = readAssignmentBody({ ...valid, dueAt: null });
    assert.ok(none.ok);
    assert.equal(none.input.dueAt, null);
    assert.equal(none.input.selection, 'jobId');
  });

  it('names every problem by its JSON pointer', () => {
    assert.deepEqual(pathsOf({ name: ' ', activityIds: ['a', 'a', ''], people: { criteria: {}, jobId: 'J' }, dueAt: '2026-12-31', x: 1 }), [
      '/x',
      '/name',
      '/activityIds/1',
      '/activityIds/2',
      '/people',
      '/dueAt',
    ]);
    assert.deepEqual(pathsOf({ ...valid, people: { 'a/b~c': 1 } }), ['/people/a~1b~0c', '/people']);
    assert.deepEqual(pathsOf([]), ['']);
    assert.deepEqual(pathsOf({ ...valid, people: { criteria: { and: [{}, { field: 'nope', op: 'eq', value: 'x' }] } } }), [
      '/people/criteria/and/1/field',
    ]);
    assert.deepEqual(pathsOf({ ...valid, people: { organisationId: 'x'.repeat(256) } }), ['/people/organisationId']);
    assert.deepEqual(pathsOf({ ...valid, people: { jobId: 7 } }), ['/people/jobId']);
  });

  it('refuses actor ids past the bound, malformed or repeated (the same person spelt twice), listing at most MAX_PROBLEMS', () => {
    assert.deepEqual(
      pathsOf({ ...valid, people: { actorIds: Array.from({ length: MAX_ACTOR_IDS + 1 }, (_, i) => `mbox|mailto:${i}@x.org`) } }),
      ['/people/actorIds'],
    );
    assert.deepEqual(pathsOf({ ...valid, people: { actorIds: [`mbox_sha1sum|${'a'.repeat(40)}`, `mbox_sha1sum|${'A'.repeat(40)}`] } }), [
      '/people/actorIds/1',
    ]);
    const many = problemsOf({ ...valid, people: { actorIds: Array.from({ length: 500 }, () => 'nonsense') } });
    assert.equal(many.length, MAX_PROBLEMS);
  });

  it('takes a date-time only with its offset, and a real day', () => {
    for (const dueAt of ['2026-12-31T17:00:00', '2026-12-31', '2026-02-29T00:00:00Z', 1_800_000_000_000, true]) {
      assert.deepEqual(pathsOf({ ...valid, dueAt }), ['/dueAt'], String(dueAt));
    }
  });
});

describe('selectionCriteria', () => {
  it('an organisation subtree is the entry or any entry below it; a job its id; actor ids none', () => {
    assert.deepEqual(selectionCriteria({ organisationId: 'CTO' }), {
      or: [
        { field: 'organisation.id', op: 'eq', value: 'CTO' },
        { field: 'organisation.ancestors.id', op: 'eq', value: 'CTO' },
      ],
    });
    assert.deepEqual(selectionCriteria({ jobId: 'J-ENG' }), { field: 'job.id', op: 'eq', value: 'J-ENG' });
    assert.equal(selectionCriteria({ actorIds: ['mbox|mailto:a@x.org'] }), undefined);
    assert.deepEqual(selectionCriteria({ criteria: {} }), { all: true });
  });
});

describe('readStatusFilter', () => {
  it('reads comma-separated statuses, each once, and names one not in the list', () => {
    assert.deepEqual(readStatusFilter(undefined), { ok: true });
    assert.deepEqual(readStatusFilter('overdue, assigned,overdue'), { ok: true, statuses: ['overdue', 'assigned'] });
    const bad = readStatusFilter('completed,in-progress');
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.message, /"in-progress"/);
  });
});
