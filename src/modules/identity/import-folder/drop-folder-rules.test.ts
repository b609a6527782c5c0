import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, badRequest } from '../../../platform/http/app-error.js';
import {
  classifyName,
  claimedName,
  claimIdOf,
  claimOf,
  countsOf,
  finishedName,
  importedResult,
  isComplete,
  isRefusal,
  refusedResult,
  resultName,
  retryDelayMs,
  usersModeOf,
  watch,
} from './drop-folder-rules.js';

describe('usersModeOf', () => {
  it('syncs a users file named users-sync followed by a dot, a dash or an underscore, in any case', () => {
    for (const name of ['users-sync.csv', 'users-sync.json', 'Users-Sync-2026-11-28.CSV', 'USERS-SYNC_hr.json']) {
      assert.equal(usersModeOf(name), 'sync', name);
      assert.deepEqual(classifyName(name), { kind: 'users' }, name);
    }
  });

  it('merges every other users file, however close its name', () => {
    for (const name of ['users.csv', 'users-2026.json', 'users-syncing.csv', 'users sync.csv', 'users_sync.csv', 'sync-users.csv']) {
      assert.equal(usersModeOf(name), 'merge', name);
    }
  });
});

describe('classifyName', () => {
  it('names the kind by the start and the end of the name, in any case', () => {
    for (const [name, kind] of [
      ['users.csv', 'users'],
      ['users.json', 'users'],
      ['Users-2024-05-01.CSV', 'users'],
      ['USERS_hr export.Json', 'users'],
      ['organisation.json', 'organisation'],
      ['Organisation-positions.JSON', 'organisation'],
      ['jobs.json', 'jobs'],
      ['jobs 2024.json', 'jobs'],
    ] as const) {
      assert.deepEqual(classifyName(name), { kind }, name);
    }
  });

  it('leaves alone without a word the files copying tools are still writing', () => {
    for (const name of ['.users.csv', '.users.csv.Xy12ab', 'users.csv.tmp', 'users.csv.part', 'users.csv.PART', 'jobs.json.TMP']) {
      assert.deepEqual(classifyName(name), { skip: 'writing' }, name);
    }
  });

  it('takes nothing else: other names, organisation or jobs as CSV, a kind in the middle of the name', () => {
    for (const name of [
      'people.csv',
      'users.xlsx',
      'users.csv.bak',
      'organisation.csv',
      'jobs.csv',
      'my-users.csv',
      'organization.json',
      'users',
      'README',
    ]) {
      assert.deepEqual(classifyName(name), { skip: 'unknown' }, name);
    }
  });

  it('takes no name too long to be claimed (the claim adds 35 bytes to it)', () => {
    assert.deepEqual(classifyName(`users${'x'.repeat(191)}.csv`), { kind: 'users' });
    assert.deepEqual(classifyName(`users${'x'.repeat(192)}.csv`), { skip: 'too_long' });
    assert.deepEqual(classifyName(`users${'é'.repeat(96)}.csv`), { skip: 'too_long' });
  });
});

describe('watch and isComplete', () => {
  const stableMs = 3_000;

  it('takes a file renamed in complete at the first look, when nothing wrote it for stableMs', () => {
    const watched = watch(undefined, { size: 10, mtimeMs: 1_000 }, 4_000);
    assert.equal(isComplete(watched, 4_000, stableMs), true);
  });

  it('waits while a file grows, and takes it once it has not changed for stableMs', () => {
    let watched = watch(undefined, { size: 10, mtimeMs: 9_900 }, 10_000);
    assert.equal(isComplete(watched, 10_000, stableMs), false);
    watched = watch(watched, { size: 20, mtimeMs: 11_900 }, 12_000);
    assert.equal(watched.since, 12_000);
    assert.equal(isComplete(watched, 12_000, stableMs), false);
    watched = watch(watched, { size: 20, mtimeMs: 11_900 }, 14_000);
    assert.equal(watched.since, 12_000, 'an unchanged look keeps the time it was first so');
    assert.equal(isComplete(watched, 14_000, stableMs), false);
    watched = watch(watched, { size: 20, mtimeMs: 11_900 }, 14_900);
    assert.equal(isComplete(watched, 14_900, stableMs), true);
  });

  it('counts a change of the time alone as a change (a rewrite of the same size)', () => {
    const first = watch(undefined, { size: 10, mtimeMs: 9_900 }, 10_000);
    const rewritten = watch(first, { size: 10, mtimeMs: 10_900 }, 11_000);
    assert.equal(rewritten.since, 11_000);
  });

  it('takes a file whose time is ahead of the clock once looks found it unchanged for stableMs', () => {
    let watched = watch(undefined, { size: 10, mtimeMs: 60_000 }, 10_000);
    assert.equal(isComplete(watched, 10_000, stableMs), false);
    watched = watch(watched, { size: 10, mtimeMs: 60_000 }, 13_000);
    assert.equal(isComplete(watched, 13_000, stableMs), true);
  });

  it('with stableMs 0 takes every file at once', () => {
    assert.equal(isComplete(watch(undefined, { size: 1, mtimeMs: 5_000 }, 5_000), 5_000, 0), true);
  });
});

