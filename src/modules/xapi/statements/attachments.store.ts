import { toBuffer, type SqlClient } from '../../../platform/database/sql-client.js';

/** The raw data of one attachment, named by its SHA-2 (lower-case hex). */
export interface AttachmentData {
  sha2: string;
  contentType: string;
  data: Buffer;
}

/**
 * Where attachment data lives: once per tenant and hash, whatever the number of statements that
 * use it. The database adapter below is the only one today; an object store (S3 keys
 * `{tenantId}/{sha2}`) can replace it without the statements service noticing.
 *
 * Both methods take the SqlClient of the caller: `put` runs inside the transaction that stores
 * the statements, so the database adapter stores data and statements all or nothing. An object
 * store would ignore it, write before the transaction commits and leave orphans on a rollback,
 * which is harmless: content-addressed data is only ever read through a stored statement.
 */
export interface AttachmentStore {
  /**
   * Stores each attachment under (tenantId, sha2) unless that hash is already stored (the same
   * hash is the same data, so the first copy is kept). `attachments` may repeat a hash.
   */
  put(sql: SqlClient, tenantId: string, attachments: readonly AttachmentData[]): Promise<void>;
  /**
   * The stored attachments among `sha2s` (lower-case hex) of this tenant, in no particular order;
   * a hash not stored (a fileUrl attachment, another tenant's data) is simply absent.
   */
  get(sql: SqlClient, tenantId: string, sha2s: readonly string[]): Promise<AttachmentData[]>;
}

interface AttachmentRow {
  sha2: string;
  content_type: string;
  data: unknown;
}

/** The AttachmentStore on the `xapi_attachments` table (db/migrations/0016_statement_attachments.sql). */
export const databaseAttachmentStore: AttachmentStore = {
  async put(sql, tenantId, attachments) {
    const unique = [...new Map(attachments.map((item) => [item.sha2, item])).values()];
    // One INSERT per attachment: the data binds as bytea, which jsonb_to_recordset cannot carry
    // without a base64 round trip, and a request holds a handful of attachments.
    for (const item of unique) {
      await sql.query(
        `INSERT INTO xapi_attachments (tenant_id, sha2, content_type, data)
         VALUES ($1, $2, $3, $4)
         ON CONFLICT (tenant_id, sha2) DO NOTHING`,
        [tenantId, item.sha2, item.contentType, item.data],
      );
    }
  },

  async get(sql, tenantId, sha2s) {
    if (sha2s.length === 0) return [];
    const { rows } = await sql.query<AttachmentRow>(
      `SELECT sha2, content_type, data
         FROM xapi_attachments
        WHERE tenant_id = $1 AND sha2 = ANY($2::text[])`,
      [tenantId, [...new Set(sha2s)]],
    );
    return rows.map((row) => ({ sha2: row.sha2, contentType: row.content_type, data: toBuffer(row.data) }));
  },
};
