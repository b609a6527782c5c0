import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Principal } from '../../kernel/principal.js';
import { findImportRuns, insertImportRun } from './import-run.repository.js';

export type ImportKind = 'users' | 'organisation' | 'jobs';

/** One import as the audit trail keeps it (GET /api/import/history). */
export interface ImportRun {
  id: string;
  kind: ImportKind;
  /** True for checks (user imports with `verify: true`, organisation and jobs with `?verify=true`), which wrote nothing but this record. */
  verify: boolean;
  /** Who ran it: the principal's kind and credential id (API key, admin id). */
  principal: { kind: string; id: string };
  startedAt: Date;
  finishedAt: Date;
  /** users: the import summary's counts; organisation and jobs: `{ entries }`, or a check's counts. */
  summary: Record<string, unknown>;
}

export interface NewImportRun {
  kind: ImportKind;
  verify: boolean;
  principal: Principal;
  startedAt: Date;
  summary: Record<string, unknown>;
}

/**
 * Records one import. Call it with the import's own transaction client, so the record exists
 * exactly when the import was stored (a verify run has only this record to write).
 */
export async function recordImportRun(sql: SqlClient, run: NewImportRun): Promise<ImportRun> {
  const recorded: ImportRun = {
    id: randomUUID(),
    kind: run.kind,
    verify: run.verify,
    principal: { kind: run.principal.kind, id: run.principal.id },
    startedAt: run.startedAt,
    finishedAt: new Date(),
    summary: run.summary,
  };
  await insertImportRun(sql, run.principal.tenant.id, recorded);
  return recorded;
}

/**
 * A caller's own write inside an import's transaction, after the run is recorded, with the summary
 * the import answers: what it writes commits with the import or not at all (identity's import
 * folder records the file it imported this way). Throwing rolls the whole import back.
 */
export type OnCommitting<Summary> = (tx: SqlClient, summary: Summary) => Promise<void>;

/** A page of the tenant's import runs, newest first; with `madeBy`, only the runs that principal made. */
export function listImportRuns(
  sql: SqlClient,
  tenantId: string,
  page: { limit: number; skip: number },
  madeBy?: Pick<Principal, 'kind' | 'id'>,
): Promise<ImportRun[]> {
  return findImportRuns(sql, tenantId, page.limit, page.skip, madeBy);
}
