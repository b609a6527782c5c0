import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  COMPLIANCE_OF_STATUS,
  complianceFigures,
  completionRate,
  dateRange,
  dayInstant,
  fillIntervals,
  isRangeProblem,
  noCompliance,
  rollUp,
  unitPage,
  weekStartOf,
  type DateRange,
} from './report-rules.js';
import { entryTree } from '../../organisation/index.js';

describe('completionRate', () => {
  it('is completed pairs over people × activities, null when there is no pair', () => {
    assert.equal(completionRate(3, 4, 3), 0.25);
    assert.equal(completionRate(0, 2, 1), 0);
    assert.equal(completionRate(0, 0, 5), null);
    assert.equal(completionRate(0, 5, 0), null);
  });
});

describe('rollUp', () => {
  /** Every entry's sums, in the entries' order. */
  const all = (list: ReadonlyArray<{ id: string; parentId?: string }>, direct: Map<string, { people: number; completed: number }>) => {
    const sums = rollUp(entryTree(list), direct, { people: 0, completed: 0 });
    return list.map((entry) => [entry.id, sums(entry.id)]);
  };
  const entries = [{ id: 'R' }, { id: 'A', parentId: 'R' }, { id: 'A1', parentId: 'A' }, { id: 'B', parentId: 'R' }];

  it('sums each entry’s own counts into it and every ancestor', () => {
    const direct = new Map([
      ['R', { people: 1, completed: 1 }],
      ['A1', { people: 2, completed: 3 }],
      ['B', { people: 4, completed: 0 }],
    ]);
    assert.deepEqual(all(entries, direct), [
      ['R', { people: 7, completed: 4 }],
      ['A', { people: 2, completed: 3 }],
      ['A1', { people: 2, completed: 3 }],
      ['B', { people: 4, completed: 0 }],
    ]);
  });

  it('takes an entry whose parent is not among the entries as a root, and ignores counts of entries not among them', () => {
    const subtree = entries.filter((entry) => entry.id.startsWith('A'));
    const direct = new Map([
      ['A1', { people: 2, completed: 1 }],
      ['R', { people: 9, completed: 9 }],
    ]);
    assert.deepEqual(all(subtree, direct), [
      ['A', { people: 2, completed: 1 }],
      ['A1', { people: 2, completed: 1 }],
    ]);
  });

  it('counts every entry once into each entry of a cycle (which imports refuse) and stops', () => {
    const cycle = [
      { id: 'X', parentId: 'Y' },
      { id: 'Y', parentId: 'X' },
    ];
    const direct = new Map([['X', { people: 1, completed: 0 }]]);
    assert.deepEqual(all(cycle, direct), [
      ['X', { people: 1, completed: 0 }],
      ['Y', { people: 1, completed: 0 }],
    ]);
  });
});

describe('unitPage', () => {
  const entries = [{ id: 'R' }, { id: 'A', parentId: 'R' }, { id: 'A1', parentId: 'A' }, { id: 'B', parentId: 'R' }, { id: 'S' }];

  it('keeps the entries at most depth levels below the top, then cuts the page', () => {
    const ids = (page: { depth?: number; limit: number; skip: number }) => {
      const { shown, total } = unitPage(entryTree(entries), page);
      return { shown: shown.map((entry) => entry.id), total };
    };
    assert.deepEqual(ids({ depth: 0, limit: 10, skip: 0 }), { shown: ['R', 'S'], total: 2 });
    assert.deepEqual(ids({ depth: 1, limit: 10, skip: 0 }), { shown: ['R', 'A', 'B', 'S'], total: 4 });
    assert.deepEqual(ids({ limit: 2, skip: 1 }), { shown: ['A', 'A1'], total: 5 });
  });

  it('counts a subtree’s entries from its own top, and an entry on a cycle from where its walk meets itself', () => {
    assert.deepEqual(
      unitPage(entryTree(entries.slice(1, 3)), { depth: 0, limit: 10, skip: 0 }).shown.map((entry) => entry.id),
      ['A'],
    );
    const cycle = [
      { id: 'X', parentId: 'Y' },
      { id: 'Y', parentId: 'X' },
      { id: 'Z', parentId: 'Y' },
    ];
    assert.deepEqual([...entryTree(cycle).levels], [1, 0, 1]);
  });
});

describe('rollUp of compliance counts', () => {
  it('sums every field of the counts into each ancestor', () => {
    const entries = [{ id: 'R' }, { id: 'A', parentId: 'R' }, { id: 'B', parentId: 'R' }];
    const direct = new Map([
      ['A', { ...noCompliance(), onTime: 2, overdue: 1 }],
      ['B', { ...noCompliance(), late: 1, notStarted: 3 }],
    ]);
    assert.deepEqual(rollUp(entryTree(entries), direct, noCompliance())('R'), {
      onTime: 2,
      late: 1,
      overdue: 1,
      inProgress: 0,
      notStarted: 3,
    });
    assert.deepEqual(rollUp(entryTree(entries), direct, noCompliance())('B'), { ...noCompliance(), late: 1, notStarted: 3 });
  });
});

