import { isUtf8 } from 'node:buffer';
import { CsvError, parse, type Options } from 'csv-parse/sync';
import { AppError, badRequest } from '../../../platform/http/app-error.js';
import { SHOWN_LIMIT, UnreadableRow } from './user-import.js';

/** One user as the JSON import takes it (interface 2.1). */
export interface CsvUser {
  name: string;
  attributes: Record<string, string>;
}

/** The CSV reader's errors, `imports.reason`. */
export const CsvErrors = {
  invalidCsv: (message: string) => badRequest('imports.invalid_csv', message),
  unsupportedCharset: (charset: string, why: string) =>
    new AppError(
      'imports.unsupported_charset',
      415,
      `The Content-Type names the charset "${charset.slice(0, 100)}", ${why}: send UTF-8 (the default), or name the charset the file is in, such as iso-8859-1, windows-1252 or shift_jis.`,
      { details: { charset: charset.slice(0, 100) } },
    ),
};

/**
 * Encodings TextDecoder knows whose characters may hold the bytes of a comma, a quote or a line
 * end: the CSV is split into cells before its bytes are decoded, so these cannot be read.
 */
const NOT_BYTE_SAFE = new Set(['utf-16le', 'utf-16be', 'iso-2022-jp']);

/** The charset parameter of a Content-Type (`text/csv; charset="latin1"`), if there is one. */
export const charsetOf = (contentType: string | undefined): string | undefined =>
  contentType === undefined ? undefined : /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType)?.[1];

/**
 * The encoding a charset label names, as the WHATWG Encoding Standard resolves labels (Node's
 * TextDecoder): `latin1`, `iso-8859-1` and `us-ascii` are windows-1252, as every browser reads
 * them. A label it does not know, or an encoding whose characters may hold CSV delimiters, is 415.
 */
