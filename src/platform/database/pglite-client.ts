import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { AppError } from '../http/app-error.js';
import type { Database, QueryResult, SqlClient } from './sql-client.js';

class PgliteTransaction implements SqlClient {
  constructor(private readonly tx: Transaction) {}

  async query<Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> {
    const result = await this.tx.query<Row>(text, values as unknown[] | undefined);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  }

  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return work(this);
  }

  async script(text: string): Promise<void> {
    await this.tx.exec(text);
  }
}

/**
 * The embedded default: PGlite, real Postgres compiled to WebAssembly, in-process.
 * It is one connection, so PGlite itself queues queries while a transaction runs:
 * keep transactions short.
 */
export class PgliteDatabase implements Database {
  readonly engine = 'pglite' as const;

  private constructor(
    private readonly db: PGlite,
    private readonly lockFile: string | undefined,
  ) {}

  /** Opens (creating when needed) the data folder, or an in-memory database when `dataDir` is undefined. */
  static async open(dataDir: string | undefined): Promise<PgliteDatabase> {
    if (dataDir === undefined) return new PgliteDatabase(new PGlite(), undefined);
    const folder = resolve(dataDir);
    mkdirSync(folder, { recursive: true });
    const lockFile = acquireFolderLock(folder);
    try {
      const db = new PGlite(join(folder, 'pgdata'));
      await db.waitReady;
      return new PgliteDatabase(db, lockFile);
    } catch (error) {
      rmSync(lockFile, { force: true });
      throw error;
    }
  }

  async query<Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> {
    const result = await this.db.query<Row>(text, values as unknown[] | undefined);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  }

  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => work(new PgliteTransaction(tx)));
  }

  async script(text: string): Promise<void> {
    await this.db.exec(text);
  }

  async close(): Promise<void> {
    await this.db.close();
    if (this.lockFile) rmSync(this.lockFile, { force: true });
  }
}

/**
 * A PGlite folder may be opened by one process only: a second writer would corrupt it.
 * The lock is a file holding the owner's pid; a file left by a process that is gone is taken over.
 */
function acquireFolderLock(folder: string): string {
  const lockFile = join(folder, 'learnbase.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return lockFile;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new AppError(
          'database.folder_in_use',
          409,
          `The data folder ${folder} is in use by another learnbase process (pid ${owner}). ` +
            'Stop it first, or use a PostgreSQL database (--database URL) to run several processes.',
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new AppError('database.folder_in_use', 409, `Could not lock the data folder ${folder}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
