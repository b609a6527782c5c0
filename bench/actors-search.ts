import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import {
  BENCH_TENANT,
  createStorage,
  DEFAULT_POSTGRES,
  ensureBuilt,
  integer,
  load,
  log,
  quantile,
  runBench,
  startBenchTenant,
  UsageError,
  publishReport,
} from './support.js';

const TENANT = BENCH_TENANT;

/** The target on the 2-core development machine with PostgreSQL (ms). */
const TARGET_P99_MS = 50;

const USAGE = `Usage: npm run bench:actors-search -- --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --users N                   generated users, 10 attributes each (default 100000)
  --positions N               organisation entries, a position hierarchy (default 1000)
  --jobs N                    jobs with 3 competencies each (default 100)
  --duration S                measured seconds (default 10, at most 120)
  --connections N             concurrent keep-alive connections (default 10)
  --warmup S                  unmeasured load first (default 2, 0 for none)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})
  --no-save                   do not write bench/results/actors-search-<backend>-<timestamp>.json`;

interface Options {
  backend: 'pglite' | 'postgres';
  users: number;
  positions: number;
  jobs: number;
  duration: number;
  connections: number;
  warmup: number;
  database: string;
  save: boolean;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      users: { type: 'string', default: '100000' },
      positions: { type: 'string', default: '1000' },
      jobs: { type: 'string', default: '100' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
      'no-save': { type: 'boolean', default: false },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  return {
    backend: values.backend,
    users: integer('--users', values.users, 1, 1_000_000),
    positions: integer('--positions', values.positions, 11, 1_000_000),
    jobs: integer('--jobs', values.jobs, 1, 100_000),
    duration: integer('--duration', values.duration, 1, 120),
    connections: integer('--connections', values.connections, 1, 1_000),
    warmup: integer('--warmup', values.warmup, 0, 60),
    database: values.database,
    save: !values['no-save'],
  };
}

// ---------------------------------------------------------------------------------------------
// The data: a position hierarchy (each position reports to one of the first tenth), jobs with
// competencies, and users linked to both through `positionNumber` and `jobCode`.

const position = (n: number) => `P${String(n).padStart(6, '0')}`;
const job = (n: number) => `J${String(n).padStart(4, '0')}`;
const COUNTRIES = ['NZ', 'AU', 'GB', 'US', 'DE'];

const organisation = (count: number) =>
  Array.from({ length: count }, (_, n) => ({
    id: position(n),
    ...(n === 0 ? {} : { parentId: position(Math.floor((n - 1) / 10)) }),
    attributes: { title: `Position ${n}`, location: `Site ${n % 40}` },
  }));

const jobs = (count: number) =>
  Array.from({ length: count }, (_, n) => ({
    id: job(n),
    name: `Job ${n}`,
    competencies: [1, 2, 3].map((c) => ({ Name: `Competency ${n}.${c}`, Description: `What job ${n} needs, part ${c}.` })),
    attributes: { family: `Family ${n % 20}` },
  }));

/** Ten attributes each; country varies apart from department (n / 7), so the two conditions are independent. */
const users = (count: number, positions: number, jobCount: number) =>
  Array.from({ length: count }, (_, n) => ({
    name: `Learner ${n}`,
    attributes: {
      employeeId: `E${String(n).padStart(7, '0')}`,
      email: `learner${n}@bench.example.com`,
      positionNumber: position(n % positions),
      jobCode: job(n % jobCount),
      department: `Department ${n % 50}`,
      costCentre: `CC${n % 300}`,
      country: COUNTRIES[Math.floor(n / 7) % COUNTRIES.length],
      language: ['en', 'de', 'fr'][n % 3],
      startDate: `20${String(10 + (n % 15)).padStart(2, '0')}-0${1 + (n % 9)}-1${n % 9}`,
      grade: String(n % 12),
    },
  }));

/**
 * The measured criteria: one department (1 in 50, the GIN index's `@>`), two countries of five,
 * and everyone below position 1 (about a tenth of the organisation, a recursive walk down).
 */
const CRITERIA = {
  and: [
    { field: 'attributes.department', op: 'eq', value: 'Department 7' },
    { field: 'attributes.country', op: 'in', value: ['NZ', 'GB'] },
    { field: 'organisation.ancestors.id', op: 'eq', value: position(1) },
  ],
};

// ---------------------------------------------------------------------------------------------
// Measuring

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const { base, authorization } = await startBenchTenant(storage, { LEARNBASE_IMPORT_LIMIT_BYTES: String(1024 * 1024 * 1024) });
  const headers = {
    authorization,
    'x-svc-tenant': TENANT,
    'content-type': 'application/json',
  };
  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, { method, headers, body: JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  };

  log('settings: positionNumber and jobCode link the organisation and jobs');
  await send('PUT', '/api/settings', {
    uniqueAttributes: ['employeeId', 'email'],
    organisationAttribute: 'positionNumber',
    jobAttribute: 'jobCode',
  });
  log(`organisation: ${options.positions} positions; jobs: ${options.jobs}`);
  await send('PUT', '/api/import/organisation', organisation(options.positions));
  await send('PUT', '/api/import/jobs', jobs(options.jobs));
  log(`users: importing ${options.users}`);
  const importStarted = process.hrtime.bigint();
  const summary = await send('POST', '/api/import/users', { users: users(options.users, options.positions, options.jobs) });
  const importSeconds = Math.round(Number(process.hrtime.bigint() - importStarted) / 1e7) / 100;
  if (summary?.new !== options.users) throw new Error(`unexpected import summary: ${JSON.stringify(summary).slice(0, 500)}`);
  log(`users: imported in ${importSeconds} s`);

  // One search by hand: what the load will ask, checked before it is measured.
  const path = '/api/actors/search?limit=20';
  const checked = (await send('POST', path, { criteria: CRITERIA })) as { actors: unknown[]; total: number };
  if (checked.total === 0 || checked.actors.length === 0) throw new Error('the measured criteria match no actor');
  log(`search: ${checked.total} actors match; a page of ${checked.actors.length}`);

  const request = { url: base, method: 'POST' as const, path, headers, body: JSON.stringify({ criteria: CRITERIA }) };
  if (options.warmup > 0) {
    log(`warming up for ${options.warmup} s`);
    await load(request.url, request, options.warmup, options.connections);
  }
  log(`search: ${options.connections} connections for ${options.duration} s`);
  const { result, latencies } = await load(request.url, request, options.duration, options.connections);
  const search = {
    criteria: CRITERIA,
    matching: checked.total,
    limit: 20,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: quantile(latencies, 0.5),
    p90Ms: quantile(latencies, 0.9),
    p99Ms: quantile(latencies, 0.99),
    maxMs: quantile(latencies, 1),
    requests: result['2xx'] + result.non2xx,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
  log(`search: ${search.requestsPerSecond} req/s, p50 ${search.p50Ms} ms, p99 ${search.p99Ms} ms`);
  const report = {
    backend: options.backend,
    node: process.version,
    cpus: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    startedAt: new Date().toISOString(),
    data: { users: options.users, attributesPerUser: 10, positions: options.positions, jobs: options.jobs, importSeconds },
    connections: options.connections,
    durationSeconds: options.duration,
    search,
    target:
      options.backend === 'postgres' && options.users === 100_000 ? { p99Ms: TARGET_P99_MS, met: search.p99Ms < TARGET_P99_MS } : undefined,
  };
  publishReport('actors-search', report, options.save);
  // Mostly errors measures the error path, not the search.
  return search.non2xx + search.errors > search.requests / 2 ? 1 : 0;
}

await runBench(main, USAGE);