describe('claim names', () => {
  it('makes the claim id of the UTC time to the second and 8 random hex digits', () => {
    assert.equal(claimIdOf(new Date('2024-05-01T09:30:07.123Z'), '1a2b3c4d'), '20240501T093007Z-1a2b3c4d');
  });

  it('reads back the claim of a claimed name, whatever dots the file name holds', () => {
    const claim = { claimId: '20240501T093007Z-1a2b3c4d', owner: '0f0f0f0f', file: 'users.2024.05.csv' };
    const name = claimedName(claim);
    assert.equal(name, '20240501T093007Z-1a2b3c4d.0f0f0f0f.users.2024.05.csv');
    assert.deepEqual(claimOf(name), claim);
  });

  it('reads no claim from a name no process gave', () => {
    for (const name of [
      'users.csv',
      '20240501T093007Z-1a2b3c4d.users.csv',
      '20240501T093007Z-1a2b3c4d.0f0f0f0f.',
      'x.0f0f0f0f.users.csv',
    ]) {
      assert.equal(claimOf(name), undefined, name);
    }
  });

  it('names the finished file by its claim id and its own name, and its result beside it', () => {
    const finished = finishedName({ claimId: '20240501T093007Z-1a2b3c4d', file: 'Users.CSV' });
    assert.equal(finished, '20240501T093007Z-1a2b3c4d.Users.CSV');
    assert.equal(resultName(finished), '20240501T093007Z-1a2b3c4d.Users.CSV.result.json');
  });
});

describe('isRefusal, retryDelayMs and the result files', () => {
  it('refuses a file for the 400, 413 and 415 of a body bad as a whole; anything else is tried again', () => {
    assert.equal(isRefusal(badRequest('imports.invalid_json', 'x')), true);
    assert.equal(isRefusal(new AppError('imports.file_too_large', 413, 'x')), true);
    assert.equal(isRefusal(new AppError('imports.unsupported_charset', 415, 'x')), true);
    assert.equal(isRefusal(new AppError('database.conflict', 409, 'x')), false);
    assert.equal(isRefusal(new AppError('database.unavailable', 503, 'x')), false);
    assert.equal(isRefusal(Object.assign(new Error('duplicate key'), { code: '23505' })), false);
    assert.equal(isRefusal(Object.assign(new Error('no such file'), { code: 'ENOENT' })), false);
  });

  it('states a refusal as the API answers it, details only when there are some', () => {
    const facts = { file: 'users.json', tenant: 'acme', kind: 'users', claim: '20240501T093007Z-1a2b3c4d', sha256: 'ab' } as const;
    assert.deepEqual(refusedResult(facts, badRequest('imports.invalid_body', 'No users.', { field: 'users' })), {
      ...facts,
      status: 'refused',
      error: { code: 'imports.invalid_body', message: 'No users.', details: { field: 'users' } },
    });
    assert.deepEqual(refusedResult(facts, badRequest('imports.invalid_json', 'Not JSON.')), {
      ...facts,
      status: 'refused',
      error: { code: 'imports.invalid_json', message: 'Not JSON.' },
    });
  });

  it('states an import with its time and summary, and logs the summary without its messages', () => {
    const facts = { file: 'jobs.json', tenant: 'acme', kind: 'jobs', claim: '20240501T093007Z-1a2b3c4d', sha256: 'ab' } as const;
    assert.deepEqual(importedResult(facts, { importedAt: new Date('2024-05-01T09:30:08Z'), summary: { entries: 3 } }), {
      ...facts,
      status: 'imported',
      importedAt: '2024-05-01T09:30:08.000Z',
      summary: { entries: 3 },
    });
    assert.deepEqual(countsOf({ rows: 2, new: 1, skipped: 1, errors: [{ row: 2 }], warnings: [] }), { rows: 2, new: 1, skipped: 1 });
  });

  it('waits twice as long after each failure, from the poll interval to a minute', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 10].map((attempts) => retryDelayMs(attempts, 2_000)),
      [2_000, 4_000, 8_000, 16_000, 60_000],
    );
  });
});
