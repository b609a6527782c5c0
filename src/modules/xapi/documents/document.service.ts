import type { SqlClient } from '../../../platform/database/sql-client.js';
import { WriteBatcher } from '../../../platform/database/write-batcher.js';
import { utf8Text } from '../../../platform/json-guard.js';
import {
  asJsonObject,
  etagOf,
  hasPreconditions,
  isJsonObject,
  isJsonType,
  mergeDepthProblem,
  mergeJson,
  preconditionsHold,
  type Preconditions,
  type StoredVersion,
} from './document-rules.js';
import * as repository from './document.repository.js';
import type { DocumentKey, DocumentScope, NewDocument, StoredDocument } from './document.repository.js';
import { DocumentErrors } from './document.errors.js';

export type { DocumentKey, DocumentScope, StoredDocument };

export interface DocumentWrite {
  key: DocumentKey;
  content: Buffer;
  contentType: string;
  preconditions: Preconditions;
  /** The xAPI version of the request: the rules for writes without preconditions differ. */
  version: '1.0.3' | '2.0.0';
}

type Next = Omit<StoredDocument, 'updatedAt'>;

const version = (content: Buffer, contentType: string): Next => ({ content, contentType, etag: etagOf(content) });

/**
 * A document sent as JSON must be JSON: a merge could not read it back otherwise. Answers the
 * parsed value (undefined for any other media type).
 */
function parseContent(write: DocumentWrite): unknown {
  if (!isJsonType(write.contentType)) return undefined;
  const text = utf8Text(write.content);
  if (text === undefined) throw DocumentErrors.invalidJson();
  try {
    return JSON.parse(text);
  } catch {
    throw DocumentErrors.invalidJson();
  }
}

/**
 * Runs a read-decide-write on one document under a row lock, so concurrent writers of the same
 * document take turns and each decides on what the previous one left. `decide` answers what
 * to store (or throws); when the document does not exist yet the insert may lose a race to
 * another insert, and the loop then decides again on the winner's document.
 */
async function lockedWrite(
  sql: SqlClient,
  tenantId: string,
  key: DocumentKey,
  decide: (current: StoredVersion | undefined) => Next | 'delete',
): Promise<void> {
  await sql.transaction(async (tx) => {
    for (;;) {
      const current = await repository.findDocumentForUpdate(tx, tenantId, key);
      const next = decide(current);
      if (next === 'delete') {
        if (current) await repository.deleteDocument(tx, tenantId, key);
        return;
      }
      if (current) return repository.updateDocument(tx, tenantId, key, next);
      if (await repository.insertDocumentIfAbsent(tx, tenantId, key, next)) return;
    }
  });
}

/**
 * Where the PUTs of new documents go: the inserts of concurrent requests are written together,
 * one statement and one commit for many (platform/database/write-batcher.ts). One per process.
 */
export type NewDocumentWriter = WriteBatcher<NewDocument>;

export const newDocumentWriter = (sql: SqlClient): NewDocumentWriter =>
  new WriteBatcher<NewDocument>({
    name: 'new_documents',
    write: async (documents) =>
      documents.length === 1
        ? [await repository.insertDocumentIfAbsent(sql, documents[0].tenantId, documents[0].key, documents[0].document)]
        : repository.insertDocumentsIfAbsent(sql, documents),
    keyOf: repository.newDocumentKey,
    maxInFlight: 4,
    maxBatch: 100,
  });

/** Where a PUT without If-Match or If-None-Match may not replace an existing document. */
const existingNeedsPrecondition = (write: DocumentWrite) => write.version === '2.0.0' || write.key.kind !== 'state';

/** PUT: stores the document in place of any other (xAPI 2.0 Part 3 §1.2.1). */
export async function overwriteDocument(
  sql: SqlClient,
  newDocuments: NewDocumentWriter,
  tenantId: string,
  write: DocumentWrite,
): Promise<void> {
  parseContent(write);
  const next = version(write.content, write.contentType);
  const { preconditions } = write;
  if (!hasPreconditions(preconditions) && write.version === '1.0.3' && write.key.kind !== 'state') {
    // 1.0.3 §7.3 (as its conformance suite reads it): a profile PUT must say what it expects.
    throw (await repository.findDocument(sql, tenantId, write.key)) ? DocumentErrors.conflict() : DocumentErrors.preconditionRequired();
  }
  // The common case, a new document, costs no transaction: its insert shares one statement with
  // those of other requests; only when one is stored already is it read and replaced under a lock.
  if (preconditions.ifMatch === undefined && (await newDocuments.submit({ tenantId, key: write.key, document: next }))) return;
  await lockedWrite(sql, tenantId, write.key, (current) => {
    if (!preconditionsHold(preconditions, current)) throw DocumentErrors.preconditionFailed();
    if (current && !hasPreconditions(preconditions) && existingNeedsPrecondition(write)) throw DocumentErrors.conflict();
    return next;
  });
}

/**
 * POST: merges a JSON object into the stored one, or stores the document when there is none
 * (xAPI 2.0 Part 3 §1.2.2). A JSON document nested deeper than MAX_JSON_DEPTH is refused even
 * when none is stored yet, so whatever POST stores can be merged into later; PUT stores any.
 */
export async function mergeDocument(sql: SqlClient, tenantId: string, write: DocumentWrite): Promise<void> {
  const sent = parseContent(write);
  const tooDeep = mergeDepthProblem(sent, 'document');
  if (tooDeep) throw DocumentErrors.tooDeep(tooDeep.path, tooDeep.why);
  await lockedWrite(sql, tenantId, write.key, (current) => {
    if (!preconditionsHold(write.preconditions, current)) throw DocumentErrors.preconditionFailed();
    if (!current) return version(write.content, write.contentType);
    if (!isJsonObject(sent)) throw DocumentErrors.notMergeable('sent');
    const stored = asJsonObject(current.content, current.contentType);
    if (!stored) throw DocumentErrors.notMergeable('stored');
    // A document PUT stores as it is may be deeper than a merge can write back.
    if (mergeDepthProblem(stored, 'document')) throw DocumentErrors.notMergeable('stored too deep');
    return version(Buffer.from(JSON.stringify(mergeJson(stored, sent))), 'application/json');
  });
}

/** DELETE of one document; deleting what is not there succeeds, unless If-Match expected it. */
export async function removeDocument(sql: SqlClient, tenantId: string, key: DocumentKey, preconditions: Preconditions): Promise<void> {
  if (!hasPreconditions(preconditions)) return repository.deleteDocument(sql, tenantId, key);
  await lockedWrite(sql, tenantId, key, (current) => {
    if (!preconditionsHold(preconditions, current)) throw DocumentErrors.preconditionFailed();
    return 'delete';
  });
}

/** DELETE of every state of an activity and agent (and registration, when given). */
export async function removeDocuments(sql: SqlClient, tenantId: string, scope: DocumentScope): Promise<void> {
  await repository.deleteDocuments(sql, tenantId, scope);
}

export async function getDocument(sql: SqlClient, tenantId: string, key: DocumentKey): Promise<StoredDocument> {
  const document = await repository.findDocument(sql, tenantId, key);
  if (!document) throw DocumentErrors.notFound();
  return document;
}

export function listDocumentIds(sql: SqlClient, tenantId: string, scope: DocumentScope, since?: Date): Promise<string[]> {
  return repository.listDocumentIds(sql, tenantId, scope, since);
}
