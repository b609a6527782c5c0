import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import {
  getMultipartBoundary,
  MaxFileSizeExceededError,
  MaxTotalSizeExceededError,
  MultipartParseError,
  parseMultipartStream,
} from '@remix-run/multipart-parser/node';
import type { SqlClient } from '../../../../platform/database/sql-client.js';
import type { JsonObject } from '../../../../kernel/formats.js';
import { AttachmentErrors } from './attachment.errors.js';
import { checkSignature, SIGNATURE_CONTENT_TYPE, SIGNATURE_USAGE_TYPE } from './attachment-signature.js';
import { databaseAttachmentStore, type AttachmentData, type AttachmentStore } from './attachment.store.js';
import { findUnsentAttachments, type UnsentAttachment } from './unsent-attachment.repository.js';

/**
 * Statement attachments (xAPI 2.0 Part 2 §2.4.11, Part 3 §1.5.2; 1.0.3 §2.4.11 and Part 3
 * §1.5.2): reading a multipart/mixed request into the statements and their attachment parts,
 * matching parts to attachments, and writing the multipart/mixed answer of `attachments=true`.
 *
 * The parser is @remix-run/multipart-parser (the maintained successor of
 * @mjackson/multipart-parser): it parses any `multipart/*` subtype from a stream, part by part,
 * with limits on part and total size. @fastify/multipart and busboy parse form-data only, dicer
 * has not been released since 2019.
 */

/** One attachment part of a request, its data checked against its X-Experience-API-Hash. */
export interface AttachmentPart extends AttachmentData {
  /** Its place among the request's parts, the statements' part being 0 (errors count from 1). */
  index: number;
}

/** What a statement write carries besides the statements: the parts, and where to keep them. */
export interface StatementAttachments {
  parts: readonly AttachmentPart[];
  store: AttachmentStore;
}

/** A JSON request: no parts, so every attachment needs a fileUrl. */
export const NO_ATTACHMENTS: StatementAttachments = { parts: [], store: databaseAttachmentStore };

/** A preamble before the first boundary (RFC 2046 §5.1.1) longer than this is refused. */
const MAX_PREAMBLE = 8 * 1024;

/** SHA-2 variants by the length of their hex digest. */
const SHA2_BY_LENGTH: Record<number, string> = { 56: 'sha224', 64: 'sha256', 96: 'sha384', 128: 'sha512' };

const partsByRequest = new WeakMap<FastifyRequest, AttachmentPart[]>();

/** The attachment parts of this request's multipart/mixed body (none for a JSON body). */
export function attachmentPartsOf(request: FastifyRequest): AttachmentPart[] {
  return partsByRequest.get(request) ?? [];
}

/**
 * The content-type parser of multipart/mixed statement writes: answers the statements of the
 * first part as the request's body and keeps the attachment parts for `attachmentPartsOf`.
 */
export function multipartStatementsParser(limitBytes: number) {
  return async (request: FastifyRequest, payload: Readable): Promise<unknown> => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limitBytes) throw AttachmentErrors.tooLarge(limitBytes);
    const { statements, parts } = await parseStatementsMultipart(payload, String(request.headers['content-type'] ?? ''), limitBytes);
    partsByRequest.set(request, parts);
    return statements;
  };
}

/**
 * Reads a multipart/mixed statement request (2.0 Part 3 §1.5.2): the first part is the
 * statements as application/json, every other part one attachment's raw data with
 * `X-Experience-API-Hash` (its sha2) and `Content-Transfer-Encoding: binary`. Each part's data
 * is hashed as it is read. More than `limitBytes` in all: 413; anything malformed: 400.
 */
export async function parseStatementsMultipart(
  body: Readable,
  contentType: string,
  limitBytes: number,
): Promise<{ statements: unknown; parts: AttachmentPart[] }> {
  const boundary = getMultipartBoundary(contentType);
  if (!boundary) throw AttachmentErrors.invalidMultipart('the Content-Type header has no boundary parameter');
  let statements: unknown;
  const parts: AttachmentPart[] = [];
  let index = 0;
  try {
    const stream = Readable.from(fromFirstBoundary(body, boundary, limitBytes));
    for await (const part of parseMultipartStream(stream, { boundary, maxFileSize: limitBytes, maxTotalSize: limitBytes })) {
      if (index === 0) statements = statementsPart(part.headers['content-type'], part.bytes);
      else parts.push(attachmentPart(index, part.headers, part.content));
      index += 1;
    }
  } catch (error) {
    if (error instanceof MaxFileSizeExceededError || error instanceof MaxTotalSizeExceededError)
      throw AttachmentErrors.tooLarge(limitBytes);
    if (error instanceof MultipartParseError)
      throw AttachmentErrors.invalidMultipart(error.message.replace(/^Invalid multipart stream: /, ''));
    throw error;
  }
  if (index === 0) throw AttachmentErrors.invalidMultipart('it has no parts');
  return { statements, parts };
}

