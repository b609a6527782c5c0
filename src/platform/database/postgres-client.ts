import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Database, QueryResult, SqlClient } from './sql-client.js';

// int8 as numbers: counts and sizes here stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * Every query runs as a named prepared statement: each pooled connection parses and plans a
 * text once and then only binds values, which is most of the server-side cost of the short
 * queries this service makes. The name is derived from the text, so the same text always has
 * the same name and different texts never share one.
 */
const statementNames = new Map<string, string>();
function prepared(text: string, values: readonly unknown[] | undefined): pg.QueryConfig {
  let name = statementNames.get(text);
  if (!name) {
    name = `lb_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (statementNames.size < 5_000) statementNames.set(text, name);
  }
  return { name, text, values: values as unknown[] | undefined };
}

class PoolTransaction implements SqlClient {
  constructor(private readonly client: pg.PoolClient) {}

  async query<Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> {
    const result = await this.client.query(prepared(text, values));
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  }

  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return work(this);
  }

  async script(text: string): Promise<void> {
    // Without values node-postgres uses the simple query protocol, which runs several statements.
    await this.client.query(text);
  }
}

/** PostgreSQL through a node-postgres pool: the production adapter. */
export class PostgresDatabase implements Database {
  readonly engine = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(connectionString: string, options: { max?: number } = {}) {
    this.pool = new pg.Pool({ connectionString, max: options.max ?? 20 });
    // An idle client that loses its connection must not crash the process.
    this.pool.on('error', () => {});
  }

  async query<Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> {
    const result = await this.pool.query(prepared(text, values));
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  }

  async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(new PoolTransaction(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async script(text: string): Promise<void> {
    await this.pool.query(text);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
