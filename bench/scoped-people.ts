/**
 * Scoped people reads: starts `learnbase serve` on a fresh database, imports 10,000 positions (a
 * hierarchy ten wide) and 100,000 users through the HTTP API, makes API keys limited to subtrees of
 * three sizes with the command line, then measures GET /api/actors and POST /api/actors/search for
 * the unscoped key and each scoped one, one case after the other. See bench/README.md, "Scoped
 * people reads".
 *
 *   npm run bench:scoped-people -- --backend pglite|postgres [--users 100000] [--positions 10000]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BENCH_TENANT,
  cliJson,
  createStorage,
  DEFAULT_POSTGRES,
  ensureBuilt,
  integer,
  load,
  log,
  quantile,
  ROOT,
  runBench,
  startBenchTenant,
  UsageError,
} from './support.js';

const USAGE = `Usage: npm run bench:scoped-people -- --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --users N                   generated users (default 100000)
  --positions N               organisation entries, each below one of the first tenth (default 10000)
  --duration S                measured seconds per case (default 3, at most 60)
  --connections N             concurrent keep-alive connections (default 1: the latency of one request)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})
  --no-save                   do not write bench/results/scoped-people-<backend>-<timestamp>.json`;

interface Options {
  backend: 'pglite' | 'postgres';
  users: number;
  positions: number;
  duration: number;
  connections: number;
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
      positions: { type: 'string', default: '10000' },
      duration: { type: 'string', default: '3' },
      connections: { type: 'string', default: '1' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
      'no-save': { type: 'boolean', default: false },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  return {
    backend: values.backend,
    users: integer('--users', values.users, 1, 1_000_000),
    positions: integer('--positions', values.positions, 112, 1_000_000),
    duration: integer('--duration', values.duration, 1, 60),
    connections: integer('--connections', values.connections, 1, 100),
    database: values.database,
    save: !values['no-save'],
  };
}

const position = (n: number) => `P${String(n).padStart(6, '0')}`;

/** Position n reports to position floor((n - 1) / 10): P000000 the root, P000001 its first child. */
const organisation = (count: number) =>
  Array.from({ length: count }, (_, n) => ({
    id: position(n),
    ...(n === 0 ? {} : { parentId: position(Math.floor((n - 1) / 10)) }),
    attributes: { title: `Position ${n}` },
  }));

const users = (count: number, positions: number) =>
  Array.from({ length: count }, (_, n) => ({
    name: `Learner ${n}`,
    attributes: {
      employeeId: `E${String(n).padStart(7, '0')}`,
      email: `learner${n}@bench.example.com`,
      positionNumber: position(n % positions),
      department: `Department ${n % 50}`,
      country: ['NZ', 'AU', 'GB', 'US', 'DE'][Math.floor(n / 7) % 5],
      grade: String(n % 12),
    },
  }));

/** The three scopes: a third level (about 1 % of the people), a first level (about 11 %), the root (everyone). */
const SCOPES = { small: position(11), large: position(1), root: position(0) } as const;

/** A department (1 in 50, the GIN index's `@>`) and two countries of five. */
const CRITERIA = {
  and: [
    { field: 'attributes.department', op: 'eq', value: 'Department 7' },
    { field: 'attributes.country', op: 'in', value: ['NZ', 'GB'] },
  ],
};

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const { base, authorization } = await startBenchTenant(storage, { LEARNBASE_IMPORT_LIMIT_BYTES: String(1024 * 1024 * 1024) });
  const headersOf = (basic: string) => ({ authorization: basic, 'x-svc-tenant': BENCH_TENANT, 'content-type': 'application/json' });
  const send = async (method: string, path: string, body: unknown, headers = headersOf(authorization)) => {
    const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return { body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined, total: response.headers.get('x-total-count') };
  };

  await send('PUT', '/api/settings', { uniqueAttributes: ['employeeId', 'email'], organisationAttribute: 'positionNumber' });
  log(`organisation: ${options.positions} positions`);
  await send('PUT', '/api/import/organisation', organisation(options.positions));
  log(`users: importing ${options.users}`);
  const summary = (await send('POST', '/api/import/users', { users: users(options.users, options.positions) })).body;
  if (summary?.new !== options.users) throw new Error(`unexpected import summary: ${JSON.stringify(summary).slice(0, 500)}`);

  const principals: Record<string, string> = { unscoped: authorization };
  for (const [name, scope] of Object.entries(SCOPES)) {
    const key = await cliJson<{ key: string; secret: string }>([
      'apikey',
      'create',
      '--tenant',
      BENCH_TENANT,
      '--scope',
      scope,
      ...storage.flags,
    ]);
    principals[name] = `Basic ${Buffer.from(`${key.key}:${key.secret}`).toString('base64')}`;
  }

  const requests = {
    list: { method: 'GET' as const, path: '/api/actors?limit=100' },
    searchAll: { method: 'POST' as const, path: '/api/actors/search?limit=20', body: JSON.stringify({ criteria: {} }) },
    searchCriteria: { method: 'POST' as const, path: '/api/actors/search?limit=20', body: JSON.stringify({ criteria: CRITERIA }) },
  };
  const cases: Record<string, unknown> = {};
  for (const [requestName, request] of Object.entries(requests)) {
    for (const [principal, basic] of Object.entries(principals)) {
      const headers = headersOf(basic);
      // By hand first: what the load will ask, and how many people it counts.
      const checked = await send(request.method, request.path, request.method === 'POST' ? JSON.parse(request.body) : undefined, headers);
      const total = request.method === 'GET' ? Number(checked.total) : Number(checked.body?.total);
      const measured = { ...request, headers };
      await load(base, measured, 1, options.connections);
      const { result, latencies } = await load(base, measured, options.duration, options.connections);
      const name = `${requestName} ${principal}`;
      cases[name] = {
        total,
        requestsPerSecond: Math.round(result.requests.average),
        p50Ms: quantile(latencies, 0.5),
        p99Ms: quantile(latencies, 0.99),
        non2xx: result.non2xx,
      };
      log(`${name}: ${JSON.stringify(cases[name])}`);
    }
  }
  const report = {
    backend: options.backend,
    node: process.version,
    cpus: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    startedAt: new Date().toISOString(),
    data: { users: options.users, positions: options.positions, scopes: SCOPES },
    connections: options.connections,
    durationSeconds: options.duration,
    cases,
  };
  const text = JSON.stringify(report, null, 2);
  process.stdout.write(`${text}\n`);
  if (options.save) {
    const dir = join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `scoped-people-${options.backend}-${report.startedAt.replace(/[:.]/g, '-')}.json`), text);
  }
  return 0;
}

await runBench(main, USAGE);
