import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { StorageError } from './storage-error.js';
import { LOCK_FILE, acquireFolderLock, kernelLockName } from './folder-lock.js';

const MODULE = fileURLToPath(new URL('./folder-lock.ts', import.meta.url));
/** How long before the common instant each racer stops sleeping and spins (see racer). */
const SPIN_MS = 250;
const folders: string[] = [];
const children: ChildProcess[] = [];
const newFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'learnbase-folder-lock-'));
  folders.push(folder);
  return folder;
};
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A pid that certainly belongs to no live process: a child we started and waited for. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid!;
}

async function refusal(attempt: Promise<unknown>): Promise<StorageError> {
  const error = await attempt.then(
    () => assert.fail('the folder was locked twice'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof StorageError);
  assert.equal(error.code, 'database.folder_in_use');
  assert.equal(error.kind, 'folder_in_use');
  return error;
}

/**
 * A bare process that tries to lock `folder` at the wall-clock instant `at`, so that several collide
 * within the same millisecond; it prints `locked` and holds on, or prints the error code and exits 3.
 * It sleeps until SPIN_MS before the instant and spins only for that last stretch: six racers
 * spinning for the whole wait burnt seconds of CPU a round, which the test file running beside
 * this one on a 2-core machine waited for.
 */
function racer(folder: string, at: number): { child: ChildProcess; outcome: Promise<string>; exited: Promise<unknown> } {
  const script = `
    const { acquireFolderLock } = await import(${JSON.stringify(MODULE)});
    await new Promise((resolve) => setTimeout(resolve, ${at} - ${SPIN_MS} - Date.now()));
    while (Date.now() < ${at});
    try {
      await acquireFolderLock(${JSON.stringify(folder)});
      process.stdout.write('locked\\n');
      setInterval(() => {}, 1000);
    } catch (error) {
      process.stdout.write(String(error.code) + '\\n');
      process.exit(3);
    }`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  const outcome = new Promise<string>((resolve) => {
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('close', (code) => resolve(out.trim() || `exited ${code}`));
  });
  const exited = new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve(null)));
  return { child, outcome, exited };
}

describe('acquireFolderLock', () => {
  it('refuses a folder already locked, names the owner, and frees it on release', async () => {
    const folder = newFolder();
    const lock = await acquireFolderLock(folder);
    assert.equal(readFileSync(join(folder, LOCK_FILE), 'utf8'), String(process.pid));
    const error = await refusal(acquireFolderLock(folder));
    assert.match(error.message, new RegExp(`The data folder ${folder} is in use by another learnbase process`));
    assert.match(error.message, /use a PostgreSQL database \(--database URL\)/);

    await lock.release();
    assert.ok(!existsSync(join(folder, LOCK_FILE)), 'release removes the lock file');
    const again = await acquireFolderLock(folder);
    await again.release();
  });

  it('takes over a lock file left by a dead process', async () => {
    const folder = newFolder();
    writeFileSync(join(folder, LOCK_FILE), String(await deadPid()));
    const lock = await acquireFolderLock(folder);
    assert.equal(readFileSync(join(folder, LOCK_FILE), 'utf8'), String(process.pid));
    await lock.release();
  });

  it('refuses a folder whose lock file names another live process, as an older learnbase leaves it', async () => {
    const folder = newFolder();
    writeFileSync(join(folder, LOCK_FILE), String(process.ppid));
    const error = await refusal(acquireFolderLock(folder));
    assert.match(error.message, new RegExp(`\\(pid ${process.ppid}\\)`));
    assert.equal(readFileSync(join(folder, LOCK_FILE), 'utf8'), String(process.ppid), 'the file is left to its owner');
    // The refusal let go of the kernel-held name too: once the owner is gone the folder opens.
    rmSync(join(folder, LOCK_FILE));
    await (await acquireFolderLock(folder)).release();
  });

  it('names the lock after the folder, by a name the kernel frees with the process where there is one', () => {
    assert.match(kernelLockName('/srv/a', 'linux')!, /^\0learnbase-[0-9a-f]{64}$/);
    assert.equal(kernelLockName('/srv/a', 'linux'), kernelLockName('/srv/a', 'linux'));
    assert.notEqual(kernelLockName('/srv/a', 'linux'), kernelLockName('/srv/b', 'linux'));
    assert.match(kernelLockName('C:\\data', 'win32')!, /^\\\\\.\\pipe\\learnbase-[0-9a-f]{64}$/);
    assert.equal(kernelLockName('/srv/a', 'darwin'), undefined);
  });

  it('lets exactly one of several processes colliding on a folder whose owner was killed take it', {
    skip: process.platform !== 'linux',
  }, async () => {
    const folder = newFolder();
    writeFileSync(join(folder, LOCK_FILE), String(await deadPid()));
    for (let round = 1; round <= 6; round++) {
      const at = Date.now() + 2_500;
      const racers = Array.from({ length: 6 }, () => racer(folder, at));
      const outcomes = await Promise.all(racers.map((r) => r.outcome));
      assert.equal(outcomes.filter((o) => o === 'locked').length, 1, `round ${round}: ${outcomes.join(', ')}`);
      assert.equal(outcomes.filter((o) => o === 'database.folder_in_use').length, 5, `round ${round}: ${outcomes.join(', ')}`);
      // The next round collides on the lock of a winner killed with no chance to clean up.
      racers[outcomes.indexOf('locked')].child.kill('SIGKILL');
      await Promise.all(racers.map((r) => r.exited));
    }
  });
});
