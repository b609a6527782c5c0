import { CsvError, parse } from 'csv-parse/sync';
import { badRequest } from '../../platform/http/app-error.js';

/** One user as the JSON import takes it (interface 2.1). */
export interface CsvUser {
  name: string;
  attributes: Record<string, string>;
}

/**
 * Reads a user import sent as CSV (`Content-Type: text/csv`) into the rows of the JSON import, so
 * both go through one set of rules and give the same summary. The format: RFC 4180 (quoted fields
 * may hold commas, quotes doubled, line breaks), UTF-8 with or without a byte-order mark, a header
 * line with a `name` column and one column per attribute. An empty cell is an attribute the user
 * does not have (CSV cannot tell "empty" from "absent"; the JSON import can). A file that cannot be
 * read as such a table is refused whole (400 naming the line), nothing imported.
 */
export function parseUsersCsv(body: Buffer): CsvUser[] {
  let records: string[][];
  try {
    records = parse(body, { bom: true, encoding: 'utf8', record_delimiter: ['\r\n', '\n'], skip_empty_lines: true, relax_column_count: false }) as string[][];
  } catch (error) {
    if (error instanceof CsvError) throw badRequest('imports.invalid_csv', `The CSV cannot be read: ${error.message}`);
    throw error;
  }
  const [header, ...rows] = records;
  if (!header) throw badRequest('imports.invalid_csv', 'The CSV is empty: it needs a header line with a "name" column.');
  const columns = header.map((column) => column.trim());
  const nameColumn = columns.indexOf('name');
  if (nameColumn < 0) throw badRequest('imports.invalid_csv', 'The CSV header has no "name" column.');
  const seen = new Set<string>();
  for (const [index, column] of columns.entries()) {
    if (column === '') throw badRequest('imports.invalid_csv', `Column ${index + 1} of the CSV header has no name.`);
    if (seen.has(column)) throw badRequest('imports.invalid_csv', `The CSV header names the column "${column}" twice.`);
    seen.add(column);
  }
  return rows.map((cells) => {
    const attributes: Record<string, string> = {};
    for (const [index, column] of columns.entries()) {
      // Defined, not assigned: a column named "__proto__" is an attribute like any other.
      if (index !== nameColumn && cells[index] !== '') {
        Object.defineProperty(attributes, column, { value: cells[index], enumerable: true, writable: true, configurable: true });
      }
    }
    return { name: cells[nameColumn], attributes };
  });
}
