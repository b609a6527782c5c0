import { type SqlClient, toBuffer } from '../../../platform/database/sql-client.js';

export type DocumentKind = 'state' | 'activity_profile' | 'agent_profile';

/**
 * Where one document lives. Parts a kind does not use are '' (activity profiles have no agent,
 * agent profiles no activity, only state has a registration), so the primary key stays total.
 */
export interface DocumentKey {
  kind: DocumentKind;
  activityId: string;
  agentKey: string;
  registration: string;
  documentId: string;
}

/** A set of documents: a key without its id, and for state possibly without its registration. */
export type DocumentScope = Omit<DocumentKey, 'documentId' | 'registration'> & { registration?: string };

export interface StoredDocument {
  content: Buffer;
  contentType: string;
  etag: string;
  updatedAt: Date;
}

interface DocumentRow {
  content: unknown;
  content_type: string;
  etag: string;
  updated_at: Date;
}

const toDocument = (row: DocumentRow): StoredDocument => ({
  content: toBuffer(row.content),
  contentType: row.content_type,
  etag: row.etag,
  updatedAt: new Date(row.updated_at),
});

const KEY = 'tenant_id = $1 AND kind = $2 AND activity_id = $3 AND agent_key = $4 AND registration = $5 AND document_id = $6';
const keyValues = (tenantId: string, key: DocumentKey) => [
  tenantId,
  key.kind,
  key.activityId,
  key.agentKey,
  key.registration,
  key.documentId,
];

export async function findDocument(sql: SqlClient, tenantId: string, key: DocumentKey): Promise<StoredDocument | undefined> {
  const { rows } = await sql.query<DocumentRow>(
    `SELECT content, content_type, etag, updated_at FROM xapi_documents WHERE ${KEY}`,
    keyValues(tenantId, key),
  );
  return rows[0] && toDocument(rows[0]);
}

/** Like findDocument, and locks the row until the transaction ends. */
export async function findDocumentForUpdate(sql: SqlClient, tenantId: string, key: DocumentKey): Promise<StoredDocument | undefined> {
  const { rows } = await sql.query<DocumentRow>(
    `SELECT content, content_type, etag, updated_at FROM xapi_documents WHERE ${KEY} FOR UPDATE`,
    keyValues(tenantId, key),
  );
  return rows[0] && toDocument(rows[0]);
}

/** Inserts unless the document exists; true when this call inserted it. */
export async function insertDocumentIfAbsent(
  sql: SqlClient,
  tenantId: string,
  key: DocumentKey,
  document: Omit<StoredDocument, 'updatedAt'>,
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `INSERT INTO xapi_documents
       (tenant_id, kind, activity_id, agent_key, registration, document_id, content, content_type, etag, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, clock_timestamp())
     ON CONFLICT ON CONSTRAINT xapi_documents__key DO NOTHING`,
    [...keyValues(tenantId, key), document.content, document.contentType, document.etag],
  );
  return rowCount === 1;
}

/** Where one document of a batch lives: its tenant and its key. */
export interface DocumentAddress {
  tenantId: string;
  key: DocumentKey;
}

/** One document of a batch and what to store under it. */
export interface AddressedDocument extends DocumentAddress {
  document: Omit<StoredDocument, 'updatedAt'>;
}

// Joined on NUL, which no text column can hold, so two keys are equal only when every part is.
const keyText = (tenantId: string, key: DocumentKey) =>
  `${tenantId}\0${key.kind}\0${key.activityId}\0${key.agentKey}\0${key.registration}\0${key.documentId}`;

/** What tells two documents apart: equal for the same row of `xapi_documents`. */
export const addressKey = ({ tenantId, key }: DocumentAddress): string => keyText(tenantId, key);

/**
 * The addresses in key order, as the columns `unnest` takes. Every statement that locks or
 * inserts several documents goes through them in this one order, so that two transactions
 * sharing documents wait for each other instead of deadlocking.
 */
function keyColumns<Address extends DocumentAddress>(addresses: readonly Address[]) {
  const keys = addresses.map(addressKey);
  const ordered = keyOrder(keys);
  const column = <T>(of: (address: Address) => T) => ordered.map((i) => of(addresses[i]));
  const columns = [
    column((a) => a.tenantId),
    column((a) => a.key.kind),
    column((a) => a.key.activityId),
    column((a) => a.key.agentKey),
    column((a) => a.key.registration),
    column((a) => a.key.documentId),
  ];
  return { columns, column };
}

/** The positions of `keys` in key order: the one order every statement locks or inserts in. */
const keyOrder = (keys: readonly string[]): number[] => keys.map((_, i) => i).sort((a, b) => compare(keys[a], keys[b]));

const keyTextOf = (row: KeyRow) =>
  keyText(row.tenant_id, {
    kind: row.kind,
    activityId: row.activity_id,
    agentKey: row.agent_key,
    registration: row.registration,
    documentId: row.document_id,
  });

/**
 * findDocumentForUpdate for many documents in one statement (each address at most once): the
 * stored ones, by addressKey. The rows are locked in key order (keyColumns).
 */
export async function findDocumentsForUpdate(sql: SqlClient, addresses: readonly DocumentAddress[]): Promise<Map<string, StoredDocument>> {
  const { columns } = keyColumns(addresses);
  // ORDER BY comes before the locking: the rows are locked in the order they are sorted.
  const { rows } = await sql.query<KeyRow & DocumentRow>(
    `SELECT d.tenant_id, d.kind, d.activity_id, d.agent_key, d.registration, d.document_id,
            d.content, d.content_type, d.etag, d.updated_at
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
              AS k (tenant_id, kind, activity_id, agent_key, registration, document_id, position)
       JOIN xapi_documents d
         ON (d.tenant_id, d.kind, d.activity_id, d.agent_key, d.registration, d.document_id)
          = (k.tenant_id, k.kind, k.activity_id, k.agent_key, k.registration, k.document_id)
      ORDER BY k.position
        FOR UPDATE OF d`,
    columns,
  );
  return new Map(rows.map((row) => [keyTextOf(row), toDocument(row)]));
}