/**
 * The body from its first boundary on: RFC 2046 lets a preamble (often a lone CRLF) come
 * before it, which the parser does not skip. Also counts the bytes against the limit. An error
 * leaves the rest of the body unread but the request stream open, so the refusal can still be
 * answered (Node discards what is left once the response is sent).
 */
async function* fromFirstBoundary(body: Readable, boundary: string, limitBytes: number): AsyncGenerator<Buffer> {
  const marker = Buffer.from(`--${boundary}`);
  let head: Buffer | undefined = Buffer.alloc(0);
  let total = 0;
  for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limitBytes) throw AttachmentErrors.tooLarge(limitBytes);
    if (head === undefined) {
      yield chunk;
      continue;
    }
    head = Buffer.concat([head, chunk]);
    const at = head.indexOf(marker);
    if (at >= 0) {
      yield head.subarray(at);
      head = undefined;
    } else if (head.length > MAX_PREAMBLE + marker.length) {
      throw AttachmentErrors.invalidMultipart(`no boundary line --${boundary} in its first ${MAX_PREAMBLE} bytes`);
    }
  }
  if (head !== undefined) throw AttachmentErrors.invalidMultipart(`no boundary line --${boundary}`);
}

function statementsPart(contentType: string | undefined, bytes: Uint8Array): unknown {
  if (mediaType(contentType) !== 'application/json') {
    throw AttachmentErrors.invalidMultipart(`the first part must be the statements as application/json, not ${contentType ?? 'untyped'}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw AttachmentErrors.invalidMultipart('the first part is not valid JSON in UTF-8');
  }
  // A "__proto__" key is data, as in application/json bodies (app.ts, onProtoPoisoning: 'ignore'):
  // JSON.parse makes it an own property, and the statements are copied by defining keys.
  return value;
}

function attachmentPart(index: number, headers: Readonly<Record<string, string | undefined>>, content: Uint8Array[]): AttachmentPart {
  const sha2 = headers['x-experience-api-hash']?.trim().toLowerCase();
  if (!sha2) throw AttachmentErrors.invalidPart(index, 'has no X-Experience-API-Hash header');
  const algorithm = /^[0-9a-f]+$/.test(sha2) ? SHA2_BY_LENGTH[sha2.length] : undefined;
  if (!algorithm) throw AttachmentErrors.invalidPart(index, `has an X-Experience-API-Hash that is not a SHA-2 hex digest: ${sha2}`);
  // 2.0 Part 3 §1.5.2.s2.b2: binary is the only encoding; base64 and the like are refused.
  const encoding = headers['content-transfer-encoding']?.trim().toLowerCase();
  if (encoding !== 'binary') {
    throw AttachmentErrors.invalidPart(index, `must have Content-Transfer-Encoding: binary, not ${encoding ?? 'none'}`);
  }
  const hash = createHash(algorithm);
  for (const chunk of content) hash.update(chunk);
  if (hash.digest('hex') !== sha2) throw AttachmentErrors.hashMismatch(index, sha2);
  // One chunk (the usual case for small parts) is used as it is, not copied.
  const data = content.length === 1 ? Buffer.from(content[0].buffer, content[0].byteOffset, content[0].byteLength) : Buffer.concat(content);
  return { index, sha2, contentType: headers['content-type']?.trim() || 'application/octet-stream', data };
}

const mediaType = (contentType: string | undefined) => contentType?.split(';')[0].trim().toLowerCase();

interface ListedAttachment {
  path: string;
  attachment: JsonObject;
  sha2: string;
  /** True for an attachment of the statement's SubStatement object, not of the statement itself. */
  nested: boolean;
}

/** The attachments of a statement and of its SubStatement object, with their paths. */
function listAttachments(statement: JsonObject, path: string): ListedAttachment[] {
  const object = statement.object as JsonObject | undefined;
  const places: Array<[unknown, string, boolean]> = [[statement.attachments, `${path}.attachments`, false]];
  if (object?.objectType === 'SubStatement') places.push([object.attachments, `${path}.object.attachments`, true]);
  return places.flatMap(([list, at, nested]) =>
    Array.isArray(list)
      ? list.map((attachment, index) => ({
          path: `${at}[${index}]`,
          attachment: attachment as JsonObject,
          sha2: String((attachment as JsonObject).sha2).toLowerCase(),
          nested,
        }))
      : [],
  );
}

/**
 * Matches the parts of a request to the attachments of its (validated) statements, as 2.0
 * Part 3 §1.5.2 and Part 2 §2.4.11 require, and checks signatures (§2.6):
 *
 * - an attachment without fileUrl needs a part with its sha2 (400 naming it otherwise); one
 *   with fileUrl may have one;
 * - every part must be the data of some attachment (400 for an unused part);
 * - a signature attachment (usageType …/signature) needs contentType application/octet-stream
 *   and its part, which must be a valid signature of its statement.
 *
 * `paths[i]` names statement i in errors. Answers the parts to store, one per hash.
 */
export async function matchAttachments(
  statements: readonly JsonObject[],
  paths: readonly string[],
  parts: readonly AttachmentPart[],
): Promise<AttachmentPart[]> {
  const bySha2 = new Map<string, AttachmentPart>();
  for (const part of parts) if (!bySha2.has(part.sha2)) bySha2.set(part.sha2, part);
  const used = new Set<string>();
  for (const [index, statement] of statements.entries()) {
    for (const { path, attachment, sha2, nested } of listAttachments(statement, paths[index])) {
      const part = bySha2.get(sha2);
      if (part) used.add(sha2);
      else if (attachment.fileUrl === undefined) throw AttachmentErrors.missingData(path, sha2);
      // A SubStatement is not signed on its own: only the statement's own signature is checked.
      if (attachment.usageType !== SIGNATURE_USAGE_TYPE || nested) continue;
      if (mediaType(attachment.contentType as string) !== SIGNATURE_CONTENT_TYPE) {
        throw AttachmentErrors.invalidSignature(path, `a signature's contentType must be ${SIGNATURE_CONTENT_TYPE}`);
      }
      if (!part) throw AttachmentErrors.invalidSignature(path, 'its JWS must be sent as a part of the request');
      await checkSignature(statement, part.data.toString('utf8'), path);
    }
  }
  for (const part of parts) if (!used.has(part.sha2)) throw AttachmentErrors.unusedPart(part.index, part.sha2);
  return [...bySha2.values()];
}

