import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { acquireFolderLock, LOCK_FILE } from './folder-lock.js';
import { MIGRATIONS_DIR, migrate } from './migrate.js';
import type { QueryResult, SqlClient } from './sql-client.js';

/** The folder PGlite keeps its files in, inside the data folder (as pglite-client.ts opens it). */
const PGDATA = 'pgdata';
/** Where a restore builds the new database before it takes the place of `pgdata`. */
const RESTORING = 'pgdata.restoring';
/** Where the replaced database waits, for the instant between the two renames of a forced restore. */
const REPLACED = 'pgdata.before-restore';

/** A backup or restore refused or failed for a reason the operator can act on; the CLI prints the message. */
export class BackupError extends Error {
  constructor(
    /** `backup.reason`, in the codebase's `module.reason` form. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BackupError';
  }
}

export interface BackupOutcome {
  /** The absolute path written. */
  file: string;
  bytes: number;
}

export interface RestoreOutcome {
  /** The absolute data folder restored into. */
  data: string;
  /** Migrations applied to the restored database: not empty when the backup came from an older version. */
  applied: string[];
  /** Whether a database that was in the folder was replaced (`--force`). */
  replaced: boolean;
}

/**
 * Writes PGlite's own dump of the data folder's database (a gzip-compressed tar of `pgdata`, from
 * `dumpDataDir`) to `file`. Holds the folder lock throughout, so it is refused while a server or
 * another command uses the folder. The dump is written beside `file` and renamed into place, so a
 * crash never leaves half a backup under the name; an existing `file` is replaced only with `force`.
 * The whole dump is held in memory while it is made.
 */
export async function backupDataFolder(dataDir: string, file: string, options: { force: boolean }): Promise<BackupOutcome> {
  const folder = resolve(dataDir);
  const target = resolve(file);
  refuseExisting(target, options.force);
  if (!existsSync(join(folder, PGDATA, 'PG_VERSION'))) {
    throw new BackupError('backup.no_database', `There is no learnbase database in ${folder} (no ${PGDATA} folder in it).`);
  }
  if (!existsSync(dirname(target))) {
    throw new BackupError('backup.no_folder', `The folder ${dirname(target)} does not exist.`);
  }

  const lock = await acquireFolderLock(folder);
  let dump: Buffer;
  try {
    const db = await PGlite.create(join(folder, PGDATA));
    try {
      // Dirty pages are written out first, so the restored copy starts without replaying the WAL.
      await db.exec('CHECKPOINT');
      dump = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
    } finally {
      await db.close();
    }
  } finally {
    await lock.release();
  }

  const staging = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  try {
    writeDurably(staging, dump);
    // Checked again: the file may have appeared while the dump was made.
    refuseExisting(target, options.force);
    renameSync(staging, target);
    syncFolder(dirname(target));
  } catch (error) {
    rmSync(staging, { force: true });
    throw error;
  }
  return { file: target, bytes: dump.length };
}

/**
 * Loads a backup made by `backupDataFolder` (or any tar, gzip-compressed or not, of a PGlite 0.5
 * `pgdata` folder) into the data folder, under the folder lock. The file is checked first (a tar
 * whose headers add up, holding `PG_VERSION`), so a wrong file leaves the folder untouched. The
 * database is then built in `pgdata.restoring` beside the current one, opened, checked to be
 * learnbase's (a `schema_migrations` table, no migration this version does not know) and migrated
 * (a backup from an older version), and only then renamed into place. A folder already holding
 * anything is refused unless `force`; with `force` only `pgdata` is replaced, other files stay.
 */
export async function restoreDataFolder(dataDir: string, file: string, options: { force: boolean }): Promise<RestoreOutcome> {
  const folder = resolve(dataDir);
  const source = resolve(file);
  const tar = readDump(source);

  const created = !existsSync(folder);
  mkdirSync(folder, { recursive: true });
  const lock = await acquireFolderLock(folder).catch((error: unknown) => {
    if (created) removeIfEmpty(folder);
    throw error;
  });
  const staging = join(folder, RESTORING);
  try {
    // Leftovers of an interrupted restore are ours to clear: we hold the folder.
    rmSync(staging, { recursive: true, force: true });
    const present = readdirSync(folder).filter((name) => name !== LOCK_FILE);
    if (present.length > 0 && !options.force) {
      throw new BackupError(
        'backup.folder_not_empty',
        `The data folder ${folder} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}). ` +
          'Add --force to replace the database in it.',
      );
    }
    const applied = await loadAndMigrate(staging, tar, source);
    const current = join(folder, PGDATA);
    const replaced = existsSync(current);
    if (replaced) {
      rmSync(join(folder, REPLACED), { recursive: true, force: true });
      // Two renames in one folder: a crash between them leaves the old database whole under
      // pgdata.before-restore (docs/operations.md says how to put it back).
      renameSync(current, join(folder, REPLACED));
    }
    renameSync(staging, current);
    syncFolder(folder);
    if (replaced) rmSync(join(folder, REPLACED), { recursive: true, force: true });
    return { data: folder, applied, replaced };
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  } finally {
    await lock.release();
    if (created) removeIfEmpty(folder);
  }
}

/** Opens the dump in `staging`, checks it is a learnbase database and applies the pending migrations. */
async function loadAndMigrate(staging: string, tar: Buffer, source: string): Promise<string[]> {
  let db: PGlite;
  try {
    db = await PGlite.create(staging, { loadDataDir: new Blob([tar as Uint8Array<ArrayBuffer>], { type: 'application/x-tar' }) });
  } catch (error) {
    throw new BackupError(
      'backup.unreadable',
      `${source} could not be opened as a database by this version of PGlite (${(error as Error).message}).`,
    );
  }
  try {
    const { rows } = await db.query<{ found: string | null }>("SELECT to_regclass('public.schema_migrations')::text AS found");
    if (rows[0].found === null) {
      throw new BackupError(
        'backup.not_learnbase',
        `${source} holds a PGlite database, but not a learnbase one (no schema_migrations table).`,
      );
    }
    const known = new Set(readdirSync(MIGRATIONS_DIR));
    const recorded = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    const unknown = recorded.rows.map((row) => row.name).filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new BackupError(
        'backup.newer_version',
        `${source} comes from a newer learnbase (migrations ${unknown.join(', ')} are unknown here): restore it with that version or later.`,
      );
    }
    return await migrate(pgliteSqlClient(db));
  } finally {
    await db.close();
  }
}