/**
 * insertDocumentIfAbsent for many documents in one statement (each key at most once): answers,
 * in the documents' order, whether each was inserted. The rows go in key order (keyOrder).
 */
export async function insertDocumentsIfAbsent(sql: SqlClient, documents: readonly AddressedDocument[]): Promise<boolean[]> {
  const keys = documents.map(addressKey);
  // One row of parameters a document, not one array a column: PostgreSQL takes the content as
  // binary bytes instead of parsing a text array of hex, and the statement for each batch size
  // is prepared once per connection.
  const values: unknown[] = [];
  for (const i of keyOrder(keys)) {
    const { tenantId, key, document } = documents[i];
    values.push(tenantId, key.kind, key.activityId, key.agentKey, key.registration, key.documentId);
    values.push(document.content, document.contentType, document.etag);
  }
  const { rows } = await sql.query<KeyRow>(insertText(documents.length), values);
  const inserted = new Set(rows.map(keyTextOf));
  return keys.map((key) => inserted.has(key));
}

/** The parameters of one inserted document: its key, content, content type and ETag. */
const INSERT_WIDTH = 9;
/** The insert of `rows` documents, by batch size: made once each, not for every batch. */
const insertTexts: string[] = [];
const insertText = (rows: number): string =>
  (insertTexts[rows] ??= `INSERT INTO xapi_documents
       (tenant_id, kind, activity_id, agent_key, registration, document_id, content, content_type, etag, updated_at)
     VALUES ${valueRows(rows, INSERT_WIDTH, 'clock_timestamp()')}
     ON CONFLICT ON CONSTRAINT xapi_documents__key DO NOTHING
     RETURNING tenant_id, kind, activity_id, agent_key, registration, document_id`);

/** `($1, …, $n, extra), (…)`: `rows` rows of `width` parameters each, row after row. */
const valueRows = (rows: number, width: number, extra: string): string =>
  Array.from(
    { length: rows },
    (_, row) => `(${Array.from({ length: width }, (_, i) => `$${row * width + i + 1}`).join(', ')}, ${extra})`,
  ).join(', ');

/** updateDocument for many stored documents in one statement (each key at most once, rows locked already). */
export async function updateDocuments(sql: SqlClient, documents: readonly AddressedDocument[]): Promise<void> {
  const { columns, column } = keyColumns(documents);
  await sql.query(
    `UPDATE xapi_documents d
        SET content = t.content, content_type = t.content_type, etag = t.etag, updated_at = clock_timestamp()
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bytea[], $8::text[], $9::text[])
              AS t (tenant_id, kind, activity_id, agent_key, registration, document_id, content, content_type, etag)
      WHERE (d.tenant_id, d.kind, d.activity_id, d.agent_key, d.registration, d.document_id)
          = (t.tenant_id, t.kind, t.activity_id, t.agent_key, t.registration, t.document_id)`,
    [...columns, column((d) => d.document.content), column((d) => d.document.contentType), column((d) => d.document.etag)],
  );
}

interface KeyRow {
  tenant_id: string;
  kind: DocumentKind;
  activity_id: string;
  agent_key: string;
  registration: string;
  document_id: string;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function updateDocument(
  sql: SqlClient,
  tenantId: string,
  key: DocumentKey,
  document: Omit<StoredDocument, 'updatedAt'>,
): Promise<void> {
  await sql.query(`UPDATE xapi_documents SET content = $7, content_type = $8, etag = $9, updated_at = clock_timestamp() WHERE ${KEY}`, [
    ...keyValues(tenantId, key),
    document.content,
    document.contentType,
    document.etag,
  ]);
}

export async function deleteDocument(sql: SqlClient, tenantId: string, key: DocumentKey): Promise<void> {
  await sql.query(`DELETE FROM xapi_documents WHERE ${KEY}`, keyValues(tenantId, key));
}

/** Deletes every document of the scope (state without stateId); a scope without registration spans them all. */
export async function deleteDocuments(sql: SqlClient, tenantId: string, scope: DocumentScope): Promise<number> {
  const { rowCount } = await sql.query(
    `DELETE FROM xapi_documents
      WHERE tenant_id = $1 AND kind = $2 AND activity_id = $3 AND agent_key = $4 AND ($5::text IS NULL OR registration = $5)`,
    [tenantId, scope.kind, scope.activityId, scope.agentKey, scope.registration ?? null],
  );
  return rowCount;
}

/** The ids of the scope's documents, optionally only those changed after `since`, in id order. */
export async function listDocumentIds(sql: SqlClient, tenantId: string, scope: DocumentScope, since?: Date): Promise<string[]> {
  const { rows } = await sql.query<{ document_id: string }>(
    `SELECT DISTINCT document_id FROM xapi_documents
      WHERE tenant_id = $1 AND kind = $2 AND activity_id = $3 AND agent_key = $4
        AND ($5::text IS NULL OR registration = $5)
        AND ($6::timestamptz IS NULL OR updated_at > $6)
      ORDER BY document_id`,
    [tenantId, scope.kind, scope.activityId, scope.agentKey, scope.registration ?? null, since ?? null],
  );
  return rows.map((row) => row.document_id);
}
