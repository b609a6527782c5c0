import { extname } from 'node:path';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { badRequest } from '../../platform/http/app-error.js';
import { utf8Text } from '../../platform/json-guard.js';
import type { Principal } from '../../kernel/principal.js';
import type { PeopleChanges } from '../../kernel/people-changes.port.js';
import type { OnCommitting } from './import-run.service.js';
import {
  checkJobsReplacement,
  checkOrganisationReplacement,
  importJobs,
  importOrganisation,
  type JobsCheck,
  type OrganisationCheck,
} from './organisation-import.service.js';
import type { UserImportSummary } from './users/user-import.js';
import { importUsers, parseUserImportBody } from './users/user-import.service.js';
import { importModeOf, type UserImportMode } from './users/user-sync-rules.js';
import type { UserSyncContext } from './users/user-sync.service.js';
import { parseUsersCsv } from './users/users-csv.js';

export const IMPORT_FILE_KINDS = ['users', 'organisation', 'jobs'] as const;

export type ImportFileKind = (typeof IMPORT_FILE_KINDS)[number];

/** What a file did; an organisation or jobs file checked with `verify` has its `check` (nothing replaced). */
export type ImportFileOutcome =
  | { kind: 'users'; summary: UserImportSummary }
  | { kind: 'organisation' | 'jobs'; entries: number; check?: OrganisationCheck | JobsCheck };

/** A file's contents to import: what the command line and identity's import folder read. */
export interface ImportFileContents {
  kind: ImportFileKind;
  /** The file's name: a users file is CSV when it ends in `.csv` (any case), JSON otherwise; messages name it. */
  file: string;
  bytes: Buffer;
  /** Checked only: a users import (the JSON body's own `verify` counts too), or an organisation or jobs replacement. */
  verify: boolean;
  /** A users CSV file's charset, as `text/csv; charset=` names one to the API; UTF-8 when absent. */
  charset?: string;
  baseDomain: string;
  peopleChanges: PeopleChanges;
  /**
   * `sync`: a users file is a sync whatever its body says (identity's import folder names it so);
   * otherwise a users JSON body's own `mode` counts.
   */
  mode?: UserImportMode;
  /** What a users sync needs (user-sync.service.ts); without it a sync is refused (400 imports.sync_unavailable). */
  sync?: UserSyncContext;
  /** Told what is about to be imported once the file is read, before the import's transaction (progress). */
  onParsed?: (what: string) => void;
  /** Runs in the import's transaction (import-run.service.ts), with the summary the outcome holds. */
  onCommitting?: OnCommitting<UserImportSummary | { entries: number }>;
}

/**
 * The same import as the API, from a file: a JSON file holds the API's body (for users also a bare
 * array of users), a users CSV file the format of docs/imports.md. A file bad as a whole is
 * refused with the API's 4xx AppError for such a body (nothing imported, nothing recorded).
 */
export async function importFileContents(sql: SqlClient, principal: Principal, contents: ImportFileContents): Promise<ImportFileOutcome> {
  const { kind, file, bytes } = contents;
  if (kind === 'users') {
    const request = parseUserImportBody(usersBody(file, bytes, contents.charset));
    const verify = contents.verify || request.verify;
    const mode = importModeOf(contents.mode, request.mode);
    contents.onParsed?.(`${verify ? 'checking' : 'importing'} ${request.users.length} users`);
    const summary = await importUsers(
      sql,
      principal,
      { ...request, verify, mode },
      { baseDomain: contents.baseDomain, peopleChanges: contents.peopleChanges, sync: contents.sync, onCommitting: contents.onCommitting },
    );
    return { kind, summary };
  }
  if (isCsv(file)) throw badRequest('imports.invalid_file', `${file}: organisation and jobs are imported from JSON files only.`);
  const body = parseJson(file, bytes);
  contents.onParsed?.(
    `${contents.verify ? 'checking' : 'importing'} ${Array.isArray(body) ? body.length : 0} ${kind === 'jobs' ? 'jobs' : 'organisation entries'}`,
  );
  if (contents.verify) {
    const verify = kind === 'jobs' ? checkJobsReplacement : checkOrganisationReplacement;
    const check = await verify(sql, principal, body, contents.onCommitting);
    return { kind, entries: check.entries, check };
  }
  const replace = kind === 'jobs' ? importJobs : importOrganisation;
  const entries = await replace(sql, principal, body, contents.peopleChanges, contents.onCommitting);
  return { kind, entries };
}

const isCsv = (file: string) => extname(file).toLowerCase() === '.csv';

function usersBody(file: string, bytes: Buffer, charset: string | undefined): unknown {
  if (isCsv(file)) return { users: parseUsersCsv(bytes, charset) };
  const body = parseJson(file, bytes);
  return Array.isArray(body) ? { users: body } : body;
}

function parseJson(file: string, bytes: Buffer): unknown {
  const text = utf8Text(bytes);
  if (text === undefined) throw badRequest('imports.invalid_json', `${file} is not valid JSON: its bytes are not UTF-8.`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest('imports.invalid_json', `${file} is not valid JSON: ${(error as Error).message}`);
  }
}
