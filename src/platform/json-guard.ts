/**
 * What a parsed JSON value must not hold before the LRS processes or stores it as JSON:
 *
 * - U+0000 in a string or a property name: PostgreSQL's text and jsonb cannot hold it
 *   (SQLSTATE 22021 for text, 22P05 for jsonb's `\u0000`).
 * - A lone surrogate (U+D800-U+DFFF without its pair): `JSON.parse` accepts `"\ud800"` and
 *   `JSON.stringify` writes it back as that escape, but jsonb refuses it (22P02), and it is no
 *   Unicode text at all.
 * - Nesting deeper than {@link MAX_JSON_DEPTH}: `JSON.stringify` and every recursive function
 *   of ours overflow the stack somewhere between 3,000 and 5,000 levels; `JSON.parse` does not,
 *   so such a value reaches the code intact.
 *
 * The check itself is iterative, so it can run first, before any recursive code, on a value of
 * any depth.
 *
 * Keys are data. A `"__proto__"` or `"constructor"` key is not refused (Fastify's parser is told
 * to ignore them, app.ts): an xAPI extension or an attribute may be named so, and JSON.parse
 * makes it an own property, which is harmless. The risk lies in copying: assigning a parsed key
 * (`out[key] = value`, Object.assign) sets the copy's prototype instead of a property, and a deep
 * merge reading `target[key]` reaches Object.prototype itself. So code that copies parsed JSON
 * defines its keys (spread, Object.fromEntries, Object.defineProperty, a null-prototype object)
 * and reads them only as own properties (Object.hasOwn, Object.entries).
 */

/**
 * The deepest nesting of arrays and objects accepted in JSON the LRS parses and processes
 * (statements, merged documents, JSON query parameters): `{}` is 1 level, `{"a":{}}` 2. Real
 * statements' extensions run 10 to 20 levels deep; 64 leaves room for them several times over
 * and stays far below the depth where recursion fails.
 */
export const MAX_JSON_DEPTH = 64;

export type JsonProblemKind = 'nul' | 'lone_surrogate' | 'too_deep';

export interface JsonProblem {
  kind: JsonProblemKind;
  /** Where: `statement.result.extensions["http://example.com/x"][2].name`. */
  path: string;
  /** What is wrong, to follow the path in a message: `must not contain U+0000 (NUL)`. */
  why: string;
}

export interface JsonGuardOptions {
  /** Check strings and property names for U+0000 and lone surrogates (default true). */
  strings?: boolean;
  /** Deepest nesting accepted (default {@link MAX_JSON_DEPTH}). */
  maxDepth?: number;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as text, or undefined when it can. */
export function textProblem(text: string): { kind: 'nul' | 'lone_surrogate'; why: string } | undefined {
  if (text.includes('\u0000')) return { kind: 'nul', why: 'must not contain U+0000 (NUL)' };
  if (LONE_SURROGATE.test(text))
    return { kind: 'lone_surrogate', why: 'must not contain a lone surrogate (U+D800-U+DFFF without its pair)' };
  return undefined;
}

interface Frame {
  value: unknown;
  /** 1 for the root's children, …: how many containers enclose the value. */
  depth: number;
  parent: Frame | undefined;
  /** How the parent reaches this value: `[3]`, `.name` or `["http://…"]`; '' for the root. */
  segment: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** Property names shown in a path are cut here, so a huge name cannot make a huge message. */
const SEGMENT_LIMIT = 100;
const PATH_LIMIT = 400;

function keySegment(key: string): string {
  if (IDENTIFIER.test(key) && key.length <= SEGMENT_LIMIT) return `.${key}`;
  const shown = key.length > SEGMENT_LIMIT ? `${key.slice(0, SEGMENT_LIMIT)}…` : key;
  // JSON.stringify writes U+0000 and lone surrogates as visible escapes.
  return `[${JSON.stringify(shown)}]`;
}

function pathOf(frame: Frame, root: string): string {
  const segments: string[] = [];
  for (let at: Frame | undefined = frame; at; at = at.parent) segments.push(at.segment);
  const path = root + segments.reverse().join('');
  return path.length > PATH_LIMIT ? `${path.slice(0, PATH_LIMIT)}…` : path;
}

/**
 * The first problem found in `value` (depth first, in document order), or undefined when there
 * is none. `root` names the value in the path (`statement`, `statements[2]`, `'agent'`).
 */
export function findJsonProblem(value: unknown, root: string, options: JsonGuardOptions = {}): JsonProblem | undefined {
  const checkStrings = options.strings ?? true;
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const stack: Frame[] = [{ value, depth: 0, parent: undefined, segment: '' }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const current = frame.value;
    if (typeof current === 'string') {
      const problem = checkStrings ? textProblem(current) : undefined;
      if (problem) return { ...problem, path: pathOf(frame, root) };
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (frame.depth >= maxDepth) {
      return { kind: 'too_deep', path: pathOf(frame, root), why: `is nested deeper than ${maxDepth} levels of arrays and objects` };
    }
    const children: Frame[] = [];
    if (Array.isArray(current)) {
      current.forEach((item, index) => children.push({ value: item, depth: frame.depth + 1, parent: frame, segment: `[${index}]` }));
    } else {
      for (const [key, item] of Object.entries(current)) {
        const child: Frame = { value: item, depth: frame.depth + 1, parent: frame, segment: keySegment(key) };
        const problem = checkStrings ? textProblem(key) : undefined;
        if (problem) return { ...problem, path: pathOf(child, root), why: `is a property name that ${problem.why}` };
        children.push(child);
      }
    }
    // Reversed, so the first child is examined first and the problem reported is the first one.
    for (let index = children.length - 1; index >= 0; index--) stack.push(children[index]);
  }
  return undefined;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `bytes` as text, or undefined when they are not UTF-8 (a leading byte-order mark is dropped).
 * JSON is UTF-8 (RFC 8259 §8.1); decoding it leniently would store U+FFFD in place of the bytes
 * sent, corrupting the data without a word, so every JSON body and file is read through this.
 */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
