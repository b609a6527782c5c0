import { AppError } from './app-error.js';

/**
 * Answers in JSON or in CSV, as the request's `Accept` prefers (RFC 9110 §12.5.1), and writes the
 * CSV: one row per item, nested objects flattened into dotted column names, quoted as RFC 4180
 * says, text that a spreadsheet would run as a formula defused. Knows nothing of what the items are.
 */

export const JSON_TYPE = 'application/json';
export const CSV_TYPE = 'text/csv';
/** The Content-Type of a CSV answer. */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const QVALUE = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/;

/** One media range of an Accept header (`text/csv;q=0.5`), or undefined when it is not one. */
function parseRange(text: string): MediaRange | undefined {
  const [mediaType, ...parameters] = text.split(';').map((part) => part.trim());
  const slash = mediaType.indexOf('/');
  if (slash < 0) return undefined;
  const type = mediaType.slice(0, slash).toLowerCase();
  const subtype = mediaType.slice(slash + 1).toLowerCase();
  if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) return undefined;
  let q = 1;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=').map((part) => part?.trim());
    if (name?.toLowerCase() !== 'q') continue;
    if (value === undefined || !QVALUE.test(value)) return undefined;
    q = Number(value);
  }
  return { type, subtype, q };
}

/**
 * The one of `offered` (media types, most preferred first) that `accept` prefers: each offered
 * type takes the quality of the most specific range matching it (`text/csv` before `text/*`
 * before `*\/*`), the highest quality above 0 wins and a tie goes to the earlier offered. No
 * header means anything: the first offered. Undefined when none is acceptable (406): every
 * range refuses them, matches none of them, or is malformed.
 */
export function preferredType(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === '') return offered[0];
  const ranges = accept
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(parseRange)
    .filter((range): range is MediaRange => range !== undefined);
  let best: { type: string; q: number } | undefined;
  for (const type of offered) {
    const [main, sub] = type.split('/');
    let match: MediaRange | undefined;
    let specificity = -1;
    for (const range of ranges) {
      const rank =
        range.type === main && range.subtype === sub ? 2 : range.type === main && range.subtype === '*' ? 1 : range.type === '*' ? 0 : -1;
      if (rank > specificity) {
        specificity = rank;
        match = range;
      }
    }
    if (match && match.q > 0 && (best === undefined || match.q > best.q)) best = { type, q: match.q };
  }
  return best?.type;
}

/** 406 for an Accept header that allows none of the types a route answers. */
export const notAcceptable = (offered: readonly string[], accept: string) =>
  new AppError(
    'request.not_acceptable',
    406,
    `This resource answers ${offered.join(' or ')}; the Accept header (${JSON.stringify(accept.slice(0, 200))}) allows none of them.`,
    { details: { offered: [...offered] } },
  );

/** The answer's media type for this Accept header among `offered` (JSON, then CSV), or 406. */
export function negotiate(accept: string | undefined, offered: readonly string[] = [JSON_TYPE, CSV_TYPE]): string {
  const chosen = preferredType(accept, offered);
  if (chosen === undefined) throw notAcceptable(offered, accept ?? '');
  return chosen;
}

// ---------------------------------------------------------------------------------------------
// Writing CSV

type Cell = string | number | boolean | null;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `item` as `column → cell`: nested objects give `outer.inner` columns, arrays their JSON text. */
export function flatten(item: Record<string, unknown>, prefix = '', into = new Map<string, Cell>()): Map<string, Cell> {
  for (const [key, value] of Object.entries(item)) {
    const column = prefix === '' ? key : `${prefix}.${key}`;
    if (isPlainObject(value)) flatten(value, column, into);
    else if (Array.isArray(value)) into.set(column, JSON.stringify(value));
    else if (value === undefined) continue;
    else into.set(column, value as Cell);
  }
  return into;
}

/**
 * What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection"): a tab or a carriage
 * return first, or `=`, `+`, `-` or `@` after any white space and line breaks (spreadsheets trim
 * them: ` =1+1` and `\n=1+1` run), in ASCII or full width (`＝＋－＠`, which Excel in East Asian
 * locales reads as the ASCII signs).
 */
const FORMULA = /^(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/u;

/**
 * Text a spreadsheet would read as a formula (FORMULA) is prefixed with `'`, which spreadsheets
 * show as text. Only text cells: a number the server wrote (a negative score) stays a number.
 */
export const defused = (text: string): string => (FORMULA.test(text) ? `'${text}` : text);

/** One field as RFC 4180 §2 writes it: quoted (quotes doubled) when it holds a quote, a comma or a line break. */
export const quoted = (text: string): string => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

function cellText(cell: Cell | undefined): string {
  if (cell === undefined || cell === null) return '';
  if (typeof cell === 'string') return quoted(defused(cell));
  return String(cell);
}

/**
 * The items as CSV: a header row, then one row per item, lines ended by CRLF (RFC 4180). The
 * columns are `columns` first (so that an empty list still has its header), then every other
 * column the flattened items have, in the order they first appear. A column an item lacks is
 * an empty cell; null is an empty cell too.
 */
export function toCsv(items: readonly Record<string, unknown>[], columns: readonly string[] = []): string {
  const rows = items.map((item) => flatten(item));
  const header = [...columns];
  const known = new Set(header);
  for (const row of rows) {
    for (const column of row.keys()) {
      if (known.has(column)) continue;
      known.add(column);
      header.push(column);
    }
  }
  const lines = [header.map(cellText), ...rows.map((row) => header.map((column) => cellText(row.get(column))))];
  return lines.map((cells) => `${cells.join(',')}\r\n`).join('');
}
