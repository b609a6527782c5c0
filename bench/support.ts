/**
 * What the benchmarks share: a scratch storage (PGlite folder or PostgreSQL database), the
 * built server started on it as a child process, the CLI, and a clean-up that undoes all of it on
 * success, failure and Ctrl-C. See bench/README.md.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = join(ROOT, 'bin', 'learnbase');
export const DEFAULT_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';
export const HOST = '127.0.0.1';

/** A wrong command line: the script prints the message and its usage, and exits 2. */
export class UsageError extends Error {}

export function integer(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}.`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Clean-up: everything created is undone in reverse order, on success, failure and Ctrl-C.

const cleanups: Array<{ what: string; run: () => Promise<void> }> = [];
const interruptions: Array<() => void> = [];
let cleaning: Promise<void> | undefined;

/** Registers an undo step; steps run in reverse order of registration. */
export function onCleanup(what: string, run: () => Promise<void>): void {
  cleanups.push({ what, run });
}

/** Registers what must stop first when cleaning up (a load in progress). */
export function onInterrupt(stop: () => void): void {
  interruptions.push(stop);
}

export function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const stop of interruptions) stop();
    for (const { what, run } of cleanups.reverse()) {
      try {
        await run();
      } catch (error) {
        log(`clean-up failed (${what}): ${(error as Error).message}`);
      }
    }
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the server and cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  });
}

export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

// ---------------------------------------------------------------------------------------------
// The server under test

export interface Storage {
  /** The CLI flags that point a command at this storage. */
  flags: string[];
  describe: string;
  /** PostgreSQL only: a client on the scratch database, for statistics. */
  statsUrl?: string;
}

export async function createStorage(options: { backend: 'pglite' | 'postgres'; database: string; keep?: boolean }): Promise<Storage> {
  if (options.backend === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'learnbase-bench-'));
    onCleanup('remove the PGlite folder', async () => rmSync(dir, { recursive: true, force: true }));
    return { flags: ['--data', dir], describe: `PGlite in ${dir}` };
  }
  const name = `learnbase_bench_${randomBytes(4).toString('hex')}`;
  const url = new URL(options.database);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    throw new UsageError(`--database must be on loopback (got ${url.hostname}): this benchmark creates and drops a database.`);
  }
  await adminQuery(options.database, `CREATE DATABASE ${name}`);
  url.pathname = `/${name}`;
  if (options.keep) log(`keeping database ${url} after the run: drop it yourself`);
  else onCleanup(`drop database ${name}`, () => adminQuery(options.database, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  return { flags: ['--database', url.toString()], describe: `PostgreSQL database ${name}`, statsUrl: url.toString() };
}

export async function adminQuery(connectionString: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const execFileAsync = promisify(execFile);

/**
 * The environment of every process a benchmark starts. Its identity providers listen on loopback
 * (bench/identity.ts), which a server refuses to reach but in the tests: the benchmarks take the
 * tests' allowance (docs/operations.md, "Requests the server makes"). The stored secrets' key is
 * whatever the environment gives (none on a PGlite folder: the server makes its key file).
 */
const BENCH_ENV = { LOG_LEVEL: 'warn', NODE_ENV: 'test', LEARNBASE_TEST_OUTBOUND_LOOPBACK: 'allow' };

/** Runs a `learnbase … --json` command and parses its one JSON line. */
export async function cliJson<T>(args: string[]): Promise<T> {
  const { stdout } = await execFileAsync(process.execPath, [CLI, ...args, '--json'], {
    cwd: ROOT,
    env: { ...process.env, ...BENCH_ENV },
    timeout: 60_000,
  }).catch((error: { stderr?: string; message: string }) => {
    throw new Error(`learnbase ${args.join(' ')} failed: ${error.stderr?.trim() || error.message}`);
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as T;
}

export function ensureBuilt(): void {
  const built = join(ROOT, 'dist', 'cli', 'cli.js');
  if (!existsSync(built)) throw new UsageError('dist/ is missing: run `npm run build` first.');
  const newestSource = newestMtime(join(ROOT, 'src'));
  const newestBuilt = newestMtime(join(ROOT, 'dist'));
  if (newestSource > newestBuilt) log('warning: src/ has files newer than dist/; run `npm run build` to measure the current code.');
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function startServer(
  storage: Storage,
  port: number,
  profileDir: string | undefined,
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  const nodeFlags = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]
    : (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeFlags, CLI, 'serve', '--port', String(port), '--host', HOST, ...storage.flags], {
    cwd: ROOT,
    env: { ...process.env, ...BENCH_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // stdout stays ours (the report); the server's output goes to stderr, prefixed.
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) process.stderr.write(`[server] ${line}\n`);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  onCleanup('stop the server', async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM'); // the server drains and closes its database; --cpu-prof writes on this exit
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  });

  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode} before answering /health`);
    try {
      const response = await fetch(`http://${HOST}:${port}/health`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the server did not answer /health within 60 s');
}

export interface LoadResult {
  result: autocannon.Result;
  /** Latency of every answered response in ms, sorted: autocannon's own histogram rounds to whole milliseconds. */
  latencies: Float64Array;
}

let currentLoad: autocannon.Instance | undefined;

/**
 * Drives `request` against `url` with autocannon for `seconds` over `connections` keep-alive
 * connections; Ctrl-C stops it. `answered` tells the responses whose latency counts (default 2xx).
 */
export function load(
  url: string,
  request: autocannon.Request,
  seconds: number,
  connections: number,
  answered = (status: number) => status >= 200 && status < 300,
  /** Requests per second over all connections; as many as they can answer when absent. */
  overallRate?: number,
): Promise<LoadResult> {
  if (currentLoad === undefined) onInterrupt(() => currentLoad?.stop());
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const instance = autocannon(
      { url, connections, duration: seconds, pipelining: 1, timeout: 10, requests: [request], ...(overallRate ? { overallRate } : {}) },
      (error, result) => {
        currentLoad = undefined;
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve({ result, latencies: Float64Array.from(latencies).sort() });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (answered(statusCode)) latencies.push(responseTime);
    });
    currentLoad = instance;
  });
}

