import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { DatabaseConfig } from '../../../../config.js';
import { toBuffer, type SqlClient } from '../../../../platform/database/sql-client.js';

/** The raw data of one attachment, named by its SHA-2 (lower-case hex). */
export interface AttachmentData {
  sha2: string;
  contentType: string;
  data: Buffer;
}

/**
 * Where attachment data lives: once per tenant and hash, whatever the number of statements that
 * use it. Two adapters below: the database (PostgreSQL), and files beside the database (PGlite);
 * an object store (S3 keys `{tenantId}/{sha2}`) can replace either without the statements
 * service noticing.
 *
 * Both methods take the SqlClient of the caller: `put` runs inside the transaction that stores
 * the statements, so the database adapter stores data and statements all or nothing. An object
 * store would ignore it, write before the transaction commits and leave orphans on a rollback,
 * which is harmless: content-addressed data is only ever read through a stored statement.
 */
export interface AttachmentStore {
  /**
   * Where the data is kept outside the database: writes it there before the statements'
   * transaction begins, so the transaction (on PGlite, the only connection) is not held while
   * megabytes are written. A request refused afterwards leaves its data unread (an orphan). The
   * database adapter has nothing to do here.
   */
  stage?(tenantId: string, attachments: readonly AttachmentData[]): Promise<void>;
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
  /** Null in the file store's rows: the data is in the file. */
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

/** Where the file store keeps attachment data, inside PGlite's own folder (pglite-client.ts opens `<data>/pgdata`). */
export const ATTACHMENT_FILES_FOLDER = 'learnbase_attachments';

/**
 * The store of a deployment: on a PGlite folder, files in it (fileAttachmentStore); on
 * PostgreSQL, and on an in-memory PGlite (the tests), the database.
 */
export function attachmentStoreFor(database: DatabaseConfig): AttachmentStore {
  if (database.kind === 'pglite' && database.dataDir !== undefined) {
    return fileAttachmentStore(join(resolve(database.dataDir), 'pgdata', ATTACHMENT_FILES_FOLDER));
  }
  return databaseAttachmentStore;
}

/**
 * The AttachmentStore for PGlite: the data in files (attachmentFileName), its row in
 * `xapi_attachments` with empty `data`. PGlite runs the database in this process's thread, and a
 * bytea parameter of tens of megabytes stalled every request for seconds (PGlite encodes it byte
 * by byte in JavaScript, then the WebAssembly memory grows by several times the data and never
 * shrinks); files are written and read off the event loop.
 *
 * - The file is written (to a temporary name, flushed, renamed, the folder flushed) before the
 *   statements' transaction (stage), and checked again before the row is inserted, so a committed
 *   row always has its file. A transaction rolled back leaves a file
 *   without a row: harmless, as data is only read through a row (the interface's orphans).
 * - The row keeps which tenant holds which hash transactionally, as on PostgreSQL; a row with data
 *   (stored before this store existed) is answered from the row.
 * - `root` is inside PGlite's `pgdata` folder, so a backup (PGlite's dump of that folder) and a
 *   restore carry the files with the rows (backup.ts).
 */
export function fileAttachmentStore(root: string): AttachmentStore {
  const pathOf = (tenantId: string, sha2: string) => join(root, attachmentFileName(tenantId, sha2));

  const writeFiles = (tenantId: string, attachments: readonly AttachmentData[]) =>
    Promise.all(
      attachments.map(async (item) => {
        const path = pathOf(tenantId, item.sha2);
        await mkdir(dirname(path), { recursive: true });
        await writeOnce(path, item.data);
      }),
    );

  return {
    async stage(tenantId, attachments) {
      await writeFiles(tenantId, [...new Map(attachments.map((item) => [item.sha2, item])).values()]);
    },

    async put(sql, tenantId, attachments) {
      const unique = [...new Map(attachments.map((item) => [item.sha2, item])).values()];
      if (unique.length === 0) return;
      // Staged already, as a rule: then each file is found in place (one stat) and left alone.
      await writeFiles(tenantId, unique);
      await sql.query(
        `INSERT INTO xapi_attachments (tenant_id, sha2, content_type, data)
         SELECT $1, r.sha2, r.content_type, ''::bytea FROM jsonb_to_recordset($2::jsonb) AS r(sha2 text, content_type text)
         ON CONFLICT (tenant_id, sha2) DO NOTHING`,
        [tenantId, JSON.stringify(unique.map((item) => ({ sha2: item.sha2, content_type: item.contentType })))],
      );
    },

    async get(sql, tenantId, sha2s) {
      if (sha2s.length === 0) return [];
      const { rows } = await sql.query<AttachmentRow>(
        `SELECT sha2, content_type, CASE WHEN octet_length(data) > 0 THEN data END AS data
           FROM xapi_attachments
          WHERE tenant_id = $1 AND sha2 = ANY($2::text[])`,
        [tenantId, [...new Set(sha2s)]],
      );
      return Promise.all(
        rows.map(async (row) => ({
          sha2: row.sha2,
          contentType: row.content_type,
          data: row.data === null ? await readFile(pathOf(tenantId, row.sha2)) : toBuffer(row.data),
        })),
      );
    },
  };
}

/**
 * The file of one tenant's data of one hash, relative to the store's folder: `ab/abcdef…`, the
 * SHA-256 of `{tenantId}/{sha2}` in hex, under its first two digits (so no folder holds more than
 * a 256th of the files). Not the tenant id and hash themselves: PGlite's dump (the backup) is a
 * tar whose names hold at most 100 characters, and a SHA-512 alone is 128.
 */
export function attachmentFileName(tenantId: string, sha2: string): string {
  const key = createHash('sha256').update(`${tenantId}/${sha2}`).digest('hex');
  return join(key.slice(0, 2), key);
}

/** Writes `data` to `path` durably unless a file is there already (the same hash is the same data). */
async function writeOnce(path: string, data: Buffer): Promise<void> {
  const present = await stat(path).then(
    (found) => found.size === data.length,
    () => false,
  );
  if (present) return;
  const staging = `${path}.${randomBytes(6).toString('hex')}.partial`;
  try {
    const file = await open(staging, 'wx', 0o600);
    try {
      await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(staging, path);
  } catch (error) {
    await rm(staging, { force: true });
    throw error;
  }
  const folder = await open(dirname(path), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
