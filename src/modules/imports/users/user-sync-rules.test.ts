import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UserImportSummary } from './user-import.js';
import {
  allowedDeactivations,
  importModeOf,
  isUserImportMode,
  percent,
  syncRefusal,
  UserSyncErrors,
  withDeactivated,
} from './user-sync-rules.js';

describe('allowedDeactivations', () => {
  it('allows the share of the active people, rounded down', () => {
    assert.equal(allowedDeactivations(1_000, 0.1), 100);
    assert.equal(allowedDeactivations(999, 0.1), 99);
    assert.equal(allowedDeactivations(9, 0.1), 0);
    assert.equal(allowedDeactivations(0, 0.1), 0);
    assert.equal(allowedDeactivations(100_000, 1), 100_000);
    assert.equal(allowedDeactivations(100_000, 0), 0);
  });

  it('is not cut short by floating point: 0.29 of 100 is 29, 0.7 of 10 is 7', () => {
    assert.equal(allowedDeactivations(100, 0.29), 29);
    assert.equal(allowedDeactivations(10, 0.7), 7);
    assert.equal(allowedDeactivations(30, 0.1), 3);
  });
});

describe('syncRefusal', () => {
  it('lets a sync deactivate up to the share, and refuses one more', () => {
    assert.equal(syncRefusal({ active: 1_000, deactivating: 100 }, 0.1), undefined);
    assert.equal(syncRefusal({ active: 0, deactivating: 0 }, 0), undefined);
    const refused = syncRefusal({ active: 1_000, deactivating: 812 }, 0.1);
    assert.equal(refused?.code, 'imports.sync_guard');
    assert.equal(refused?.status, 400);
    assert.equal(
      refused?.message,
      'The sync would deactivate 812 of 1,000 people (81.2%), more than the allowed 10% (LEARNBASE_IMPORT_SYNC_MAX_SHARE): ' +
        'is the file cut short? Nothing was imported and nobody deactivated.',
    );
    assert.deepEqual(refused?.details, { deactivating: 812, activePeople: 1_000, share: 0.812, maxShare: 0.1 });
    assert.equal(syncRefusal({ active: 1_000, deactivating: 101 }, 0.1)?.code, 'imports.sync_guard');
  });

  it('refuses any deactivation with a share of 0, and none with a share of 1', () => {
    assert.equal(syncRefusal({ active: 100_000, deactivating: 1 }, 0)?.code, 'imports.sync_guard');
    assert.equal(syncRefusal({ active: 100_000, deactivating: 100_000 }, 1), undefined);
  });
});

describe('percent', () => {
  it('shows a share with at most one decimal', () => {
    assert.deepEqual([percent(0.1), percent(0.812), percent(0.0004), percent(1)], ['10%', '81.2%', '0%', '100%']);
  });
});

describe('UserSyncErrors.rowErrors', () => {
  it('names how many rows have errors and lists them', () => {
    const errors = [{ type: 'missing_name' as const, message: '"name" must be a non-empty string.', value: '', row: 4 }];
    const error = UserSyncErrors.rowErrors({ errorCount: 1, skipped: 1, errors });
    assert.equal(error.code, 'imports.sync_invalid_rows');
    assert.match(error.message, /^1 row of the sync has errors/);
    assert.deepEqual(error.details, { errorCount: 1, errors });
    assert.match(UserSyncErrors.rowErrors({ errorCount: 3, skipped: 2, errors }).message, /^2 rows of the sync have errors/);
  });
});

describe('withDeactivated', () => {
  it('adds the count after `existing`', () => {
    const summary: UserImportSummary = {
      rows: 2,
      new: 1,
      existing: 1,
      skipped: 0,
      errorCount: 0,
      warningCount: 0,
      errors: [],
      warnings: [],
    };
    assert.deepEqual(Object.entries(withDeactivated(summary, 3)).slice(0, 5), [
      ['rows', 2],
      ['new', 1],
      ['existing', 1],
      ['deactivated', 3],
      ['skipped', 0],
    ]);
  });
});

describe('isUserImportMode', () => {
  it('knows merge and sync only', () => {
    assert.deepEqual(['merge', 'sync', 'Sync', 'replace', undefined, 1].map(isUserImportMode), [true, true, false, false, false, false]);
  });
});

describe('importModeOf', () => {
  it('an outer sync wins over the body; an outer merge or none leaves the body its say', () => {
    assert.equal(importModeOf('sync', 'merge'), 'sync');
    assert.equal(importModeOf('merge', 'sync'), 'sync');
    assert.equal(importModeOf(undefined, 'sync'), 'sync');
    assert.equal(importModeOf(undefined, 'merge'), 'merge');
    assert.equal(importModeOf('merge', 'merge'), 'merge');
  });
});
