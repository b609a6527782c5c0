import type { SqlClient } from '../../platform/database/sql-client.js';
import { SqlFilter } from '../../platform/database/sql-filters.js';
import type { ImportRun, ImportKind } from './import-run.service.js';

interface ImportRunRow {
  id: string;
  kind: ImportKind;
  verify: boolean;
  principal_kind: string;
  principal_id: string;
  started_at: Date;
  finished_at: Date;
  summary: Record<string, unknown>;
}

export async function insertImportRun(sql: SqlClient, tenantId: string, run: ImportRun): Promise<void> {
  await sql.query(
    `INSERT INTO import_runs (tenant_id, id, kind, verify, principal_kind, principal_id, started_at, finished_at, summary)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      tenantId,
      run.id,
      run.kind,
      run.verify,
      run.principal.kind,
      run.principal.id,
      run.startedAt,
      run.finishedAt,
      JSON.stringify(run.summary),
    ],
  );
}

/**
 * Newest first; `seq` (the order of recording) breaks ties between runs finished in the same
 * millisecond. With `madeBy`, only the runs of that principal (its kind and credential id).
 */
export async function findImportRuns(
  sql: SqlClient,
  tenantId: string,
  limit: number,
  skip: number,
  madeBy?: { kind: string; id: string },
): Promise<ImportRun[]> {
  const where = new SqlFilter([tenantId], 'tenant_id = $1')
    .andIf(madeBy?.kind, (p) => `principal_kind = ${p}`)
    .andIf(madeBy?.id, (p) => `principal_id = ${p}`);
  const { rows } = await sql.query<ImportRunRow>(
    `SELECT id, kind, verify, principal_kind, principal_id, started_at, finished_at, summary
       FROM import_runs ${where.clause}
      ${where.paged('finished_at DESC, seq DESC', { limit, skip })}`,
    where.values,
  );
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    verify: row.verify,
    principal: { kind: row.principal_kind, id: row.principal_id },
    startedAt: new Date(row.started_at),
    finishedAt: new Date(row.finished_at),
    summary: row.summary,
  }));
}
