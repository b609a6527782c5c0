import { createHash } from 'node:crypto';
import pg from 'pg';
import { rethrowCounted } from '../process-metrics.js';
import { isConnectionError } from './postgres-errors.js';
import type { ConnectionUse, Database, QueryResult, SqlClient } from './sql-client.js';

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
    const result = await this.client.query(prepared(text, values)).catch(rethrowCounted);
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  }

  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return work(this);
  }

  async script(text: string): Promise<void> {
    // Without values node-postgres uses the simple query protocol, which runs several statements.
    await this.client.query(text).catch(rethrowCounted);
  }
}

export interface PostgresDatabaseOptions {
  /** Connections at most (default 20). */
  max?: number;
  /**
   * How long a request waits for a connection, a free pooled one or a new one, before it fails
   * with 503 (default 5 s): a database that cannot be reached fails requests instead of holding them.
   */
  connectionTimeoutMillis?: number;
  /** How long an unused connection stays open (default 10 s). */
  idleTimeoutMillis?: number;
  /**
   * Where connection failures that no request sees are reported: a pooled connection that dropped
   * while idle (a database restart or failover, pg_terminate_backend, an idle-connection reaper).
   * The pool has already discarded it; the next request opens a new one.
   */
  onError?: (error: Error) => void;
}

/**
 * PostgreSQL through a node-postgres pool: the production adapter.
 *
 * A connection can end at any moment (a failover, a restart, a reaper, a network blip). Such a
 * failure must fail only the requests using that connection, as `database.unavailable` (503, see
 * postgres-errors.ts), and the pool must heal itself: a broken connection is never pooled again.
 */
export class PostgresDatabase implements Database {
  readonly engine = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(connectionString: string, options: PostgresDatabaseOptions = {}) {
    this.pool = new pg.Pool({
      connectionString,
      max: options.max ?? 20,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
      idleTimeoutMillis: options.idleTimeoutMillis ?? 10_000,
      // TCP keep-alive finds a peer that vanished without closing the socket (a failover, a dropped route).
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // An idle client that loses its connection: pg-pool has already removed it and tells us here.
    this.pool.on('error', (error) => options.onError?.(error));
    // A checked-out client that loses its connection emits 'error' on itself, where pg-pool does
    // not listen, and an unheard 'error' event ends the process. The failure needs no handling
    // here: the query in flight, or the next one, rejects with it, the request answers 503, and a
    // client that is no longer queryable (or released with an error) is discarded, not pooled.
    this.pool.on('connect', (client) => client.on('error', ignore));
  }

  async query<Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> {
    const result = await this.pool.query(prepared(text, values)).catch(rethrowCounted);
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  }

  async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch(rethrowCounted);
    // Set when the connection cannot be trusted any more: release(error) closes it instead of pooling it.
    let broken: Error | undefined;
    try {
      await client.query('BEGIN').catch(rethrowCounted);
      const result = await work(new PoolTransaction(client));
      // Success only once COMMIT is answered. A connection lost before that leaves the transaction
      // rolled back by PostgreSQL (or, if the answer alone was lost, committed but unacknowledged).
      await client.query('COMMIT').catch(rethrowCounted);
      return result;
    } catch (error) {
      // On a lost connection there is nothing to roll back: the server ends the transaction with
      // the session. Otherwise a ROLLBACK that fails leaves the session in an unknown state.
      if (isConnectionError(error)) broken = error as Error;
      else {
        await client.query('ROLLBACK').catch((rollbackError: Error) => {
          broken = rollbackError;
        });
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async script(text: string): Promise<void> {
    await this.pool.query(text).catch(rethrowCounted);
  }

  connections(): ConnectionUse {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

const ignore = () => {};
