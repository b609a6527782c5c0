/**
 * Load test of the xAPI state resource: starts `learnbase serve` on a fresh database (PGlite
 * folder or PostgreSQL database), drives it on loopback with autocannon, prints one JSON report
 * on stdout and writes it to bench/results/. See bench/README.md.
 *
 *   npm run bench -- --backend pglite|postgres [--duration 10] [--connections 10] [--database URL]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import pg from 'pg';
import {
  cleanUp,
  cliJson,
  createStorage,
  DEFAULT_POSTGRES,
  ensureBuilt,
  freePort,
  HOST,
  integer,
  log,
  onCleanup,
  load,
  quantile,
  ROOT,
  startServer,
  UsageError,
  RESULTS_DIR,
} from './support.js';

const TENANT = 'bench';

/** The issue's targets, on the 2-core development machine with PostgreSQL. */
const TARGETS: Partial<Record<CaseName, number>> = { putState: 3_000, getState: 6_000 };

const USAGE = `Usage: npm run bench -- --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --duration SECONDS          length of each measured case (default 10, at most 120)
  --connections N             concurrent keep-alive connections (default 10)
  --warmup SECONDS            unmeasured run before each case (default 2, 0 for none)
  --database URL              PostgreSQL server to create the scratch database on
                              (default ${DEFAULT_POSTGRES})
  --port N                    server port (default: a free one)
  --cases LIST                comma-separated cases (default: putState,getState,postMerge,listStateIds;
                              "all" adds the ceilings xapiAbout and apiMe)
  --profile DIR               run the server with --cpu-prof and write its profile to DIR
  --no-save                   do not write bench/results/<backend>-<timestamp>.json`;

// ---------------------------------------------------------------------------------------------
// Options

const STATE_CASES = ['putState', 'getState', 'postMerge', 'listStateIds'] as const;
const CEILING_CASES = ['xapiAbout', 'apiMe'] as const;
type CaseName = (typeof STATE_CASES)[number] | (typeof CEILING_CASES)[number];
const ALL_CASES: readonly CaseName[] = [...STATE_CASES, ...CEILING_CASES];

