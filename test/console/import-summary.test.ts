import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkRows,
  checkSentence,
  contentTypeOf,
  examplesText,
  problemRows,
  type StructureCheck,
  summaryRows,
  summarySentence,
  type UserImportSummary,
} from '../../console/src/lib/import-summary.js';

/** The console's import summary table (console/src/lib/import-summary.ts): the rows it shows and the sentence above them. */
const summary = (over: Partial<UserImportSummary> = {}): UserImportSummary => ({
  rows: 3,
  new: 1,
  existing: 1,
  skipped: 1,
  errorCount: 1,
  warningCount: 2,
  errors: [{ type: 'missing_name', message: '"name" must be a non-empty string.', value: '', row: 2 }],
  warnings: [
    { type: 'unknown_job', message: 'No job "J-X".', value: 'J-X', row: 3 },
    { type: 'unknown_organisation', message: 'No entry "P-9".', value: 'P-9', row: 1 },
  ],
  ...over,
});

describe('the console: the import summary table', () => {
  it('lists errors and warnings by row, with what each is', () => {
    assert.deepEqual(
      summaryRows(summary()).map((row) => [row.row, row.severity, row.type, row.value]),
      [
        [1, 'warning', 'unknown_organisation', 'P-9'],
        [2, 'error', 'missing_name', ''],
        [3, 'warning', 'unknown_job', 'J-X'],
      ],
    );
  });

  it('puts a row’s errors before its warnings, keeps the API’s order within each, and gives every row its own key', () => {
    const rows = summaryRows({
      errors: [
        { type: 'b', message: 'second error', row: 4 },
        { type: 'a', message: 'first error', row: 4 },
      ],
      warnings: [{ type: 'w', message: 'a warning', row: 4 }],
    });
    assert.deepEqual(
      rows.map((row) => row.message),
      ['second error', 'first error', 'a warning'],
    );
    assert.equal(new Set(rows.map((row) => row.key)).size, 3);
    assert.equal(rows[2]!.value, '', 'a message without a value shows none');
  });

  it('is empty for a clean file', () => {
    assert.deepEqual(summaryRows({ errors: [], warnings: [] }), []);
  });

  it('says in one sentence what a check would do and what an import did', () => {
    assert.equal(summarySentence(summary(), true), '3 rows: 1 new and 1 existing would be imported, 1 skipped for errors, 2 warnings.');
    assert.equal(
      summarySentence(summary({ rows: 1, new: 1, existing: 0, skipped: 0, warningCount: 0 }), false),
      '1 row: 1 new and 0 existing were imported, 0 skipped for errors.',
    );
    assert.match(summarySentence(summary({ deactivated: 4 }), false), /4 were deactivated/);
  });

  it('sends a .csv file as CSV and anything else as JSON', () => {
    assert.equal(contentTypeOf('people.CSV'), 'text/csv; charset=utf-8');
    assert.equal(contentTypeOf('people.json'), 'application/json');
    assert.equal(contentTypeOf('people'), 'application/json');
  });
});

const check = (over: Partial<StructureCheck> = {}): StructureCheck => ({
  verify: true,
  entries: 10_000,
  added: 12,
  removed: 3,
  changed: 40,
  unchanged: 9_945,
  people: { linked: 9_000, unlinked: 25 },
  examples: {
    added: ['P-1', 'P-2'],
    removed: ['OPS', 'OPS-1', 'OPS-2'],
    changed: [],
    unlinked: [{ agentKey: 'account|https://hr.example.com|E1', name: 'Ada Lovelace' }, { agentKey: 'mbox|mailto:x@example.com' }],
  },
  ...over,
});

describe('the console: the check of an organisation or jobs file', () => {
  it('says in one sentence what would change and how many would lose their position or job', () => {
    assert.equal(
      checkSentence(check(), 'organisation'),
      '10,000 entries: 12 new, 3 removed, 40 changed; 25 people would lose their position.',
    );
    assert.equal(
      checkSentence(
        check({ entries: 1, added: 1, removed: 0, changed: 0, people: { linked: 1, unlinked: 1 }, competencies: { added: 1 } }),
        'jobs',
      ),
      '1 job: 1 new, 0 removed, 0 changed; 1 person would lose their job; 1 competency new to the catalogue.',
    );
  });

  it('lists each kind of change that happens with its first examples, people first, and how many more', () => {
    assert.deepEqual(
      checkRows(check(), 'organisation').map((row) => [row.key, row.change, row.count, row.examples]),
      [
        [
          'unlinked',
          'People who would lose their position',
          25,
          'Ada Lovelace (account|https://hr.example.com|E1), mbox|mailto:x@example.com and 23 more',
        ],
        ['added', 'New', 12, 'P-1, P-2 and 10 more'],
        ['removed', 'Removed', 3, 'OPS, OPS-1, OPS-2'],
        ['changed', 'Changed', 40, ''],
      ],
    );
    const jobs = checkRows(check({ competencies: { added: 2 }, examples: { ...check().examples, competencies: ['Go', 'Rust'] } }), 'jobs');
    assert.deepEqual(jobs.at(-1), { key: 'competencies', change: 'Competencies new to the catalogue', count: 2, examples: 'Go, Rust' });
    assert.equal(jobs[0]!.change, 'People who would lose their job');
    assert.deepEqual(checkRows(check({ added: 0, removed: 0, changed: 0, people: { linked: 3, unlinked: 0 } }), 'organisation'), []);
    assert.equal(examplesText([], 0), '');
  });

  it('reads the problems of a refused file from the error’s details, ignoring anything else', () => {
    assert.deepEqual(
      problemRows({
        problems: [
          { index: 0, id: 'A', problem: '`parentId` "B" names no entry of this import' },
          { index: 1, problem: 'the entry must be an object' },
          'junk',
        ],
      }).map((row) => [row.index, row.id, row.problem]),
      [
        [0, 'A', '`parentId` "B" names no entry of this import'],
        [1, '', 'the entry must be an object'],
      ],
    );
    assert.deepEqual(problemRows(undefined), []);
    assert.deepEqual(problemRows({ field: 'verify' }), []);
  });
});
