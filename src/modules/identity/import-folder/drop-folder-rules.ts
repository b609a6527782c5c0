import { AppError } from '../../../platform/http/app-error.js';
import type { ImportFileKind, UserImportMode } from '../../imports/index.js';

/**
 * The import folder's rules (docs/identity.md, "The import folder"): which names are which import,
 * when a file is complete, and the names a file takes from claim to done/ or failed/.
 */

/** The sub-folders of a tenant's folder: claimed files, imported ones, refused ones. */
export const PROCESSING = 'processing';
export const DONE = 'done';
export const FAILED = 'failed';

/**
 * The longest name claimed, in bytes: a claimed file's name is its own plus the claim's 35 bytes,
 * and a file system's names end at 255.
 */
export const MAX_NAME_BYTES = 200;

const KINDS: ReadonlyArray<[ImportFileKind, RegExp]> = [
  ['users', /^users.*\.(csv|json)$/i],
  ['organisation', /^organisation.*\.json$/i],
  ['jobs', /^jobs.*\.json$/i],
];

/**
 * What a name in a tenant's folder is: an import of some kind; a file still being written, by the
 * conventions of copying tools (a dotfile, `*.tmp`, `*.part`), left alone without a word; or a
 * name the folder does not take (no kind, or too long), left alone and logged once.
 */
export type DropName = { kind: ImportFileKind } | { skip: 'writing' } | { skip: 'unknown' | 'too_long' };

export function classifyName(name: string): DropName {
  if (name.startsWith('.') || /\.(tmp|part)$/i.test(name)) return { skip: 'writing' };
  const kind = KINDS.find(([, pattern]) => pattern.test(name))?.[0];
  if (!kind) return { skip: 'unknown' };
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) return { skip: 'too_long' };
  return { kind };
}

/**
 * `users-sync` followed by `.`, `-` or `_`, in any case (`users-sync.csv`, `Users-Sync-2026-11-28.json`):
 * a users file that is the whole list of the tenant's people, whose active people it leaves out are
 * deactivated (docs/identity.md, "A sync: people left out are deactivated").
 */
const SYNC = /^users-sync[-_.]/i;

/** How a users file of this name is imported: `sync` for a `users-sync…` file, `merge` (people left out stay) otherwise. */
export const usersModeOf = (name: string): UserImportMode => (SYNC.test(name) ? 'sync' : 'merge');

/** A file's size and modification time as one look at it found them. */
export interface Sighting {
  size: number;
  mtimeMs: number;
}

/** A file as the looks so far found it: the last sighting, and since when it has been exactly that. */
export interface Watched extends Sighting {
  since: number;
}

/** The file's record after another look at `now`: unchanged keeps its `since`, any change starts it again. */
export function watch(previous: Watched | undefined, sighting: Sighting, now: number): Watched {
  const same = previous !== undefined && previous.size === sighting.size && previous.mtimeMs === sighting.mtimeMs;
  return { size: sighting.size, mtimeMs: sighting.mtimeMs, since: same ? previous.since : now };
}

/**
 * Whether a file is complete: nothing has written it for `stableMs`, judged by its modification
 * time (a file renamed in complete, its time older than that, is complete at the first look) or,
 * when that time cannot be trusted (a clock ahead of ours, a copy that kept the source's time but
 * is still growing), by looks that found its size and time unchanged for `stableMs`.
 */
export function isComplete(watched: Watched, now: number, stableMs: number): boolean {
  return now - watched.mtimeMs >= stableMs || now - watched.since >= stableMs;
}

/**
 * A claim: a file taken into `processing/` as `<claimId>.<owner>.<file>`. The claim id, the UTC
 * time of the claim and 8 random hex digits, stays the file's until it leaves processing/ (the
 * import's record is keyed on it); the owner, 8 hex digits per watching process, changes when
 * another process takes the claim over.
 */
export interface Claim {
  claimId: string;
  owner: string;
  file: string;
}

const CLAIMED = /^(\d{8}T\d{6}Z-[0-9a-f]{8})\.([0-9a-f]{8})\.(.+)$/;

/** `20240501T093000Z-1a2b3c4d`: the claim's time, to the second, and `random` (8 hex digits). */
export const claimIdOf = (at: Date, random: string): string => `${at.toISOString().replace(/[-:]|\.\d{3}/g, '')}-${random}`;