/** The q-quantile of sorted values (nearest rank), in ms with two decimals. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const value = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return Math.round(value * 100) / 100;
}

/** A reproducible pseudo-random sequence (a 32-bit LCG): the same data on every run. */
export function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

export interface QueryCases {
  /** The resource every case queries, e.g. `/xapi/statements`. */
  path: string;
  headers: Record<string, string>;
  /** The cases to run, by name, in order. */
  names: string[];
  /** The query string of one request of a case; `draw` is that case's own sequence. */
  query(name: string, draw: () => number): string;
  duration: number;
  connections: number;
  /** A p99 target in ms per case, reported as met or not. */
  targets?: Record<string, number>;
}

/**
 * Each query case alone: a 2 s warm-up, then `duration` seconds of load; its requests a second, p50
 * and p99 (of the 2xx answers) and non-2xx count. Every case draws from the same seed, so runs compare.
 */
export async function measureQueryCases(base: string, cases: QueryCases): Promise<{ queries: Record<string, unknown>; non2xx: number }> {
  const queries: Record<string, unknown> = {};
  let non2xx = 0;
  for (const name of cases.names) {
    const draw = sequence(3);
    const request: autocannon.Request = {
      method: 'GET',
      path: cases.path,
      headers: cases.headers,
      setupRequest: (req) => ({ ...req, path: `${cases.path}?${cases.query(name, draw)}` }),
    };
    await load(base, request, 2, cases.connections);
    const { result, latencies } = await load(base, request, cases.duration, cases.connections);
    const p99Ms = quantile(latencies, 0.99);
    const target = cases.targets?.[name];
    queries[name] = {
      requestsPerSecond: Math.round(result.requests.average),
      p50Ms: quantile(latencies, 0.5),
      p99Ms,
      ...(target === undefined ? {} : { targetP99Ms: target, met: p99Ms < target }),
      non2xx: result.non2xx,
    };
    non2xx += result.non2xx;
    log(`${name}: ${JSON.stringify(queries[name])}`);
  }
  return { queries, non2xx };
}

/** One case's figures: the answered requests' rate and latency (`answered` says which statuses count; 2xx by default). */
export interface CaseFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  answered: number;
  other: number;
  errors: number;
}

/** Runs one case for `seconds` at `connections` (load) and logs and answers its figures. */
export async function measureCase(
  name: string,
  base: string,
  request: autocannon.Request,
  seconds: number,
  connections: number,
  answered?: (status: number) => boolean,
): Promise<CaseFigures> {
  log(`${name}: ${connections} connections for ${seconds} s`);
  const { result, latencies } = await load(base, request, seconds, connections, answered);
  const figures = {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    answered: latencies.length,
    other: result['2xx'] + result.non2xx - latencies.length,
    errors: result.errors + result.timeouts,
  };
  log(`${name}: ${figures.requestsPerSecond} req/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, ${figures.other} other answers`);
  return figures;
}

/** Where the benchmarks keep their reports (git ignores it). */
export const RESULTS_DIR = join(ROOT, 'bench', 'results');

/**
 * Prints a benchmark's report as JSON on standard output and, with `save`, writes it to
 * bench/results/<name>-<backend>-<startedAt>.json.
 */
export function publishReport(name: string, report: { backend: string; startedAt: string }, save: boolean): void {
  const text = JSON.stringify(report, null, 2);
  process.stdout.write(`${text}\n`);
  if (!save) return;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${name}-${report.backend}-${report.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${text}\n`);
  log(`saved ${file}`);
}

/** The tenant every benchmark creates on its fresh storage. */
export const BENCH_TENANT = 'bench';

/**
 * The tenant `bench` with one API key on `storage`, and `learnbase serve` for it on a free port
 * (`env` added to the server's environment). `authorization` is the key's Basic header value.
 */
export async function startBenchTenant(
  storage: Storage,
  env: Record<string, string> = {},
): Promise<{ base: string; server: ChildProcess; authorization: string }> {
  await cliJson(['tenant', 'create', BENCH_TENANT, ...storage.flags]);
  const apiKey = await cliJson<{ key: string; secret: string }>(['apikey', 'create', '--tenant', BENCH_TENANT, ...storage.flags]);
  const port = await freePort();
  const server = await startServer(storage, port, undefined, env);
  return {
    base: `http://${HOST}:${port}`,
    server,
    authorization: `Basic ${Buffer.from(`${apiKey.key}:${apiKey.secret}`).toString('base64')}`,
  };
}

/**
 * Runs a benchmark's `main` and exits with its code: on a UsageError the message and `usage`
 * (exit 2), on any other failure the stack (exit 1); the storage and server are cleaned up either way.
 */
export async function runBench(main: () => Promise<number>, usage: string): Promise<never> {
  let code = 1;
  try {
    code = await main();
  } catch (error) {
    if (error instanceof UsageError) process.stderr.write(`bench: ${error.message}\n\n${usage}\n`);
    else process.stderr.write(`bench: ${(error as Error).stack ?? String(error)}\n`);
    code = error instanceof UsageError ? 2 : 1;
  } finally {
    await cleanUp();
  }
  process.exit(code);
}
