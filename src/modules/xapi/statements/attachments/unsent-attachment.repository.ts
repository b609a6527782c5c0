import type { SqlClient } from '../../../../platform/database/sql-client.js';

/** An attachment a statement named without its data being sent with it (by a learner principal). */
export interface UnsentAttachment {
  statementId: string;
  sha2: string;
}

/** Records `unsent` in the transaction that stores their statements (db/migrations/0021). */
export async function insertUnsentAttachments(sql: SqlClient, tenantId: string, unsent: readonly UnsentAttachment[]): Promise<void> {
  if (unsent.length === 0) return;
  await sql.query(
    `INSERT INTO xapi_attachments_unsent (tenant_id, statement_id, sha2)
     SELECT $1, r."statementId"::uuid, r.sha2 FROM jsonb_to_recordset($2::jsonb) AS r("statementId" text, sha2 text)
     ON CONFLICT DO NOTHING`,
    [tenantId, JSON.stringify(unsent)],
  );
}

/** The unsent attachments of `statementIds` (lower-case UUIDs). */
export async function findUnsentAttachments(
  sql: SqlClient,
  tenantId: string,
  statementIds: readonly string[],
): Promise<UnsentAttachment[]> {
  if (statementIds.length === 0) return [];
  const { rows } = await sql.query<{ statement_id: string; sha2: string }>(
    `SELECT statement_id::text AS statement_id, sha2 FROM xapi_attachments_unsent WHERE tenant_id = $1 AND statement_id = ANY($2::uuid[])`,
    [tenantId, [...statementIds]],
  );
  return rows.map((row) => ({ statementId: row.statement_id, sha2: row.sha2 }));
}
