import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { StorageError } from './storage-error.js';

/** The file naming the owner's pid, for the error message, for people, and for older learnbase versions. */
export const LOCK_FILE = 'learnbase.lock';

export interface FolderLock {
  /** Gives the folder up; call it after the database is closed. */
  release(): Promise<void>;
}

/**
 * A PGlite folder may be opened by one process only: a second writer corrupts it and loses
 * acknowledged writes. The lock is a name the kernel holds for us and frees the instant the process
 * dies, even on `kill -9`: on Linux a Unix socket bound in the abstract namespace, on Windows a named
 * pipe, both named after the folder's real path. Binding is atomic, so of several processes starting
 * at once exactly one gets it, and there is never a stale lock to judge and take over (judging a pid
 * file stale, deleting it and creating a new one is the race this replaces: two processes could both
 * judge, and the slower one deleted the faster one's fresh lock).
 *
 * Under that lock we also write `learnbase.lock` with our pid, and refuse the folder if it names
 * another live process: that second layer catches an older learnbase that only knows the file, or
 * a process in another network namespace (another container sharing the volume, same pid namespace),
 * which does not see our abstract socket. Only one process of our namespace can be past the bind, so
 * checking and rewriting the file is not raced among them.
 *
 * Other platforms (macOS, the BSDs) have neither abstract sockets nor a flock() Node can reach; there
 * the file alone is the lock, with its stale takeover racy as before.
 */
export async function acquireFolderLock(folder: string): Promise<FolderLock> {
  const lockFile = join(folder, LOCK_FILE);
  const name = kernelLockName(realpathSync(folder));
  if (name === undefined) {
    claimLockFile(lockFile, folder);
    return { release: async () => removeOwnLockFile(lockFile) };
  }

  const server = await bind(name).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'EADDRINUSE' ? folderInUse(folder, liveOwner(lockFile)) : error;
  });
  try {
    const owner = liveOwner(lockFile);
    if (owner !== undefined) throw folderInUse(folder, owner);
    // Written aside and renamed into place, so a process reading it for its error message never sees it half written.
    const staging = `${lockFile}.${process.pid}`;
    writeFileSync(staging, String(process.pid));
    renameSync(staging, lockFile);
  } catch (error) {
    await closeServer(server);
    throw error;
  }
  return {
    async release() {
      // The file goes first, while we still hold the name: once the name is free a successor may
      // write its own file, which we must not delete.
      removeOwnLockFile(lockFile);
      await closeServer(server);
    },
  };
}

/** The kernel-held name for a folder, or undefined where the platform has none that dies with the process. */
export function kernelLockName(realFolder: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const hash = createHash('sha256').update(realFolder).digest('hex');
  if (platform === 'linux') return `\0learnbase-${hash}`;
  if (platform === 'win32') return `\\\\.\\pipe\\learnbase-${hash}`;
  return undefined;
}

function bind(name: string): Promise<Server> {
  // Nobody has anything to say to the lock: a stray connection is hung up on.
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // `exclusive`: under the cluster module a worker must bind the name itself, not share the primary's.
    server.listen({ path: name, exclusive: true }, () => {
      server.off('error', reject);
      // The lock must not keep the process alive on its own.
      server.unref();
      resolve(server);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The pid in the lock file when that process is alive and is not us. */
function liveOwner(lockFile: string): number | undefined {
  const owner = readOwner(lockFile);
  return owner !== undefined && owner !== process.pid && isAlive(owner) ? owner : undefined;
}

function readOwner(lockFile: string): number | undefined {
  try {
    const owner = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
    return Number.isInteger(owner) ? owner : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function removeOwnLockFile(lockFile: string): void {
  if (readOwner(lockFile) === process.pid) rmSync(lockFile, { force: true });
}

/** The file-only lock of platforms without a kernel-held name: exclusive create, stale takeover (racy). */
function claimLockFile(lockFile: string, folder: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = liveOwner(lockFile);
      if (owner !== undefined) throw folderInUse(folder, owner);
      rmSync(lockFile, { force: true });
    }
  }
  throw folderInUse(folder, undefined);
}

function folderInUse(folder: string, owner: number | undefined): StorageError {
  return new StorageError(
    'folder_in_use',
    'database.folder_in_use',
    `The data folder ${folder} is in use by another learnbase process${owner === undefined ? '' : ` (pid ${owner})`}. ` +
      'Stop it first, or use a PostgreSQL database (--database URL) to run several processes.',
  );
}

/** Whether a process `pid` is running (one of another user answers EPERM: it is). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
