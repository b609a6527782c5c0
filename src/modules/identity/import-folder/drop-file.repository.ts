import type { SqlClient } from '../../../platform/database/sql-client.js';

/** A file the import folder imported: the record its import's transaction wrote. */
export interface DropFileRecord {
  claimId: string;
  file: string;
  kind: string;
  sha256: string;
  /** The import's summary (users: the API's answer; organisation and jobs: `{entries}`). */
  summary: object;
  importedAt: Date;
}

interface DropFileRow {
  claim_id: string;
  file_name: string;
  kind: string;
  sha256: string;
  summary: Record<string, unknown>;
  imported_at: Date | string;
}

/**
 * Records a claim as imported; false when it already was. Inside the import's transaction: while
 * another transaction holds an uncommitted row of the same claim, this waits for its end, and
 * answers false if that one committed (the caller then rolls its own import back).
 */
export async function insertDropFile(sql: SqlClient, tenantId: string, record: DropFileRecord): Promise<boolean> {
  const { rows } = await sql.query(
    `INSERT INTO import_drop_files (tenant_id, claim_id, file_name, kind, sha256, summary, imported_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT ON CONSTRAINT import_drop_files__tenant_id_claim_id DO NOTHING
     RETURNING claim_id`,
    [tenantId, record.claimId, record.file, record.kind, record.sha256, JSON.stringify(record.summary), record.importedAt],
  );
  return rows.length === 1;
}

export async function findDropFile(sql: SqlClient, tenantId: string, claimId: string): Promise<DropFileRecord | undefined> {
  const { rows } = await sql.query<DropFileRow>(
    `SELECT claim_id, file_name, kind, sha256, summary, imported_at FROM import_drop_files WHERE tenant_id = $1 AND claim_id = $2`,
    [tenantId, claimId],
  );
  const row = rows[0];
  return (
    row && {
      claimId: row.claim_id,
      file: row.file_name,
      kind: row.kind,
      sha256: row.sha256,
      summary: row.summary,
      importedAt: new Date(row.imported_at),
    }
  );
}