/** Reads a backup and returns the tar inside it, refusing anything that is not a whole tar of a PGlite folder. */
function readDump(source: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(source);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BackupError('backup.no_file', `The backup file ${source} does not exist.`);
    if (code === 'EISDIR') throw new BackupError('backup.not_a_dump', `${source} is a folder, not a backup file.`);
    throw error;
  }
  const notADump = (why: string) => new BackupError('backup.not_a_dump', `${source} is not a PGlite backup (${why}); nothing was changed.`);
  // RFC 1952 §2.3.1: every gzip member starts with ID1 = 0x1f, ID2 = 0x8b.
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw notADump(`a damaged gzip file: ${(error as Error).message}`);
    }
  }
  const names = tarEntryNames(bytes);
  if (typeof names === 'string') throw notADump(names);
  if (!names.some((name) => name.replace(/^\.?\/+/, '') === 'PG_VERSION')) throw notADump('no PG_VERSION in it');
  return bytes;
}

/**
 * The entry names of a ustar archive (POSIX.1-2001 pax §ustar Interchange Format), or why it is not
 * one: a header whose checksum does not add up, or an entry running past the end (a truncated file).
 */
export function tarEntryNames(tar: Buffer): string[] | string {
  const BLOCK = 512;
  const names: string[] = [];
  let offset = 0;
  for (;;) {
    if (offset + BLOCK > tar.length) return names.length === 0 ? 'not a tar archive' : 'the archive is cut short';
    const header = tar.subarray(offset, offset + BLOCK);
    // Two zero blocks end the archive; one is enough to know we reached the end.
    if (header.every((byte) => byte === 0)) return names.length === 0 ? 'an empty archive' : names;
    const stored = octal(header.subarray(148, 156));
    // The checksum is the sum of the header's bytes with its own field read as spaces.
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
    if (stored === undefined || stored !== sum) return names.length === 0 ? 'not a tar archive' : 'a damaged tar header';
    const size = octal(header.subarray(124, 136));
    if (size === undefined) return 'a damaged tar header';
    const prefix = header.subarray(257, 262).toString('latin1') === 'ustar' ? cString(header.subarray(345, 500)) : '';
    const name = cString(header.subarray(0, 100));
    names.push(prefix ? `${prefix}/${name}` : name);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (offset > tar.length) return 'the archive is cut short';
  }
}

function octal(field: Buffer): number | undefined {
  const text = cString(field).trim();
  return /^[0-7]+$/.test(text) ? Number.parseInt(text, 8) : undefined;
}

function cString(field: Buffer): string {
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
}

function refuseExisting(target: string, force: boolean): void {
  if (!force && existsSync(target)) {
    throw new BackupError('backup.file_exists', `${target} already exists. Add --force to replace it.`);
  }
}

function writeDurably(path: string, bytes: Buffer): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a rename in `folder` durable (a no-op where folders cannot be opened, as on Windows). */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // Best effort: the rename itself is already atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function removeIfEmpty(folder: string): void {
  try {
    rmdirSync(folder);
  } catch {
    // Not empty, or already gone: either way not ours to remove.
  }
}

/** The SqlClient port over a PGlite opened outside PgliteDatabase (which opens only `<folder>/pgdata` under the lock). */
function pgliteSqlClient(db: PGlite | Transaction): SqlClient {
  return {
    async query<Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> {
      const result = await db.query<Row>(text, values as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
      return 'transaction' in db ? db.transaction((tx) => work(pgliteSqlClient(tx))) : work(this);
    },
    async script(text: string): Promise<void> {
      await db.exec(text);
    },
  };
}
