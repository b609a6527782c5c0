/**
 * Import benchmark: starts `learnbase serve` on a fresh database, imports an organisation of
 * positions, a job architecture and generated users through the HTTP API, and reports how long
 * each import took and the server's peak memory while it ran. See bench/README.md.
 *
 *   node --import tsx bench/imports.ts --backend pglite|postgres [--users 100000] [--positions 10000] [--jobs 500]
 */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import {
  BENCH_TENANT,
  createStorage,
  DEFAULT_POSTGRES,
  ensureBuilt,
  integer,
  log,
  runBench,
  startBenchTenant,
  UsageError,
  publishReport,
} from './support.js';

const TENANT = BENCH_TENANT;

/** The targets on the 2-core development machine with PostgreSQL (seconds, MB). */
const TARGETS = { firstImportSeconds: 10, reimportSeconds: 10, verifySeconds: 5, serverPeakMb: 500 };

const USAGE = `Usage: node --import tsx bench/imports.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --users N                   generated users, 10 attributes each (default 100000)
  --positions N               organisation entries, a position hierarchy (default 10000)
  --jobs N                    jobs with 3 competencies each (default 500)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})
  --settle S                  seconds to wait before each user import, so the server's garbage
                              collector has settled (default 10; 0 runs them back to back)
  --no-save                   do not write bench/results/imports-<backend>-<timestamp>.json`;

interface Options {
  backend: 'pglite' | 'postgres';
  users: number;
  positions: number;
  jobs: number;
  database: string;
  settleSeconds: number;
  save: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      users: { type: 'string', default: '100000' },
      positions: { type: 'string', default: '10000' },
      jobs: { type: 'string', default: '500' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
      settle: { type: 'string', default: '10' },
      'no-save': { type: 'boolean', default: false },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  return {
    backend: values.backend,
    users: integer('--users', values.users, 1, 1_000_000),
    positions: integer('--positions', values.positions, 1, 1_000_000),
    jobs: integer('--jobs', values.jobs, 1, 100_000),
    database: values.database,
    settleSeconds: integer('--settle', values.settle, 0, 600),
    save: !values['no-save'],
  };
}

// ---------------------------------------------------------------------------------------------
// The data: a position hierarchy (each position reports to one of the first tenth), jobs with
// competencies, and users linked to both through `positionNumber` and `jobCode`.

const position = (n: number) => `P${String(n).padStart(6, '0')}`;
const job = (n: number) => `J${String(n).padStart(4, '0')}`;

function organisation(count: number) {
  return Array.from({ length: count }, (_, n) => ({
    id: position(n),
    ...(n === 0 ? {} : { parentId: position(Math.floor((n - 1) / 10)) }),
    attributes: { title: `Position ${n}`, grade: String(n % 12), location: `Site ${n % 40}` },
  }));
}

function jobs(count: number) {
  return Array.from({ length: count }, (_, n) => ({
    id: job(n),
    name: `Job ${n}`,
    competencies: [1, 2, 3].map((c) => ({ Name: `Competency ${n}.${c}`, Description: `What job ${n} needs, part ${c}.` })),
    attributes: { family: `Family ${n % 20}` },
  }));
}

/** Ten attributes each; `round` changes a few values so a re-import really updates. */
function users(count: number, positions: number, jobCount: number, round: number) {
  return Array.from({ length: count }, (_, n) => ({
    name: `Learner ${n}`,
    attributes: {
      employeeId: `E${String(n).padStart(7, '0')}`,
      email: `learner${n}@bench.example.com`,
      positionNumber: position(n % positions),
      jobCode: job(n % jobCount),
      department: `Department ${n % 50}`,
      costCentre: `CC${n % 300}`,
      country: ['NZ', 'AU', 'GB', 'US', 'DE'][n % 5],
      language: ['en', 'de', 'fr'][n % 3],
      startDate: `20${String(10 + (n % 15)).padStart(2, '0')}-0${1 + (n % 9)}-1${n % 9}`,
      round: String(round),
    },
  }));
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** The resident memory of a process in MB (Linux), sampled until `stop` is called: the peak. */
function watchMemory(pid: number | undefined): () => number | undefined {
  if (pid === undefined) return () => undefined;
  let peak = 0;
  const sample = () => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peak = Math.max(peak, Number(match[1]) / 1024);
    } catch {
      // not Linux, or the process is gone
    }
  };
  sample();
  const timer = setInterval(sample, 50);
  return () => {
    clearInterval(timer);
    sample();
    return peak === 0 ? undefined : Math.round(peak);
  };
}

