import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../../kernel/formats.js';
import {
  activations,
  activeLearnerTotals,
  isoWeekStart,
  learnerRowKey,
  tallyDeltas,
  tallyOf,
  weekDeltas,
} from './statement-tally-rules.js';

const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';
const COURSE = 'https://example.com/course';

const statement = (overrides: JsonObject = {}): JsonObject => ({
  id: '00000000-0000-4000-8000-000000000001',
  actor: { mbox: 'mailto:ada@example.com' },
  verb: { id: COMPLETED },
  object: { id: COURSE },
  timestamp: '2026-03-01T23:30:00-01:00',
  stored: '2026-03-05T10:00:00.000Z',
  ...overrides,
});

describe('isoWeekStart', () => {
  it('answers the Monday of the ISO week, across months and years', () => {
    assert.equal(isoWeekStart('2026-11-23'), '2026-11-23'); // a Monday
    assert.equal(isoWeekStart('2026-11-29'), '2026-11-23'); // its Sunday
    assert.equal(isoWeekStart('2026-03-01'), '2026-02-23');
    assert.equal(isoWeekStart('2027-01-01'), '2026-12-28');
    assert.equal(isoWeekStart('2024-02-29'), '2024-02-26');
  });
});

describe('tallyOf', () => {
  it('counts a statement on the UTC day of its timestamp, under its verb and object activity', () => {
    // 23:30 at -01:00 is 00:30 UTC the next day.
    assert.deepEqual(tallyOf(statement()), {
      day: '2026-03-02',
      week: '2026-03-02',
      verbId: COMPLETED,
      activityId: COURSE,
      learners: ['mbox|mailto:ada@example.com'],
    });
    // Without an offset a timestamp is UTC; a comma may stand for the point.
    assert.equal(tallyOf(statement({ timestamp: '2026-03-01T23:59:59,999' })).day, '2026-03-01');
  });

  it('gives an object that is not an activity the activity ""', () => {
    for (const object of <JsonObject[]>[
      { objectType: 'Agent', mbox: 'mailto:b@example.com' },
      { objectType: 'StatementRef', id: '00000000-0000-4000-8000-000000000002' },
      { objectType: 'SubStatement', actor: { mbox: 'mailto:c@example.com' }, verb: { id: COMPLETED }, object: { id: COURSE } },
    ]) {
      assert.equal(tallyOf(statement({ object })).activityId, '', JSON.stringify(object));
    }
    assert.equal(tallyOf(statement({ object: { objectType: 'Activity', id: COURSE } })).activityId, COURSE);
  });

  it('takes a group’s identified members as its learners, each once, and never the group’s own identifier', () => {
    const group: JsonObject = {
      objectType: 'Group',
      mbox: 'mailto:team@example.com',
      member: [
        { mbox: 'mailto:ada@example.com' },
        { objectType: 'Agent', account: { homePage: 'https://hr.example.com', name: 'E1' } },
        { mbox: 'mailto:ada@example.com' },
      ],
    };
    assert.deepEqual(tallyOf(statement({ actor: group })).learners, ['mbox|mailto:ada@example.com', 'account|https://hr.example.com|E1']);
    assert.deepEqual(tallyOf(statement({ actor: { objectType: 'Group', mbox: 'mailto:team@example.com' } })).learners, []);
  });
});

