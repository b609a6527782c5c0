import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { AppConfig } from '../config.js';
import type { prepareDatabase } from './main.js';

/** The most worker processes `serve --workers` starts. */
export const MAX_WORKERS = 64;

/** After the workers' own drain and close deadlines, how long the primary waits before killing them. */
const STOP_MARGIN_MS = 6_000;
/** A worker that exits sooner than this after its start counts towards a crash loop. */
const EARLY_EXIT_MS = 10_000;
/** This many early exits in a row: the workers cannot start (a bad setting, the database gone); give up. */
const MAX_EARLY_EXITS = 5;

/** `--workers` / LEARNBASE_WORKERS that cannot be served: a bad value, or PGlite. */
export class WorkersRefused extends Error {}

/** Reads `--workers` (or LEARNBASE_WORKERS): a whole number from 1 to 64, or `auto`, one per core. Absent or blank: 1. */
export function parseWorkers(text: string | undefined): number {
  const value = text?.trim() ?? '';
  if (value === '') return 1;
  if (value === 'auto') return Math.min(availableParallelism(), MAX_WORKERS);
  const count = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(count >= 1 && count <= MAX_WORKERS)) {
    throw new WorkersRefused(`--workers must be a whole number from 1 to ${MAX_WORKERS}, or auto (one per core); it is "${value}".`);
  }
  return count;
}

/** True in a process that `serveWorkers` forked. */
export const isWorker = (): boolean => cluster.isWorker;

/** Closes a worker's channel to the primary, which would otherwise keep the worker running. */
export const releaseWorker = (): void => {
  cluster.worker?.disconnect();
};

const say = (line: string) => process.stderr.write(`learnbase: ${line}\n`);

/**
 * `serve --workers N` with N > 1: this process (the primary) migrates and seeds once, then forks N
 * processes running `serve` on the same command line, which share the port (node:cluster hands
 * each new connection to the next worker). A worker that dies is replaced; if they keep dying
 * right after starting, the primary stops. SIGTERM or SIGINT is passed on to every worker, each
 * drains as a single process does, and the primary exits when they all have: 0 when every
 * worker stopped cleanly.
 *
 * PostgreSQL only: a PGlite folder is held by one process (docs/operations.md, "Several processes").
 */
export async function serveWorkers(config: AppConfig, count: number): Promise<void> {
  if (config.database.kind === 'pglite') {
    throw new WorkersRefused(
      `--workers ${count} needs PostgreSQL (--database URL or DATABASE_URL): the embedded database lives in one folder that one process holds. Run one process (leave out --workers), or move to PostgreSQL.`,
    );
  }
  // The server's modules are loaded here, not with this file, which the command line loads for every command.
  const [{ prepareDatabase, printBanner }, { openDatabase }, { answerMetricsRequests }, { prepareStoredSecrets }] = await Promise.all([
    import('./main.js'),
    import('../platform/database/open-database.js'),
    import('../platform/cluster-metrics.js'),
    import('../modules/identity/index.js'),
  ]);
  const db = await openDatabase(config.database);
  let demo: Awaited<ReturnType<typeof prepareDatabase>>;
  try {
    demo = await prepareDatabase(db, config);
    // Once, before the workers: refused without the key, plain secrets of an earlier version sealed.
    await prepareStoredSecrets(db, config, false);
  } finally {
    await db.close();
  }

  let stopping = false;
  let earlyExits = 0;
  const startedAt = new Map<Worker, number>();
  const fork = () => startedAt.set(cluster.fork(), Date.now());
  // A worker told to stop before it listened has nothing to drain: ending on the signal is clean.
  const listened = new Set<Worker>();
  cluster.on('listening', (worker) => listened.add(worker));

  const listening = new Promise<number>((resolve, reject) => {
    let ready = 0;
    const onListening = (_worker: Worker, address: { port: number }) => {
      ready += 1;
      if (ready === count) {
        cluster.off('listening', onListening);
        resolve(address.port);
      }
    };
    cluster.on('listening', onListening);
    cluster.on('exit', (worker, code, signal) => {
      const started = startedAt.get(worker) ?? 0;
      startedAt.delete(worker);
      if (stopping) return;
      if (ready < count) {
        reject(new Error(`a worker exited before it listened (${signal ?? `code ${code}`}); see its message above`));
        return;
      }
      earlyExits = Date.now() - started < EARLY_EXIT_MS ? earlyExits + 1 : 0;
      if (earlyExits >= MAX_EARLY_EXITS) {
        say(`workers keep exiting right after they start (${earlyExits} in a row): stopping`);
        void stop(1);
        return;
      }
      say(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`);
      fork();
    });
  });

  const stop = async (failed = 0) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    const exits = workers.map(
      (worker) =>
        new Promise<number>((resolve) => {
          const clean = (code: number | null, signal: string | null) => code ?? (signal === 'SIGTERM' && !listened.has(worker) ? 0 : 1);
          if (worker.isDead()) return resolve(clean(worker.process.exitCode, worker.process.signalCode));
          worker.once('exit', (code, signal) => resolve(clean(code, signal)));
          worker.process.kill('SIGTERM');
        }),
    );
    const killer = setTimeout(() => {
      say('workers did not stop in time: killing them');
      for (const worker of workers) worker.process.kill('SIGKILL');
    }, config.shutdownGraceMs + STOP_MARGIN_MS);
    killer.unref();
    const codes = await Promise.all(exits);
    clearTimeout(killer);
    process.exit(failed || (codes.every((code) => code === 0) ? 0 : 1));
  };
  // A terminal's Ctrl-C reaches the workers too; they drain on it as on SIGTERM, and a second signal does nothing.
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());

  answerMetricsRequests();
  for (let i = 0; i < count; i++) fork();
  try {
    const port = await listening;
    printBanner(config, port, demo, count);
  } catch (error) {
    say((error as Error).message);
    await stop(1);
  }
}