export const claimedName = (claim: Claim): string => `${claim.claimId}.${claim.owner}.${claim.file}`;

/** The claim a name of `processing/` holds, or undefined for a name no process gave. */
export function claimOf(name: string): Claim | undefined {
  const match = CLAIMED.exec(name);
  return match ? { claimId: match[1], owner: match[2], file: match[3] } : undefined;
}

/** The file's name in done/ or failed/: its claim id first, so that names never collide and list in claim order. */
export const finishedName = (claim: Pick<Claim, 'claimId' | 'file'>): string => `${claim.claimId}.${claim.file}`;

/** The result file beside a finished file. */
export const resultName = (finished: string): string => `${finished}.result.json`;

/**
 * A failure that refuses the file for good: the import's 4xx for a body bad as a whole (not JSON,
 * bad CSV, refused by the rules, too large). Any other failure (the database unreachable, a
 * conflict to retry, a file system error) leaves the file claimed, to be tried again.
 */
export const isRefusal = (error: unknown): error is AppError =>
  error instanceof AppError && (error.status === 400 || error.status === 413 || error.status === 415);

/** How long to wait before trying a file again after its `attempts`-th failure: doubling from the poll interval, at most a minute. */
export const retryDelayMs = (attempts: number, intervalMs: number): number => Math.min(intervalMs * 2 ** Math.max(attempts - 1, 0), 60_000);

/** What every result file says of its file. */
export interface DropFacts {
  /** The file's own name, as it was dropped. */
  file: string;
  tenant: string;
  kind: ImportFileKind;
  claim: string;
  /**
   * SHA-256 of the file's bytes, in hex; absent for what was no regular file (a symbolic link, a
   * FIFO, a device, a folder): nothing of it, or of what it points at, was read.
   */
  sha256?: string;
}

/** What a result file says (docs/identity.md, "The import folder"). */
export type DropResult = DropFacts &
  ({ status: 'imported'; importedAt: string; summary: Record<string, unknown> } | { status: 'refused'; error: RefusedError });

/**
 * What a result file says of an entry of a tenant's folder that has an import's name but is no
 * regular file: it was left where it is (never claimed, opened or followed), and this says why.
 * Written in failed/ with no file beside it, once per process while the entry stays.
 */
export interface LeftResult {
  file: string;
  tenant: string;
  kind: ImportFileKind;
  status: 'left';
  warning: RefusedError;
}

/** What an entry that is no regular file is, in words (lstat's answer, never its target's). */
export type EntryType = 'symbolic link' | 'folder' | 'FIFO' | 'socket' | 'device';

export function entryTypeOf(entry: {
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}): EntryType {
  if (entry.isSymbolicLink()) return 'symbolic link';
  if (entry.isDirectory()) return 'folder';
  if (entry.isFIFO()) return 'FIFO';
  if (entry.isSocket()) return 'socket';
  return 'device';
}

/**
 * The import folder takes regular files only: a symbolic link in a tenant's folder could point at
 * another tenant's file or any file the server may read, and a FIFO or device would never end.
 */
export const notRegularFile = (file: string, type: EntryType): RefusedError => ({
  code: 'identity.drop_not_regular_file',
  message:
    `${file} is a ${type}, not a regular file: the import folder takes regular files only, and read nothing of it ` +
    '(nor of what it may point at). Drop the file itself.',
});

export const leftResult = (facts: Omit<LeftResult, 'status' | 'warning'>, type: EntryType): LeftResult => ({
  ...facts,
  status: 'left',
  warning: notRegularFile(facts.file, type),
});

export interface RefusedError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** The result of an imported file: the import's summary (users: the API's answer; organisation and jobs: `{entries}`). */
export const importedResult = (facts: DropFacts, imported: { importedAt: Date; summary: object }): DropResult => ({
  ...facts,
  status: 'imported',
  importedAt: imported.importedAt.toISOString(),
  summary: imported.summary as Record<string, unknown>,
});

/** The result of a refused file: the error the API answers to the same body. */
export const refusedResult = (facts: DropFacts, error: AppError): DropResult => ({
  ...facts,
  status: 'refused',
  error: {
    code: error.code,
    message: error.message,
    ...(error.details && Object.keys(error.details).length > 0 ? { details: error.details } : {}),
  },
});

/** A summary without its lists of messages (a log line's). */
export const countsOf = (summary: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(summary).filter(([, value]) => !Array.isArray(value)));
