import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { betterStatus, foldFacts, parentLinks, statementCompletion, type CompletionFact } from './completion-rules.js';

const ADL = 'http://adlnet.gov/expapi/verbs/';
let n = 0;
const statement = (verb: string, extra: Record<string, unknown> = {}, at = '2026-01-01T10:00:00Z') => ({
  id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  actor: { objectType: 'Agent', mbox: 'mailto:ada@example.com', name: 'Ada' },
  verb: { id: verb.includes(':') ? verb : `${ADL}${verb}` },
  object: { id: 'http://example.com/course' },
  timestamp: at,
  ...extra,
});
const fact = (s: Record<string, unknown>) => statementCompletion(s)?.fact as CompletionFact;
const CMI5_PROGRESS = 'https://w3id.org/xapi/cmi5/result/extensions/progress';

describe('statementCompletion', () => {
  it('maps verbs to statuses', () => {
    for (const [verb, status] of [
      ['launched', 'in-progress'],
      ['initialized', 'in-progress'],
      ['attempted', 'in-progress'],
      ['progressed', 'in-progress'],
      ['completed', 'completed'],
      ['passed', 'passed'],
      ['failed', 'failed'],
    ]) {
      assert.equal(fact(statement(verb)).status, status, verb);
    }
  });

  it('reads result.completion, result.success, the progress extensions and the score', () => {
    assert.equal(fact(statement('http://example.com/verbs/finished', { result: { completion: true } })).status, 'completed');
    assert.equal(fact(statement('http://example.com/verbs/answered', { result: { success: false } })).status, 'failed');
    assert.equal(fact(statement('completed', { result: { success: true } })).status, 'passed');
    const progressed = fact(
      statement('progressed', {
        result: { extensions: { 'https://w3id.org/xapi/cmi5/result/extensions/progress': 40 }, score: { scaled: 0.4 } },
      }),
    );
    assert.equal(progressed.progress, 40);
    assert.deepEqual(progressed.score, { scaled: 0.4 });
    assert.equal(
      fact(statement('http://example.com/verbs/x', { result: { extensions: { 'http://id.tincanapi.com/extension/progress': 10 } } }))
        .progress,
      10,
    );
    assert.equal(
      fact(statement('progressed', { result: { extensions: { 'https://w3id.org/xapi/cmi5/result/extensions/progress': 140 } } })).progress,
      undefined,
    );
  });

  it('completes with verb completed or passed, result.completion or result.success true; passes with verb passed or result.success true', () => {
    const outcome = (s: Record<string, unknown>) => [fact(s).completes, fact(s).passes];
    assert.deepEqual(outcome(statement('completed')), [true, false]);
    assert.deepEqual(outcome(statement('passed')), [true, true]);
    assert.deepEqual(outcome(statement('failed')), [false, false]);
    for (const verb of ['launched', 'initialized', 'attempted', 'progressed'])
      assert.deepEqual(outcome(statement(verb)), [false, false], verb);
    const answered = (result: Record<string, unknown>) => statement('http://example.com/verbs/answered', { result });
    assert.deepEqual(outcome(answered({ completion: true })), [true, false]);
    assert.deepEqual(outcome(answered({ success: true })), [true, true]);
    assert.deepEqual(outcome(answered({ success: false })), [false, false]);
    assert.deepEqual(outcome(answered({ completion: false, success: false })), [false, false]);
    // Failed by the best-status rule, and still completed.
    const completedFailed = fact(answered({ completion: true, success: false }));
    assert.equal(completedFailed.status, 'failed');
    assert.deepEqual([completedFailed.completes, completedFailed.passes], [true, false]);
    assert.deepEqual(outcome(statement('completed', { result: { success: false } })), [true, false]);
    assert.deepEqual(outcome(statement('failed', { result: { completion: true } })), [true, false]);
    // Only the boolean true counts, as for the status.
    assert.deepEqual(outcome(answered({ completion: 'true', success: 1, extensions: { [CMI5_PROGRESS]: 100 } })), [false, false]);
    // Saying nothing about status, a statement makes no fact at all.
    assert.equal(statementCompletion(answered({ completion: false })), undefined);
  });

  it('says nothing for other verbs, non-Activity objects, and gives one key per agent of a group', () => {
    assert.equal(statementCompletion(statement('http://example.com/verbs/experienced')), undefined);
    assert.equal(statementCompletion(statement('completed', { object: { objectType: 'Agent', mbox: 'mailto:x@y.z' } })), undefined);
    const group = statementCompletion(
      statement('completed', {
        actor: { objectType: 'Group', mbox: 'mailto:team@x.y', member: [{ mbox: 'mailto:a@x.y' }, { mbox: 'mailto:b@x.y' }] },
        context: { registration: 'ABCDEF00-0000-4000-8000-000000000000' },
      }),
    );
    assert.deepEqual(
      group?.keys.map((key) => [key.agentKey, key.registration]),
      [
        ['mbox|mailto:team@x.y', 'abcdef00-0000-4000-8000-000000000000'],
        ['mbox|mailto:a@x.y', 'abcdef00-0000-4000-8000-000000000000'],
        ['mbox|mailto:b@x.y', 'abcdef00-0000-4000-8000-000000000000'],
      ],
    );
  });
});

