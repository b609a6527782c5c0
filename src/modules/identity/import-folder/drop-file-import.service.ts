import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError } from '../../../platform/http/app-error.js';
import type { Tenant } from '../../../kernel/principal.js';
import type { PeopleChanges } from '../../../kernel/people-changes.port.js';
import { importFileContents, type ImportFileKind, type UserSyncContext } from '../../imports/index.js';
import { type DropFileRecord, findDropFile, insertDropFile } from './drop-file.repository.js';
import {
  type Claim,
  DONE,
  type DropFacts,
  type DropResult,
  entryTypeOf,
  FAILED,
  importedResult,
  isRefusal,
  notRegularFile,
  refusedResult,
  usersModeOf,
} from './drop-folder-rules.js';
import { operatorPrincipal } from '../../auth/index.js';

/** A file of the import folder claimed for its tenant. */
export interface ClaimedFile extends Claim {
  tenant: Tenant;
  kind: ImportFileKind;
}

export interface DropFileImportContext {
  sql: SqlClient;
  /** LEARNBASE_IMPORT_LIMIT_BYTES: the server holds a file whole while it imports it, so a larger one is refused. */
  importLimitBytes: number;
  baseDomain: string;
  peopleChanges: PeopleChanges;
  /** What a `users-sync…` file needs (imports' user-sync.service.ts): LEARNBASE_IMPORT_SYNC_MAX_SHARE and auth's credentials. */
  sync: Omit<UserSyncContext, 'source'>;
}

/** The source of the audit entries of the people a sync file deactivates (its principal names the file). */
const DROP_SOURCE = 'import-folder';

export const DropFolderErrors = {
  tooLarge: (file: string, limit: number) =>
    new AppError(
      'imports.file_too_large',
      413,
      `${file} is larger than ${limit} bytes (LEARNBASE_IMPORT_LIMIT_BYTES, the largest import the server takes); nothing was imported.`,
    ),
};

/** Thrown inside an import's transaction, to roll it back, when another import of the same claim committed first. */
class AlreadyImported extends Error {}

/**
 * How a claimed file is opened: never through a symbolic link (O_NOFOLLOW: a link put in the file's
 * place after it was looked at fails with ELOOP instead of being followed), and without waiting on a
 * FIFO that has no writer (O_NONBLOCK; a regular file reads the same). What was opened is then
 * checked to be a regular file before a byte of it is read.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Imports a claimed file (at `path`, in processing/) exactly once: the import records the claim
 * in its own transaction (import_drop_files), so a claim already recorded is not imported again,
 * and of two imports of one claim at once (a process taking over the claim of one still at it)
 * one commits and the other rolls back. Answers where the file goes, done/ or failed/, and what
 * its result file says; undefined when the file is gone (another process took the claim over).
 * Throws on a failure that may pass (the database unreachable): the file stays claimed.
 */
export async function importClaimedFile(
  context: DropFileImportContext,
  claimed: ClaimedFile,
  path: string,
): Promise<{ to: typeof DONE | typeof FAILED; result: DropResult } | undefined> {
  const { tenant, claimId, file, kind } = claimed;
  const recorded = await findDropFile(context.sql, tenant.id, claimId);
  if (recorded) return { to: DONE, result: importedResult(factsOf(claimed, recorded.sha256), recorded) };
  let bytes: Buffer;
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, OPEN_FLAGS);
    const found = await handle.stat();
    if (!found.isFile())
      return { to: FAILED, result: { ...factsOf(claimed), status: 'refused', error: notRegularFile(file, entryTypeOf(found)) } };
    if (found.size > context.importLimitBytes) {
      const error = DropFolderErrors.tooLarge(file, context.importLimitBytes);
      return { to: FAILED, result: refusedResult(factsOf(claimed, await sha256Of(handle)), error) };
    }
    bytes = await handle.readFile();
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    // The claimed name is a symbolic link now (swapped in after the look): refused unread.
    if (codeOf(error) === 'ELOOP') {
      return { to: FAILED, result: { ...factsOf(claimed), status: 'refused', error: notRegularFile(file, 'symbolic link') } };
    }
    throw error;
  } finally {
    await handle?.close();
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // The audit trail names the file: the import history shows the operator `drop:<file>`.
  const principal = operatorPrincipal(tenant, 'drop', file);
  let record: DropFileRecord | undefined;
  try {
    await importFileContents(context.sql, principal, {
      kind,
      file,
      bytes,
      verify: false,
      baseDomain: context.baseDomain,
      peopleChanges: context.peopleChanges,
      mode: kind === 'users' ? usersModeOf(file) : undefined,
      sync: { ...context.sync, source: DROP_SOURCE },
      onCommitting: async (tx, summary) => {
        record = { claimId, file, kind, sha256, summary, importedAt: new Date() };
        if (!(await insertDropFile(tx, tenant.id, record))) throw new AlreadyImported();
      },
    });
  } catch (error) {
    if (error instanceof AlreadyImported) {
      const first = await findDropFile(context.sql, tenant.id, claimId);
      if (first) return { to: DONE, result: importedResult(factsOf(claimed, first.sha256), first) };
    }
    if (isRefusal(error)) return { to: FAILED, result: refusedResult(factsOf(claimed, sha256), error) };
    throw error;
  }
  if (!record) throw new Error(`The import of ${file} recorded no claim.`);
  return { to: DONE, result: importedResult(factsOf(claimed, sha256), record) };
}

/** The facts of a result file; `sha256` only of a regular file's bytes. */
const factsOf = (claimed: ClaimedFile, sha256?: string): DropFacts => ({
  file: claimed.file,
  tenant: claimed.tenant.name,
  kind: claimed.kind,
  claim: claimed.claimId,
  ...(sha256 === undefined ? {} : { sha256 }),
});

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code;

/** The SHA-256 of an opened regular file, read in chunks (a file too large to import is not held whole). */
async function sha256Of(handle: FileHandle): Promise<string> {
  const digest = createHash('sha256');
  for await (const chunk of handle.createReadStream({ start: 0, autoClose: false })) digest.update(chunk as Buffer);
  return digest.digest('hex');
}