describe('tallyDeltas', () => {
  it('sums per row, per learner and day, and per day and verb, each statement once in the last', () => {
    const group: JsonObject = { objectType: 'Group', member: [{ mbox: 'mailto:ada@example.com' }, { mbox: 'mailto:bob@example.com' }] };
    const deltas = tallyDeltas(
      [
        statement(),
        statement({ id: '00000000-0000-4000-8000-000000000002' }),
        statement({ id: '00000000-0000-4000-8000-000000000003', actor: group }),
      ],
      [],
    );
    assert.deepEqual(deltas.statements, [{ day: '2026-03-02', verbId: COMPLETED, delta: 3 }]);
    assert.deepEqual(
      deltas.tallies.map((row) => [row.learner, row.delta]),
      [
        ['mbox|mailto:ada@example.com', 3],
        ['mbox|mailto:bob@example.com', 1],
      ],
    );
    assert.deepEqual(
      deltas.days.map((row) => [row.period, row.start, row.learner, row.delta]),
      [
        ['d', '2026-03-02', 'mbox|mailto:ada@example.com', 3],
        ['d', '2026-03-02', 'mbox|mailto:bob@example.com', 1],
      ],
    );
  });

  it('tallies a statement without a learner under "", with no learner rows', () => {
    const deltas = tallyDeltas([statement({ actor: { objectType: 'Group', mbox: 'mailto:team@example.com' } })], []);
    assert.deepEqual(
      deltas.tallies.map((row) => row.learner),
      [''],
    );
    assert.deepEqual(deltas.days, []);
    assert.equal(deltas.statements[0].delta, 1);
  });

  it('takes out what a voided statement counted, and leaves out rows a write adds and takes back', () => {
    const voided = statement({ id: '00000000-0000-4000-8000-000000000009', verb: { id: 'http://example.com/verbs/tried' } });
    const deltas = tallyDeltas([statement(), voided], [voided]);
    assert.deepEqual(
      deltas.statements.map((row) => [row.verbId, row.delta]),
      [[COMPLETED, 1]],
    );
    assert.equal(deltas.tallies.length, 1);
    const removedOnly = tallyDeltas([], [statement()]);
    assert.deepEqual(
      removedOnly.days.map((row) => row.delta),
      [-1],
    );
  });
});

describe('activations, weekDeltas and activeLearnerTotals', () => {
  const ada = 'mbox|mailto:ada@example.com';
  const bob = 'mbox|mailto:bob@example.com';

  it('counts a learner active when its first statements of a day arrive and inactive when its last are voided', () => {
    const changes = [
      { period: 'd' as const, start: '2026-03-02', learner: ada, delta: 2 },
      { period: 'd' as const, start: '2026-03-02', learner: bob, delta: 1 },
      { period: 'd' as const, start: '2026-03-03', learner: ada, delta: -1 },
      { period: 'd' as const, start: '2026-03-03', learner: bob, delta: -1 },
    ];
    const after = new Map([
      [learnerRowKey('d', '2026-03-02', ada), 2], // new that day
      [learnerRowKey('d', '2026-03-02', bob), 4], // had 3 already
      [learnerRowKey('d', '2026-03-03', ada), 0], // its last one voided
      [learnerRowKey('d', '2026-03-03', bob), 5], // some left
    ]);
    const days = activations(changes, after);
    assert.deepEqual(days, [
      { period: 'd', start: '2026-03-02', learner: ada, delta: 1 },
      { period: 'd', start: '2026-03-03', learner: ada, delta: -1 },
    ]);
    // Ada gained a day and lost one of the same week: her week row does not change.
    assert.deepEqual(weekDeltas(days), []);
    assert.deepEqual(activeLearnerTotals(days), [
      { period: 'd', start: '2026-03-02', delta: 1 },
      { period: 'd', start: '2026-03-03', delta: -1 },
    ]);
  });

  it('changes a learner’s week row by the days it became active or inactive in that week', () => {
    const days = [
      { period: 'd' as const, start: '2026-03-08', learner: ada, delta: 1 as const }, // a Sunday
      { period: 'd' as const, start: '2026-03-09', learner: ada, delta: 1 as const }, // the next Monday
      { period: 'd' as const, start: '2026-03-03', learner: ada, delta: 1 as const },
      { period: 'd' as const, start: '2026-03-03', learner: bob, delta: -1 as const },
    ];
    const weeks = weekDeltas(days);
    assert.deepEqual(weeks, [
      { period: 'w', start: '2026-03-02', learner: ada, delta: 2 },
      { period: 'w', start: '2026-03-02', learner: bob, delta: -1 },
      { period: 'w', start: '2026-03-09', learner: ada, delta: 1 },
    ]);
    const after = new Map([
      [learnerRowKey('w', '2026-03-02', ada), 3], // active already that week
      [learnerRowKey('w', '2026-03-02', bob), 0], // no active day left
      [learnerRowKey('w', '2026-03-09', ada), 1], // new that week
    ]);
    assert.deepEqual(activeLearnerTotals(activations(weeks, after)), [
      { period: 'w', start: '2026-03-02', delta: -1 },
      { period: 'w', start: '2026-03-09', delta: 1 },
    ]);
  });
});