describe('foldFacts', () => {
  const key = {
    agentKey: 'mbox|mailto:ada@example.com',
    activityId: 'http://example.com/course',
    registration: '',
    actor: { mbox: 'mailto:ada@example.com' },
  };

  it('never downgrades: passed > failed > completed > in-progress, in any order', () => {
    assert.equal(betterStatus('passed', 'failed'), 'passed');
    assert.equal(betterStatus('completed', 'in-progress'), 'completed');
    const facts = [
      fact(statement('launched', {}, '2026-01-01T10:00:00Z')),
      fact(statement('passed', { result: { score: { raw: 80 } } }, '2026-01-01T11:00:00Z')),
      fact(statement('failed', { result: { score: { raw: 20 } } }, '2026-01-01T10:30:00+01:00')),
      fact(
        statement(
          'progressed',
          { result: { extensions: { 'https://w3id.org/xapi/cmi5/result/extensions/progress': 60 } } },
          '2026-01-01T10:10:00Z',
        ),
      ),
      fact(
        statement(
          'progressed',
          { result: { extensions: { 'https://w3id.org/xapi/cmi5/result/extensions/progress': 30 } } },
          '2026-01-01T10:20:00Z',
        ),
      ),
    ];
    for (const order of [facts, [...facts].reverse()]) {
      const record = foldFacts(key, order)!;
      assert.equal(record.status, 'passed');
      assert.equal(record.progress, 60);
      assert.deepEqual(record.score, { raw: 80 });
      assert.equal(record.firstAt, '2026-01-01T09:30:00.000Z');
      assert.equal(record.lastAt, '2026-01-01T11:00:00.000Z');
      assert.equal(record.statementIds.length, 5);
    }
    assert.equal(foldFacts(key, []), undefined);
  });

  it('completedAt and passedAt: the earliest completing and passing statements, in any order; absent without one', () => {
    const facts = [
      fact(statement('launched', {}, '2026-01-01T08:00:00Z')),
      fact(statement('passed', {}, '2026-01-01T11:00:00Z')),
      fact(statement('completed', {}, '2026-01-01T10:30:00Z')),
      fact(statement('failed', {}, '2026-01-01T09:00:00Z')),
      fact(statement('http://example.com/verbs/answered', { result: { completion: true, success: false } }, '2026-01-01T11:15:00+02:00')),
      fact(statement('http://example.com/verbs/answered', { result: { success: true } }, '2026-01-01T10:45:00Z')),
      fact(statement('completed', {}, '2026-01-01T12:00:00Z')),
    ];
    const orders = [facts, [...facts].reverse(), [facts[3], facts[6], facts[0], facts[2], facts[5], facts[1], facts[4]]];
    for (const order of orders) {
      const record = foldFacts(key, order)!;
      assert.equal(record.completedAt, '2026-01-01T09:15:00.000Z');
      assert.equal(record.passedAt, '2026-01-01T10:45:00.000Z');
      assert.equal(record.status, 'passed');
    }
    const inProgress = foldFacts(key, [facts[0], facts[3]])!;
    assert.equal('completedAt' in inProgress, false);
    assert.equal('passedAt' in inProgress, false);
    // A completed record without a pass; then passed later, by a statement with an older timestamp.
    const completed = foldFacts(key, [facts[0], facts[6]])!;
    assert.deepEqual([completed.completedAt, completed.passedAt], ['2026-01-01T12:00:00.000Z', undefined]);
    const passed = foldFacts(key, [facts[0], facts[6], facts[5]])!;
    assert.deepEqual([passed.completedAt, passed.passedAt], ['2026-01-01T10:45:00.000Z', '2026-01-01T10:45:00.000Z']);
    // The same statement twice changes nothing.
    assert.deepEqual(foldFacts(key, [facts[2], facts[2]]), foldFacts(key, [facts[2]]));
  });
});

describe('parentLinks', () => {
  it('reads contextActivities.parent, one or many', () => {
    assert.deepEqual(
      parentLinks(statement('completed', { context: { contextActivities: { parent: [{ id: 'http://example.com/p' }] } } })),
      [{ activityId: 'http://example.com/course', parentId: 'http://example.com/p' }],
    );
    assert.deepEqual(parentLinks(statement('completed', { context: { contextActivities: { parent: { id: 'http://example.com/q' } } } })), [
      { activityId: 'http://example.com/course', parentId: 'http://example.com/q' },
    ]);
    assert.deepEqual(parentLinks(statement('completed')), []);
  });
});
