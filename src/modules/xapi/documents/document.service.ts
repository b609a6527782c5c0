import type { SqlClient } from '../../../platform/database/sql-client.js';
import { Refused, WriteBatcher } from '../../../platform/database/write-batcher.js';
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
import type { AddressedDocument, DocumentAddress, DocumentKey, DocumentScope, StoredDocument } from './document.repository.js';
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
export type NewDocumentWriter = WriteBatcher<AddressedDocument>;

export const newDocumentWriter = (sql: SqlClient): NewDocumentWriter =>
  new WriteBatcher<AddressedDocument>({
    name: 'new_documents',
    write: async (documents) =>
      documents.length === 1
        ? [await repository.insertDocumentIfAbsent(sql, documents[0].tenantId, documents[0].key, documents[0].document)]
        : repository.insertDocumentsIfAbsent(sql, documents),
    keyOf: repository.addressKey,
    // Two at a time: fewer, larger batches wake the database less often, which on a machine
    // shared with it pays more than a third and fourth statement in flight (docs/performance.md,
    // "Writes at the database's pace: shared commits").
    maxInFlight: 2,
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

/** One POST: where it merges, what it sent (parsed, when sent as JSON) and what it expects. */
interface DocumentMerge extends DocumentAddress {
  content: Buffer;
  contentType: string;
  sent: unknown;
  preconditions: Preconditions;
}

type NotMergeable = 'stored' | 'stored too deep';

/**
 * A document as the merges before the next one left it. A merged object is serialised, and its
 * ETag hashed, only when read: by a later merge's If-Match or If-None-Match, or once to store it.
 */
class MergedDocument implements StoredVersion {
  private constructor(
    readonly contentType: string,
    private bytes: Buffer | undefined,
    private tag: string | undefined,
    /** The JSON object the next merge goes into, or why there is none; undefined until asked. */
    private into: Record<string, unknown> | NotMergeable | undefined,
  ) {}

  static stored(document: StoredVersion): MergedDocument {
    return new MergedDocument(document.contentType, document.content, document.etag, undefined);
  }

  /** What the first merge into an absent document stores: the bytes it sent, of any media type. */
  static sent(merge: DocumentMerge): MergedDocument {
    return new MergedDocument(merge.contentType, merge.content, undefined, isJsonObject(merge.sent) ? merge.sent : 'stored');
  }

  static merged(object: Record<string, unknown>): MergedDocument {
    return new MergedDocument('application/json', undefined, undefined, object);
  }

  get content(): Buffer {
    this.bytes ??= Buffer.from(JSON.stringify(this.into));
    return this.bytes;
  }

  get etag(): string {
    this.tag ??= etagOf(this.content);
    return this.tag;
  }

  /** The stored JSON object a merge goes into, or why it cannot. */
  mergeable(): Record<string, unknown> | NotMergeable {
    if (this.into === undefined) {
      const stored = asJsonObject(this.content, this.contentType);
      // A document PUT stores as it is may be deeper than a merge can write back. What a merge
      // left needs no check: sent and stored were both within the depth, so is their merge.
      this.into = !stored ? 'stored' : mergeDepthProblem(stored, 'document') ? 'stored too deep' : stored;
    }
    return this.into;
  }

  toStore(): Next {
    return { content: this.content, contentType: this.contentType, etag: this.etag };
  }
}

/** One merge into the document as it stands (undefined: none stored): what it leaves, or why it is refused. */
function mergeInto(current: MergedDocument | undefined, merge: DocumentMerge): MergedDocument | Refused {
  if (!preconditionsHold(merge.preconditions, current)) return new Refused(DocumentErrors.preconditionFailed());
  if (!current) return MergedDocument.sent(merge);
  if (!isJsonObject(merge.sent)) return new Refused(DocumentErrors.notMergeable('sent'));
  const stored = current.mergeable();
  if (typeof stored === 'string') return new Refused(DocumentErrors.notMergeable(stored));
  return MergedDocument.merged(mergeJson(stored, merge.sent));
}

/**
 * The merges of one batch in one transaction: every document read and locked by one statement,
 * each document's merges applied in arrival order, then one statement for the changed documents
 * and one for the new. A merge refused (412, 400) leaves the document as the previous one left it.
 */
async function writeMerges(sql: SqlClient, merges: DocumentMerge[]): Promise<Array<undefined | Refused>> {
  if (merges.length === 1) {
    // Alone (a quiet moment, or a batch written again one merge at a time): lockedWrite also
    // takes the turn of an insert that lost its race.
    const [merge] = merges;
    await lockedWrite(sql, merge.tenantId, merge.key, (current) => {
      const next = mergeInto(current && MergedDocument.stored(current), merge);
      if (next instanceof Refused) throw next.error;
      return next.toStore();
    });
    return [undefined];
  }
  const byDocument = new Map<string, number[]>();
  merges.forEach((merge, i) => {
    const key = repository.addressKey(merge);
    const indexes = byDocument.get(key);
    if (indexes) indexes.push(i);
    else byDocument.set(key, [i]);
  });
  return sql.transaction(async (tx) => {
    const addresses = [...byDocument.values()].map(([first]) => merges[first]);
    const stored = await repository.findDocumentsForUpdate(tx, addresses);
    const results: Array<undefined | Refused> = merges.map(() => undefined);
    const updated: AddressedDocument[] = [];
    const created: AddressedDocument[] = [];
    for (const [key, indexes] of byDocument) {
      const found = stored.get(key);
      let current = found && MergedDocument.stored(found);
      let changed = false;
      for (const i of indexes) {
        const next = mergeInto(current, merges[i]);
        if (next instanceof Refused) {
          results[i] = next;
          continue;
        }
        current = next;
        changed = true;
      }
      if (!current || !changed) continue;
      const { tenantId, key: documentKey } = merges[indexes[0]];
      (found ? updated : created).push({ tenantId, key: documentKey, document: current.toStore() });
    }
    if (updated.length > 0) await repository.updateDocuments(tx, updated);
    if (created.length > 0 && !(await repository.insertDocumentsIfAbsent(tx, created)).every(Boolean)) {
      // Another request stored one of them since the read: rolled back, each merge is written
      // again alone and decides on what is stored now.
      throw new Error('a merged document was inserted concurrently');
    }
    return results;
  });
}

/**
 * Where POSTs go: the merges of concurrent requests share one transaction and one commit, those
 * into one document folded into one read and one write of its row
 * (platform/database/write-batcher.ts). One per process.
 */
export type DocumentMergeWriter = WriteBatcher<DocumentMerge, undefined>;

export const documentMergeWriter = (sql: SqlClient): DocumentMergeWriter =>
  new WriteBatcher<DocumentMerge, undefined>({
    name: 'document_merges',
    write: (merges) => writeMerges(sql, merges),
    keyOf: repository.addressKey,
    sameKey: 'together',
    maxInFlight: 4,
    maxBatch: 100,
  });

/** The batched writers of one process: PUTs of new documents, and POSTs. */
export interface DocumentWriters {
  newDocuments: NewDocumentWriter;
  merges: DocumentMergeWriter;
}

/**
 * POST: merges a JSON object into the stored one, or stores the document when there is none
 * (xAPI 2.0 Part 3 §1.2.2). A JSON document nested deeper than MAX_JSON_DEPTH is refused even
 * when none is stored yet, so whatever POST stores can be merged into later; PUT stores any.
 * What needs no stored document is checked here, before the merge joins a batch.
 */
export async function mergeDocument(merges: DocumentMergeWriter, tenantId: string, write: DocumentWrite): Promise<void> {
  const sent = parseContent(write);
  const tooDeep = mergeDepthProblem(sent, 'document');
  if (tooDeep) throw DocumentErrors.tooDeep(tooDeep.path, tooDeep.why);
  const { key, content, contentType, preconditions } = write;
  await merges.submit({ tenantId, key, content, contentType, sent, preconditions });
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
