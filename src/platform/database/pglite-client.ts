import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { rethrowCounted } from '../process-metrics.js';
import { acquireFolderLock, type FolderLock } from './folder-lock.js';
import type { ConnectionUse, Database, QueryResult, SqlClient } from './sql-client.js';

class PgliteTransaction implements SqlClient {
  constructor(private readonly tx: Transaction) {}

  async query<Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> {
    const result = await this.tx.query<Row>(text, values as unknown[] | undefined).catch(rethrowCounted);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  }

  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return work(this);
  }

  async script(text: string): Promise<void> {
    await this.tx.exec(text).catch(rethrowCounted);
  }
}

/**
 * The embedded default: PGlite, real Postgres compiled to WebAssembly, in-process.
 * It is one connection, so PGlite itself queues queries while a transaction runs:
 * keep transactions short.
 */
export class PgliteDatabase implements Database {
  readonly engine = 'pglite' as const;
  /** Queries, scripts and transactions begun and not yet settled: the one running and PGlite's queue. */
  private inFlight = 0;

  private constructor(
    private readonly db: PGlite,
    /** One process per folder (folder-lock.ts); an in-memory database takes no lock. */
    private readonly lock: FolderLock | undefined,
  ) {}

  /** Opens (creating when needed) the data folder, or an in-memory database when `dataDir` is undefined. */
  static async open(dataDir: string | undefined): Promise<PgliteDatabase> {
    if (dataDir === undefined) return new PgliteDatabase(new PGlite(), undefined);
    const folder = resolve(dataDir);
    mkdirSync(folder, { recursive: true });
    const lock = await acquireFolderLock(folder);
    try {
      const db = new PGlite(join(folder, 'pgdata'));
      await db.waitReady;
      return new PgliteDatabase(db, lock);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /**
   * An in-memory database that starts as `dump`, a tar of a data folder (PGlite's dumpDataDir, or a
   * backup): the tests open each migrated database so, instead of creating and migrating each.
   */
  static load(dump: Blob): PgliteDatabase {
    return new PgliteDatabase(new PGlite({ loadDataDir: dump }), undefined);
  }

  async query<Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> {
    const result = await this.track(this.db.query<Row>(text, values as unknown[] | undefined).catch(rethrowCounted));
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  }

  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.track(this.db.transaction((tx) => work(new PgliteTransaction(tx))));
  }

  async script(text: string): Promise<void> {
    await this.track(this.db.exec(text).catch(rethrowCounted));
  }

  /** One connection: busy while anything is in flight, and everything past the first waits for it. */
  connections(): ConnectionUse {
    return { total: 1, idle: this.inFlight === 0 ? 1 : 0, waiting: Math.max(0, this.inFlight - 1) };
  }

  private async track<T>(work: Promise<T>): Promise<T> {
    this.inFlight += 1;
    try {
      return await work;
    } finally {
      this.inFlight -= 1;
    }
  }

  async close(): Promise<void> {
    try {
      await this.db.close();
    } finally {
      await this.lock?.release();
    }
  }
}