/**
 * The attachments of `statements` (with their final ids) that no part of the request carried:
 * fileUrl attachments sent without data. Recorded for a learner credential's or launch token's
 * statements, which are never answered with stored data of such a hash (attachmentsOf).
 */
export function unsentAttachments(
  statements: readonly JsonObject[],
  ids: readonly string[],
  parts: readonly AttachmentPart[],
): UnsentAttachment[] {
  const sent = new Set(parts.map((part) => part.sha2));
  return statements.flatMap((statement, index) =>
    listAttachments(statement, '').flatMap(({ sha2 }) => (sent.has(sha2) ? [] : [{ statementId: ids[index]!, sha2 }])),
  );
}

/**
 * The attachment data the statements use, each hash once, for `attachments=true` (2.0 Part 3
 * §2.1.3): hashes from the statements' own JSON (and their SubStatements'), data through the
 * store; a fileUrl attachment whose data was never sent has none, and is not answered. Data is
 * stored once per tenant and hash, so a learner's statement naming a hash it did not send (its
 * row in xapi_attachments_unsent) is not answered with another person's copy of that data.
 * Each answered with the contentType of the first attachment naming it.
 */
export async function attachmentsOf(
  sql: SqlClient,
  store: AttachmentStore,
  tenantId: string,
  statements: readonly JsonObject[],
): Promise<AttachmentData[]> {
  const named = statements.flatMap((statement) =>
    listAttachments(statement, '').map((item) => ({ ...item, statementId: String(statement.id).toLowerCase() })),
  );
  if (named.length === 0) return [];
  const unsent = new Set(
    (await findUnsentAttachments(sql, tenantId, [...new Set(named.map((item) => item.statementId))])).map(
      (row) => `${row.statementId} ${row.sha2}`,
    ),
  );
  const contentTypes = new Map<string, string>();
  for (const { attachment, sha2, statementId } of named) {
    if (unsent.has(`${statementId} ${sha2}`)) continue;
    if (!contentTypes.has(sha2) && typeof attachment.contentType === 'string') contentTypes.set(sha2, attachment.contentType);
  }
  if (contentTypes.size === 0) return [];
  const found = await store.get(sql, tenantId, [...contentTypes.keys()]);
  return found.map((item) => ({ ...item, contentType: contentTypes.get(item.sha2) ?? item.contentType }));
}

/**
 * The multipart/mixed answer of 2.0 Part 3 §1.5.2: `json` (a statement or a StatementResult)
 * first, then one part per attachment with Content-Type, Content-Transfer-Encoding: binary and
 * X-Experience-API-Hash. The boundary is random, so it cannot occur in the data by chance.
 */
export function multipartBody(json: string, attachments: readonly AttachmentData[]): { contentType: string; body: Buffer } {
  const boundary = randomBytes(16).toString('hex');
  const chunks: Buffer[] = [Buffer.from(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${json}`)];
  for (const item of attachments) {
    chunks.push(
      Buffer.from(
        `\r\n--${boundary}\r\nContent-Type: ${item.contentType.replace(/[\r\n]/g, ' ')}\r\nContent-Transfer-Encoding: binary\r\n` +
          `X-Experience-API-Hash: ${item.sha2}\r\n\r\n`,
      ),
      item.data,
    );
  }
  chunks.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return { contentType: `multipart/mixed; boundary=${boundary}`, body: Buffer.concat(chunks) };
}