function encodingOf(charset: string | undefined): string {
  if (charset === undefined) return 'utf-8';
  let encoding: string;
  try {
    encoding = new TextDecoder(charset).encoding;
  } catch {
    throw CsvErrors.unsupportedCharset(charset, 'which is not a charset the import knows');
  }
  if (NOT_BYTE_SAFE.has(encoding))
    throw CsvErrors.unsupportedCharset(charset, 'whose characters may hold the bytes of commas and line ends');
  return encoding;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** Record ends of all three kinds; CRLF first, so it is one end and not two. */
const RECORD_DELIMITERS = ['\r\n', '\n', '\r'];

/** Reads one cell's bytes as text; throws when the encoding cannot read them. */
type Decode = (bytes: Uint8Array) => string;

/** Bytes 0x80-0x9F of windows-1252 (WHATWG index-windows-1252); every other byte is its own code point. */
const WINDOWS_1252_C1 =
  '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F' +
  '\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

/**
 * The decoder of an encoding. windows-1252 (which `latin1`, `iso-8859-1` and `us-ascii` name) is
 * mapped here: Node 20's TextDecoder reads it as ISO-8859-1, 0x80 as U+0080 instead of €
 * (nodejs/node#56542). `ignoreBOM`: a U+FEFF at the start of a cell is the cell's, as in the
 * UTF-8 path of readTable, which keeps it.
 */
function decoderFor(encoding: string): Decode {
  if (encoding === 'windows-1252') {
    const c1 = (char: string) => WINDOWS_1252_C1[char.charCodeAt(0) - 0x80];
    return (bytes) =>
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        .toString('latin1')
        .replace(/[\x80-\x9F]/g, c1);
  }
  const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
  return (bytes) => decoder.decode(bytes);
}

/**
 * The cell with each byte the decoder cannot read as `\xNN` (`Z\xFCrich`), cut after about
 * SHOWN_LIMIT characters, where a message's value is cut anyway. Only for a cell that failed to
 * decode, so trying one to four bytes at each position (no character of these encodings is
 * longer) costs nothing on a good file.
 */
function escapeUnreadable(bytes: Uint8Array, decode: Decode): string {
  let shown = '';
  let at = 0;
  while (at < bytes.length && shown.length <= SHOWN_LIMIT) {
    let read: { text: string; length: number } | undefined;
    for (let length = 1; length <= 4 && at + length <= bytes.length && !read; length++) {
      try {
        read = { text: decode(bytes.subarray(at, at + length)), length };
      } catch {
        // Not a whole character yet, or not one at all.
      }
    }
    shown += read ? read.text : `\\x${bytes[at].toString(16).toUpperCase().padStart(2, '0')}`;
    at += read ? read.length : 1;
  }
  return at < bytes.length ? `${shown}…` : shown;
}

function parseRecords<T>(body: Buffer, options: Options): T[][] {
  try {
    return parse(body, { ...options, record_delimiter: RECORD_DELIMITERS, skip_empty_lines: true, relax_column_count: false }) as T[][];
  } catch (error) {
    if (error instanceof CsvError) throw CsvErrors.invalidCsv(`The CSV cannot be read: ${error.message}`);
    throw error;
  }
}

/** A record with a cell the encoding cannot read: the cell's column, and the cell as escapeUnreadable shows it. */
interface UnreadableRecord {
  column: string;
  shown: string;
}

/**
 * The table's header and records as text. UTF-8 that is valid throughout (checked without
 * decoding) is parsed as text directly. Otherwise the file is split into cells as bytes, which
 * every encoding read here allows (a comma, a quote, CR and LF are never part of another
 * character), and each cell decoded on its own: a record with a cell the encoding cannot read
 * is that row's error, and the other rows import. A header that cannot be read refuses the file.
 */
function readTable(body: Buffer, encoding: string): { header?: string[]; rows: Array<string[] | UnreadableRecord> } {
  if (encoding === 'utf-8' && isUtf8(body)) {
    const [header, ...rows] = parseRecords<string>(body, { bom: true, encoding: 'utf8' });
    return { header, rows };
  }
  const bytes = encoding === 'utf-8' && body.subarray(0, 3).equals(UTF8_BOM) ? body.subarray(3) : body;
  const decode = decoderFor(encoding);
  const [headerCells, ...records] = parseRecords<Uint8Array>(bytes, { encoding: null });
  if (!headerCells) return { rows: [] };
  const header = headerCells.map((cell) => {
    try {
      return decode(cell);
    } catch {
      throw CsvErrors.invalidCsv(`The CSV header is not valid ${encodingName(encoding)}: ${escapeUnreadable(cell, decode)}.`);
    }
  });
  const rows = records.map((cells): string[] | UnreadableRecord => {
    const texts: string[] = [];
    for (const [position, cell] of cells.entries()) {
      try {
        texts.push(decode(cell));
      } catch {
        return { column: header[position].trim(), shown: escapeUnreadable(cell, decode) };
      }
    }
    return texts;
  });
  return { header, rows };
}

const encodingName = (encoding: string) => (encoding === 'utf-8' ? 'UTF-8' : encoding);

/**
 * Reads a user import sent as CSV (`Content-Type: text/csv`) into the rows of the JSON import, so
 * both go through one set of rules and give the same summary. The format: RFC 4180 (quoted fields
 * may hold commas, quotes doubled, line breaks), records ending in CRLF, LF or CR, in the charset
 * the Content-Type names (UTF-8 without one, with or without a byte-order mark), a header line
 * with a `name` column and one column per attribute. An empty cell is an attribute the user does
 * not have (CSV cannot tell "empty" from "absent"; the JSON import can). A row whose bytes are not
 * text in that charset is an UnreadableRow, that row's error. A file that cannot be read as such
 * a table is refused whole (400 naming the line), nothing imported; a charset it cannot read, 415.
 */
export function parseUsersCsv(body: Buffer, charset?: string): Array<CsvUser | UnreadableRow> {
  const encoding = encodingOf(charset);
  const { header, rows } = readTable(body, encoding);
  if (!header) throw CsvErrors.invalidCsv('The CSV is empty: it needs a header line with a "name" column.');
  const columns = header.map((column) => column.trim());
  const nameColumn = columns.indexOf('name');
  if (nameColumn < 0) throw CsvErrors.invalidCsv('The CSV header has no "name" column.');
  const seen = new Set<string>();
  for (const [index, column] of columns.entries()) {
    if (column === '') throw CsvErrors.invalidCsv(`Column ${index + 1} of the CSV header has no name.`);
    if (seen.has(column)) throw CsvErrors.invalidCsv(`The CSV header names the column "${column}" twice.`);
    seen.add(column);
  }
  return rows.map((cells, index) => {
    if (!Array.isArray(cells)) {
      const name = encodingName(encoding);
      return new UnreadableRow(
        `Row ${index + 1} is not valid ${name}: the bytes of its "${cells.column}" cell cannot be read as ${name}. Nothing of the row was imported.`,
        cells.shown,
      );
    }
    const attributes: Record<string, string> = {};
    for (const [position, column] of columns.entries()) {
      // Defined, not assigned: a column named "__proto__" is an attribute like any other.
      if (position !== nameColumn && cells[position] !== '') {
        Object.defineProperty(attributes, column, { value: cells[position], enumerable: true, writable: true, configurable: true });
      }
    }
    return { name: cells[nameColumn], attributes };
  });
}
