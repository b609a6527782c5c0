/** One result of a query: the rows, mapped by column name, and how many rows the statement touched. */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

/**
 * The one port every repository talks to. Both adapters run the same Postgres SQL text
 * with `$1` placeholders; engine differences stay inside the adapters.
 */
export interface SqlClient {
  /** Runs one statement. `values` bind to `$1…$n`; never build SQL text from input. */
  query<Row = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>>;
  /**
   * Runs `work` inside one transaction on one connection and commits when it resolves,
   * rolls back when it throws. Nested calls on the handed client run inside the same transaction.
   */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
  /** Runs a script of several statements with no parameters: migrations, and fixed settings such as SET LOCAL. */
  script(text: string): Promise<void>;
}

/** How a database's connections are used at one moment, for /metrics. */
export interface ConnectionUse {
  /** Connections open. */
  total: number;
  /** Open and not in use. */
  idle: number;
  /** Queries or transactions waiting for a connection. */
  waiting: number;
}

/** A client that owns its connections (a pool, an embedded database) and can be closed. */
export interface Database extends SqlClient {
  /** `pglite` or `postgres`: for logs and the start-up banner. */
  readonly engine: 'pglite' | 'postgres';
  /** How its connections are used now (read at each metrics scrape). */
  connections(): ConnectionUse;
  /** Ends every connection; for PGlite, also releases the data folder. */
  close(): Promise<void>;
}

/**
 * Ends a correlated `EXISTS (SELECT …)` that must stay a probe: run once per outer row on an
 * index. PostgreSQL never pulls a subquery with an OFFSET up into a join, so however stale its
 * statistics (right after a bulk load, say), the planner cannot turn the probe into a semi- or
 * anti-join that scans the whole table. For few outer rows against a large table.
 */
export const PER_ROW_PROBE = 'OFFSET 0';

/** Bytes from a `bytea` column: pg gives a Buffer, PGlite a Uint8Array. */
export function toBuffer(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError('expected a bytea value');
}
