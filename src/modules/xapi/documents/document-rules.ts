import { hash } from 'node:crypto';
import { findJsonProblem, utf8Text, type JsonProblem } from '../../../platform/json-guard.js';

/** The stored facts concurrency and merge decisions need. */
export interface StoredVersion {
  etag: string;
  content: Buffer;
  contentType: string;
}

/** `"<sha1 hex>"`: xAPI 2.0 Part 3 §1.1 (1.0.3 §6.3) computes the ETag as the SHA-1 of the content, quoted. */
export const etagOf = (content: Buffer): string => `"${hash('sha1', content, 'hex')}"`;

/** The entity tags of an If-Match / If-None-Match value (RFC 9110 §13.1): `*`, or a list, weak tags compared weakly. */
function tagsOf(header: string): string[] | '*' {
  const value = header.trim();
  if (value === '*') return '*';
  return value
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .filter(Boolean)
    .map((tag) => (tag.startsWith('"') ? tag : `"${tag}"`));
}

export interface Preconditions {
  ifMatch?: string;
  ifNoneMatch?: string;
}

/** True when RFC 9110 §13.1.1-2 says the write may go ahead against `current` (undefined: no document). */
export function preconditionsHold(preconditions: Preconditions, current: StoredVersion | undefined): boolean {
  if (preconditions.ifMatch !== undefined) {
    if (!current) return false;
    const tags = tagsOf(preconditions.ifMatch);
    if (tags !== '*' && !tags.includes(current.etag)) return false;
  }
  if (preconditions.ifNoneMatch !== undefined && current) {
    const tags = tagsOf(preconditions.ifNoneMatch);
    if (tags === '*' || tags.includes(current.etag)) return false;
  }
  return true;
}

export const hasPreconditions = (preconditions: Preconditions): boolean =>
  preconditions.ifMatch !== undefined || preconditions.ifNoneMatch !== undefined;

export const isJsonType = (contentType: string): boolean => /^application\/(.+\+)?json\s*(;|$)/i.test(contentType.trim());

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The document as a JSON object, or undefined when it is not one (other type, bad JSON, array, scalar). */
export function asJsonObject(content: Buffer, contentType: string): Record<string, unknown> | undefined {
  if (!isJsonType(contentType)) return undefined;
  try {
    const text = utf8Text(content);
    if (text === undefined) return undefined;
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where a JSON document is nested too deep to be merged (MAX_JSON_DEPTH): a merge writes the
 * result back with JSON.stringify, which recurses and overflows the stack a few thousand levels
 * down. Strings are not checked: documents are stored as bytes, never as jsonb, and
 * JSON.stringify writes U+0000 and a lone surrogate back as the escapes they were sent as.
 */
export const mergeDepthProblem = (value: unknown, root: string): JsonProblem | undefined =>
  findJsonProblem(value, root, { strings: false });

/**
 * xAPI 2.0 Part 3 §1.2.2 (1.0.3 §7.3): merging a JSON object into a stored JSON object replaces
 * the stored top-level properties the sent one has and keeps the others; nothing deeper is merged.
 * Spread defines each key, so a `"__proto__"` property is merged as the data it is; Object.assign
 * or `out[key] = …` would set the result's prototype and drop it.
 */
export const mergeJson = (stored: Record<string, unknown>, sent: Record<string, unknown>): Record<string, unknown> => ({
  ...stored,
  ...sent,
});