interface Options {
  backend: 'pglite' | 'postgres';
  duration: number;
  connections: number;
  warmup: number;
  database: string;
  port: number | undefined;
  cases: CaseName[];
  profileDir: string | undefined;
  save: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
      port: { type: 'string' },
      cases: { type: 'string', default: STATE_CASES.join(',') },
      profile: { type: 'string' },
      'no-save': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  const duration = integer('--duration', values.duration, 1, 120);
  const connections = integer('--connections', values.connections, 1, 1_000);
  const warmup = integer('--warmup', values.warmup, 0, 60);
  const port = values.port === undefined ? undefined : integer('--port', values.port, 1, 65_535);
  if (!/^postgres(ql)?:\/\//.test(values.database)) throw new UsageError('--database must be a postgres:// URL.');
  const wanted = values.cases === 'all' ? [...ALL_CASES] : values.cases.split(',').map((name) => name.trim());
  const unknown = wanted.filter((name) => !ALL_CASES.includes(name as CaseName));
  if (unknown.length > 0 || wanted.length === 0) {
    throw new UsageError(`Unknown case ${unknown.join(', ') || '(none)'}; cases are ${ALL_CASES.join(', ')}.`);
  }
  return {
    backend: values.backend,
    duration,
    connections,
    warmup,
    database: values.database,
    port,
    cases: wanted as CaseName[],
    profileDir: values.profile,
    save: !values['no-save'],
  };
}

// ---------------------------------------------------------------------------------------------
// The cases

interface Target {
  base: string;
  /** Authorization, X-SVC-Tenant and X-Experience-API-Version. */
  headers: Record<string, string>;
}

const AGENT = JSON.stringify({ objectType: 'Agent', mbox: 'mailto:bench-learner@example.com' });
/** Each case has its own activity, so the PUT case's tens of thousands of documents never sit in another case's way. */
const activity = (name: string) => `https://bench.example.com/activities/${name}`;

function statePath(activityId: string, stateId?: string): string {
  const query = new URLSearchParams({ activityId, agent: AGENT });
  if (stateId !== undefined) query.set('stateId', stateId);
  return `/xapi/activities/state?${query.toString()}`;
}

/** A typical SCORM-like bookmark document, about 300 bytes of JSON. */
function bookmark(n: number): string {
  return JSON.stringify({
    location: `module-3/page-${n % 40}`,
    progress: (n % 100) / 100,
    attempts: 1 + (n % 3),
    suspendData: 'A1B2C3D4E5F6G7H8I9J0'.repeat(5),
    interactions: { q1: 'choice-b', q2: 'true', q3: 'sequence-3-1-2' },
    updatedBy: 'learnbase-bench',
  });
}

const LISTED_STATES = 20;
/** More CPU than this used by neither the server, the load generator nor the database means someone else was busy. */
const NOISY_CORES = 0.25;

interface CaseDefinition {
  description: string;
  /** Stores what the case reads and checks once, by hand, that the request answers 2xx with the right body. */
  prepare(target: Target): Promise<void>;
  request(target: Target): autocannon.Request;
}

const JSON_TYPE = { 'content-type': 'application/json' };

const CASES: Record<CaseName, CaseDefinition> = {
  putState: {
    description: 'PUT /xapi/activities/state, a new stateId on every request (a ~300-byte JSON document)',
    async prepare(target) {
      const path = statePath(activity('put'), 'check');
      await expectStatus(target, 'PUT', path, 204, bookmark(0));
      await expectStatus(target, 'GET', path, 200, undefined, bookmark(0));
    },
    request(target) {
      let counter = 0;
      const prefix = `r${randomBytes(3).toString('hex')}-`; // warm-up and measured runs never reuse an id
      return {
        method: 'PUT',
        headers: { ...target.headers, ...JSON_TYPE },
        setupRequest: (request) => {
          counter += 1;
          return { ...request, path: statePath(activity('put'), `${prefix}${counter}`), body: bookmark(counter) };
        },
      };
    },
  },
  getState: {
    description: 'GET /xapi/activities/state of one stored ~300-byte document',
    async prepare(target) {
      const path = statePath(activity('get'), 'bookmark');
      await expectStatus(target, 'PUT', path, 204, bookmark(7));
      await expectStatus(target, 'GET', path, 200, undefined, bookmark(7));
    },
    request(target) {
      return { method: 'GET', headers: target.headers, path: statePath(activity('get'), 'bookmark') };
    },
  },
  postMerge: {
    description: 'POST /xapi/activities/state merging {"progress":n,"page":n} into one stored document (all connections on the same row)',
    async prepare(target) {
      const path = statePath(activity('merge'), 'progress');
      await expectStatus(target, 'PUT', path, 204, bookmark(1));
      await expectStatus(target, 'POST', path, [200, 204], JSON.stringify({ progress: 0.5, page: 0 }));
      const merged = (await expectStatus(target, 'GET', path, 200)) as Record<string, unknown>;
      if (merged.progress !== 0.5 || merged.location !== JSON.parse(bookmark(1)).location) {
        throw new Error(`POST did not merge: the document is now ${JSON.stringify(merged)}`);
      }
    },
    request(target) {
      let counter = 0;
      return {
        method: 'POST',
        headers: { ...target.headers, ...JSON_TYPE },
        path: statePath(activity('merge'), 'progress'),
        setupRequest: (request) => {
          counter += 1;
          return { ...request, body: JSON.stringify({ progress: (counter % 100) / 100, page: counter }) };
        },
      };
    },
  },
  listStateIds: {
    description: `GET /xapi/activities/state without stateId: the ids of ${LISTED_STATES} stored documents`,
    async prepare(target) {
      for (let n = 0; n < LISTED_STATES; n++) {
        await expectStatus(target, 'PUT', statePath(activity('list'), `state-${n}`), 204, bookmark(n));
      }
      const ids = await expectStatus(target, 'GET', statePath(activity('list')), 200);
      if (!Array.isArray(ids) || ids.length !== LISTED_STATES) {
        throw new Error(`the list answered ${JSON.stringify(ids)}, expected ${LISTED_STATES} ids`);
      }
    },
    request(target) {
      return { method: 'GET', headers: target.headers, path: statePath(activity('list')) };
    },
  },
  xapiAbout: {
    description: 'ceiling: GET /xapi/about (no tenant, no credential, no database)',
    async prepare(target) {
      await expectStatus(target, 'GET', '/xapi/about', 200);
    },
    request() {
      return { method: 'GET', path: '/xapi/about' };
    },
  },
  apiMe: {
    description: 'ceiling: GET /api/me (tenant and credential checks, cached; no database on a cache hit)',
    async prepare(target) {
      await expectStatus(target, 'GET', '/api/me', 200);
    },
    request(target) {
      return { method: 'GET', headers: target.headers, path: '/api/me' };
    },
  },
};

/** One request by hand: fails with the server's answer unless the status (and the JSON body, when given) is as expected. */
async function expectStatus(
  target: Target,
  method: string,
  path: string,
  status: number | number[],
  body?: string,
  expectedBody?: string,
): Promise<unknown> {
  const response = await fetch(`${target.base}${path}`, {
    method,
    headers: body === undefined ? target.headers : { ...target.headers, ...JSON_TYPE },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const allowed = Array.isArray(status) ? status : [status];
  if (!allowed.includes(response.status)) {
    throw new Error(`${method} ${path} answered ${response.status} (expected ${allowed.join(' or ')}): ${text.slice(0, 500)}`);
  }
  const parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
  if (expectedBody !== undefined && JSON.stringify(parsed) !== JSON.stringify(JSON.parse(expectedBody))) {
    throw new Error(`${method} ${path} answered ${text.slice(0, 500)}, expected ${expectedBody}`);
  }
  return parsed;
}

// ---------------------------------------------------------------------------------------------
// Running the load

interface CaseReport {
  description: string;
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** Linux only: CPU cores busy on average during the case, out of `cpus`; the load generator is this process (autocannon). */
  cpuCores?: CpuCores;
  /** PostgreSQL only: committed transactions (one per plain statement) per request, from pg_stat_database. */
  pgTransactionsPerRequest?: number;
  target?: { requestsPerSecond: number; met: boolean };
}

async function runCase(
  name: CaseName,
  target: Target,
  options: Options,
  stats: PgStats | undefined,
  serverPid: number | undefined,
): Promise<CaseReport> {
  const definition = CASES[name];
  await definition.prepare(target);
  if (options.warmup > 0) {
    log(`${name}: warming up for ${options.warmup} s`);
    await load(target.base, definition.request(target), options.warmup, options.connections);
  }
  log(`${name}: ${options.connections} connections for ${options.duration} s`);
  const before = await stats?.commits();
  const cpuBefore = await cpuSnapshot(serverPid, stats);
  const { result, latencies } = await load(target.base, definition.request(target), options.duration, options.connections);
  const cpu = await cpuSince(cpuBefore, serverPid, stats);
  const after = await stats?.commits();

  const requests = result['2xx'] + result.non2xx;
  const statusCodes = Object.fromEntries(
    Object.entries((result as unknown as { statusCodeStats: Record<string, { count: number }> }).statusCodeStats).map(
      ([code, { count }]) => [code, count],
    ),
  );
  const report: CaseReport = {
    description: definition.description,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: quantile(latencies, 0.5),
    p90Ms: quantile(latencies, 0.9),
    p99Ms: quantile(latencies, 0.99),
    maxMs: quantile(latencies, 1),
    requests,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    ...(cpu && { cpuCores: cpu }),
  };
  if (before !== undefined && after !== undefined && requests > 0) {
    report.pgTransactionsPerRequest = Math.round(((after - before) / requests) * 100) / 100;
  }
  const goal = options.backend === 'postgres' ? TARGETS[name] : undefined;
  if (goal !== undefined) report.target = { requestsPerSecond: goal, met: report.requestsPerSecond >= goal };
  if (cpu && cpu.other > NOISY_CORES) {
    log(`warning: other work kept ${cpu.other} cores busy during ${name}: the machine was not quiet, the figures are low`);
  }
  log(
    `${name}: ${report.requestsPerSecond} req/s, p50 ${report.p50Ms} ms, p99 ${report.p99Ms} ms` +
      (report.non2xx || report.errors ? `, ${report.non2xx} non-2xx (${JSON.stringify(statusCodes)}), ${report.errors} errors` : ''),
  );
  return report;
}

// ---------------------------------------------------------------------------------------------
// Who used the CPU: /proc on Linux

interface CpuSnapshot {
  at: bigint;
  machineBusy: number;
  machineIdle: number;
  server: number;
  /** Clock ticks of each PostgreSQL backend connected to the scratch database. */
  postgres: Map<number, number>;
  self: NodeJS.CpuUsage;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process (all its threads), in clock ticks; 0 once it is gone. */
function processTicks(pid: number): number {
  try {
    // The command name may hold spaces: split after its closing parenthesis; utime and stime are fields 14 and 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

async function cpuSnapshot(serverPid: number | undefined, stats: PgStats | undefined): Promise<CpuSnapshot | undefined> {
  if (serverPid === undefined || !existsSync('/proc/stat')) return undefined;
  const pgPids = stats ? await stats.backendPids() : [];
  // cpu  user nice system idle iowait irq softirq steal …, in clock ticks
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 8 || fields.some(Number.isNaN)) return undefined;
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return {
    at: process.hrtime.bigint(),
    machineBusy: fields.reduce((sum, value) => sum + value, 0) - idle,
    machineIdle: idle,
    server: processTicks(serverPid),
    postgres: new Map(pgPids.map((pid) => [pid, processTicks(pid)])),
    self: process.cpuUsage(),
  };
}

interface CpuCores {
  server: number;
  loadGenerator: number;
  /** The backends serving the scratch database (PostgreSQL only). */
  postgres: number;
  /** Everything else: other work on the machine, PostgreSQL's shared processes (WAL writer…), interrupts. */
  other: number;
  idle: number;
}

async function cpuSince(
  before: CpuSnapshot | undefined,
  serverPid: number | undefined,
  stats: PgStats | undefined,
): Promise<CpuCores | undefined> {
  const now = await cpuSnapshot(serverPid, stats);
  if (!before || !now) return undefined;
  const seconds = Number(now.at - before.at) / 1e9;
  const round = (value: number) => Math.round(value * 100) / 100;
  const cores = (ticks: number) => ticks / CLOCK_TICKS / seconds;
  const self = process.cpuUsage(before.self);
  const loadGenerator = (self.user + self.system) / 1e6 / seconds;
  const server = cores(now.server - before.server);
  // A backend that connected during the case counts from zero; one that left is missed (the pool keeps them).
  let pgTicks = 0;
  for (const [pid, ticks] of now.postgres) pgTicks += ticks - (before.postgres.get(pid) ?? 0);
  const postgres = cores(pgTicks);
  const busy = cores(now.machineBusy - before.machineBusy);
  return {
    server: round(server),
    loadGenerator: round(loadGenerator),
    postgres: round(postgres),
    other: round(Math.max(0, busy - server - loadGenerator - postgres)),
    idle: round(cores(now.machineIdle - before.machineIdle)),
  };
}

/** Committed transactions of the scratch database, to count round trips per request. */
interface PgStats {
  commits(): Promise<number>;
  /** The backends of the scratch database, this statistics connection aside: the server's pool. */
  backendPids(): Promise<number[]>;
}

async function openStats(url: string): Promise<PgStats> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  onCleanup('close the statistics connection', () => client.end());
  return {
    async commits() {
      // Backends flush their counters at most once a second (PostgreSQL 15); wait for that.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const { rows } = await client.query<{ xact_commit: string }>(
        'SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()',
      );
      // This connection's own query is counted too; it is negligible against the load.
      return Number(rows[0]?.xact_commit ?? 0);
    },
    async backendPids() {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      return rows.map((row) => row.pid);
    },
  };
}

// ---------------------------------------------------------------------------------------------

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);

  await cliJson(['tenant', 'create', TENANT, ...storage.flags]);
  const apiKey = await cliJson<{ key: string; secret: string }>(['apikey', 'create', '--tenant', TENANT, ...storage.flags]);

  const port = options.port ?? (await freePort());
  if (options.profileDir) mkdirSync(options.profileDir, { recursive: true });
  const server = await startServer(storage, port, options.profileDir);
  log(`server: http://${HOST}:${port} (pid of the server is a child of ${process.pid})`);

  const target: Target = {
    base: `http://${HOST}:${port}`,
    headers: {
      authorization: `Basic ${Buffer.from(`${apiKey.key}:${apiKey.secret}`).toString('base64')}`,
      'x-svc-tenant': TENANT,
      'x-experience-api-version': '2.0.0',
    },
  };
  const stats = storage.statsUrl ? await openStats(storage.statsUrl) : undefined;

  const startedAt = new Date();
  const cases: Partial<Record<CaseName, CaseReport>> = {};
  for (const name of options.cases) cases[name] = await runCase(name, target, options, stats, server.pid);

  const report = {
    backend: options.backend,
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    commit: gitCommit(),
    startedAt: startedAt.toISOString(),
    connections: options.connections,
    durationSeconds: options.duration,
    warmupSeconds: options.warmup,
    cases,
  };
  const json = JSON.stringify(report, null, 2);
  process.stdout.write(`${json}\n`);
  if (options.save) {
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `${options.backend}-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${json}\n`);
    log(`report written to ${file}`);
  }

  // A figure measured on error responses measures the error path: refuse it loudly.
  const failed = Object.entries(cases).filter(([, c]) => c && (c.non2xx + c.errors + c.timeouts > c.requests / 2 || c.requests === 0));
  for (const [name, c] of Object.entries(cases)) {
    if (c && (c.non2xx > 0 || c.errors > 0))
      log(`warning: ${name} had ${c.non2xx} non-2xx responses ${JSON.stringify(c.statusCodes)} and ${c.errors} errors`);
  }
  if (failed.length > 0) {
    log(`FAILED: ${failed.map(([name]) => name).join(', ')} answered mostly errors; these figures are not valid.`);
    return 1;
  }
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  if (error instanceof UsageError) process.stderr.write(`bench: ${error.message}\n\n${USAGE}\n`);
  else log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  code = error instanceof UsageError ? 2 : 1;
} finally {
  await cleanUp();
}
process.exit(code);