interface Step {
  seconds: number;
  serverPeakMb?: number;
  status: number;
  summary?: unknown;
}

async function timed(pid: number | undefined, send: () => Promise<Response>): Promise<Step> {
  const stop = watchMemory(pid);
  const started = process.hrtime.bigint();
  const response = await send();
  const text = await response.text();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const serverPeakMb = stop();
  if (!response.ok) throw new Error(`the import answered ${response.status}: ${text.slice(0, 500)}`);
  const summary = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  return { seconds: Math.round(seconds * 100) / 100, serverPeakMb, status: response.status, summary };
}

const counts = (summary: unknown) => {
  const { rows, new: created, existing, skipped, errorCount, warningCount } = summary as Record<string, number>;
  return { rows, new: created, existing, skipped, errorCount, warningCount };
};

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const { base, authorization, server } = await startBenchTenant(storage, { LEARNBASE_IMPORT_LIMIT_BYTES: String(1024 * 1024 * 1024) });
  const headers = {
    authorization,
    'x-svc-tenant': TENANT,
    'content-type': 'application/json',
  };
  const send = (method: string, path: string, body: unknown) => () =>
    fetch(`${base}${path}`, { method, headers, body: JSON.stringify(body) });

  log('settings: employeeId identifies a person; positionNumber and jobCode link the organisation and jobs');
  const settings = await send('PUT', '/api/settings', {
    uniqueAttributes: ['employeeId', 'email'],
    organisationAttribute: 'positionNumber',
    jobAttribute: 'jobCode',
  })();
  if (!settings.ok) throw new Error(`PUT /api/settings answered ${settings.status}: ${await settings.text()}`);

  log(`organisation: ${options.positions} positions`);
  const organisationStep = await timed(server.pid, send('PUT', '/api/import/organisation', organisation(options.positions)));
  log(`jobs: ${options.jobs}`);
  const jobsStep = await timed(server.pid, send('PUT', '/api/import/jobs', jobs(options.jobs)));

  // V8 collects a finished import's garbage once the server is idle for a few seconds (its memory
  // reducer); imports sent back to back measure the previous one's garbage too.
  const settle = () => new Promise((resolve) => setTimeout(resolve, options.settleSeconds * 1000));
  await settle();
  log(`users: first import of ${options.users}`);
  const first = await timed(
    server.pid,
    send('POST', '/api/import/users', { users: users(options.users, options.positions, options.jobs, 1) }),
  );
  const second = users(options.users, options.positions, options.jobs, 2);
  await settle();
  log('users: verify of a re-import (writes nothing)');
  const verify = await timed(server.pid, send('POST', '/api/import/users', { users: second, verify: true }));
  await settle();
  log('users: re-import, every user existing');
  const reimport = await timed(server.pid, send('POST', '/api/import/users', { users: second }));

  const firstCounts = counts(first.summary);
  const reimportCounts = counts(reimport.summary);
  if (firstCounts.new !== options.users || reimportCounts.existing !== options.users) {
    throw new Error(`unexpected summaries: first ${JSON.stringify(firstCounts)}, re-import ${JSON.stringify(reimportCounts)}`);
  }
  const peak = Math.max(...[first, verify, reimport].map((step) => step.serverPeakMb ?? 0)) || undefined;
  const report = {
    backend: options.backend,
    node: process.version,
    cpus: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    startedAt: new Date().toISOString(),
    data: { users: options.users, attributesPerUser: 10, positions: options.positions, jobs: options.jobs },
    settleSeconds: options.settleSeconds,
    organisation: { seconds: organisationStep.seconds, serverPeakMb: organisationStep.serverPeakMb },
    jobs: { seconds: jobsStep.seconds },
    users: {
      first: { seconds: first.seconds, serverPeakMb: first.serverPeakMb, summary: firstCounts },
      verify: { seconds: verify.seconds, serverPeakMb: verify.serverPeakMb, summary: counts(verify.summary) },
      reimport: { seconds: reimport.seconds, serverPeakMb: reimport.serverPeakMb, summary: reimportCounts },
    },
    targets:
      options.backend === 'postgres' && options.users === 100_000
        ? {
            ...TARGETS,
            met:
              first.seconds < TARGETS.firstImportSeconds &&
              reimport.seconds < TARGETS.reimportSeconds &&
              verify.seconds < TARGETS.verifySeconds &&
              (peak === undefined || peak < TARGETS.serverPeakMb),
          }
        : undefined,
  };
  publishReport('imports', report, options.save);
  return 0;
}

await runBench(main, USAGE);