describe('complianceFigures', () => {
  it('adds the total and onTime / total, null when there is no pair', () => {
    assert.deepEqual(complianceFigures({ onTime: 1, late: 1, overdue: 1, inProgress: 0, notStarted: 1 }), {
      onTime: 1,
      late: 1,
      overdue: 1,
      inProgress: 0,
      notStarted: 1,
      total: 4,
      complianceRate: 0.25,
    });
    assert.equal(complianceFigures(noCompliance()).complianceRate, null);
  });

  it('names each assignment status once', () => {
    assert.deepEqual(Object.values(COMPLIANCE_OF_STATUS).sort(), ['inProgress', 'late', 'notStarted', 'onTime', 'overdue']);
  });
});

describe('dateRange', () => {
  const range = (from: string, to: string, interval: 'day' | 'week') => dateRange(from, to, interval) as DateRange;

  it('answers every day from from to to, both counted', () => {
    assert.deepEqual(range('2026-02-27', '2026-03-01', 'day'), {
      first: '2026-02-27',
      last: '2026-03-01',
      intervals: [
        { start: '2026-02-27', end: '2026-02-27' },
        { start: '2026-02-28', end: '2026-02-28' },
        { start: '2026-03-01', end: '2026-03-01' },
      ],
    });
  });

  it('widens weeks to whole ISO weeks, Monday to Sunday, across a year’s end', () => {
    assert.deepEqual(range('2026-12-31', '2027-01-05', 'week'), {
      first: '2026-12-28',
      last: '2027-01-10',
      intervals: [
        { start: '2026-12-28', end: '2027-01-03' },
        { start: '2027-01-04', end: '2027-01-10' },
      ],
    });
    assert.equal(range('2026-11-23', '2026-11-23', 'week').intervals.length, 1);
  });

  it('allows to at most 366 days after from', () => {
    assert.equal(range('2024-01-01', '2025-01-01', 'day').intervals.length, 367);
    assert.deepEqual(dateRange('2024-01-01', '2025-01-02', 'day'), {
      parameter: 'to',
      message: 'to (2025-01-02) is more than 366 days after from (2024-01-01)',
    });
  });

  it('stays within four-digit years: a week ending after 9999-12-31 is refused, naming the latest to', () => {
    assert.deepEqual(dateRange('9999-12-01', '9999-12-31', 'week'), {
      parameter: 'to',
      message:
        'with interval=week the range widens to whole weeks, Monday to Sunday, and the week of to (9999-12-31) ends after 9999-12-31, the last day a report covers: with weeks, to is 9999-12-26 at the latest (or ask for interval=day)',
    });
    assert.ok(isRangeProblem(dateRange('9999-12-27', '9999-12-27', 'week')));
    assert.equal(range('9999-12-20', '9999-12-26', 'week').last, '9999-12-26');
    assert.equal(range('9999-12-01', '9999-12-31', 'day').intervals.length, 31);
    assert.deepEqual(range('0001-01-01', '0001-01-08', 'week').intervals, [
      { start: '0001-01-01', end: '0001-01-07' },
      { start: '0001-01-08', end: '0001-01-14' },
    ]);
  });

  it('refuses days that are not days, and to before from', () => {
    for (const [from, to, parameter] of [
      ['2026-02-29', '2026-03-01', 'from'],
      ['2026-13-01', '2026-03-01', 'from'],
      ['0000-01-01', '0000-01-02', 'from'],
      ['2026-03-01', '2026-04-31', 'to'],
      ['2026-03-02', '2026-03-01', 'to'],
    ]) {
      const problem = dateRange(from, to, 'day');
      assert.ok(isRangeProblem(problem), `${from} ${to}`);
      assert.equal(problem.parameter, parameter, `${from} ${to}`);
    }
    assert.equal(dayInstant('2024-02-29'), Date.UTC(2024, 1, 29));
    assert.equal(weekStartOf('2024-02-29'), '2024-02-26');
  });
});

describe('fillIntervals', () => {
  it('answers every interval with every verb of the range, zeros where nothing was counted', () => {
    const range = dateRange('2026-03-01', '2026-03-03', 'day') as DateRange;
    const filled = fillIntervals(
      range,
      [
        { start: '2026-03-01', verbId: 'http://v/b', count: 2 },
        { start: '2026-03-03', verbId: 'http://v/a', count: 1 },
        { start: '2026-03-03', verbId: 'http://v/b', count: 1 },
        { start: '2026-03-03', verbId: 'http://v/gone', count: 0 },
      ],
      [
        { start: '2026-03-01', count: 1 },
        { start: '2026-03-03', count: 2 },
      ],
    );
    assert.deepEqual(filled, {
      verbs: ['http://v/a', 'http://v/b'],
      intervals: [
        { start: '2026-03-01', end: '2026-03-01', statements: 2, activeLearners: 1, verbs: { 'http://v/a': 0, 'http://v/b': 2 } },
        { start: '2026-03-02', end: '2026-03-02', statements: 0, activeLearners: 0, verbs: { 'http://v/a': 0, 'http://v/b': 0 } },
        { start: '2026-03-03', end: '2026-03-03', statements: 2, activeLearners: 2, verbs: { 'http://v/a': 1, 'http://v/b': 1 } },
      ],
    });
  });
});
