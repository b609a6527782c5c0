import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentTypeOf, summaryRows, summarySentence, type UserImportSummary } from '../../console/src/lib/import-summary.js';

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
