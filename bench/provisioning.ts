import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
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
  measureCase,
  publishReport,
} from './support.js';

const TENANT = BENCH_TENANT;
const ACTIVITY = 'https://example.com/courses/bench';

const USAGE = `Usage: node --import tsx bench/provisioning.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --duration S                measured seconds per case (default 10, at most 120)
  --connections N             concurrent keep-alive connections (default 10)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})
  --no-save                   do not write bench/results/provisioning-<backend>-<timestamp>.json`;

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
      'no-save': { type: 'boolean', default: false },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  return {
    backend: values.backend as 'pglite' | 'postgres',
    duration: integer('--duration', values.duration, 1, 120),
    connections: integer('--connections', values.connections, 1, 1_000),
    database: values.database,
    save: !values['no-save'],
  };
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const { base, authorization } = await startBenchTenant(storage);
  const headers = {
    authorization,
    'x-svc-tenant': TENANT,
    'content-type': 'application/json',
  };
  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, { method, headers, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };

  // Upserts: a new agent each request (an account name from a counter), then the same ones again.
  let created = 0;
  const agent = (n: number) =>
    JSON.stringify({ objectType: 'Agent', name: `Learner ${n}`, account: { homePage: 'https://hr.example.com', name: `E${n}` } });
  const upsertRequest = (next: () => number): autocannon.Request => ({
    method: 'PUT',
    path: '/api/actors/agents',
    headers: { ...headers, 'svc-account-source': 'bench' },
    setupRequest: (request) => ({ ...request, body: agent(next()) }),
  });
  const upsertNew = await measureCase(
    'upsert (new agents)',
    base,
    upsertRequest(() => created++),
    options.duration,
    options.connections,
  );
  let again = 0;
  const upsertExisting = await measureCase(
    'upsert (existing agents)',
    base,
    upsertRequest(() => again++ % Math.max(created, 1)),
    options.duration,
    options.connections,
  );

  // Launch: one registered activity and one learner credential, launched again and again.
  await send('PUT', '/api/activities', [
    { id: ACTIVITY, definition: { name: { 'en-US': 'Bench course' } }, launchUrl: 'https://content.example.com/bench/index.html' },
  ]);
  await send('POST', '/api/auth/basic', {
    username: 'bench-learner',
    password: 'bench-password-1',
    data: { actor: { account: { homePage: 'https://hr.example.com', name: 'E0' } } },
  });
  const auth = `Basic ${Buffer.from('bench-learner:bench-password-1').toString('base64')}`;
  const launchPath = `/api/activities/launch?activityId=${encodeURIComponent(ACTIVITY)}&auth=${encodeURIComponent(auth)}`;
  const check = await fetch(`${base}${launchPath}`, { headers: { 'x-svc-tenant': TENANT }, redirect: 'manual' });
  if (check.status !== 302) throw new Error(`the launch answered ${check.status}: ${(await check.text()).slice(0, 300)}`);
  const launch = await measureCase(
    'launch',
    base,
    { method: 'GET', path: launchPath, headers: { 'x-svc-tenant': TENANT } },
    options.duration,
    options.connections,
    (status) => status === 302,
  );

  const report = {
    backend: options.backend,
    node: process.version,
    cpus: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    startedAt: new Date().toISOString(),
    connections: options.connections,
    durationSeconds: options.duration,
    upsertNew,
    upsertExisting,
    launch,
  };
  publishReport('provisioning', report, options.save);
  return [upsertNew, upsertExisting, launch].some((figures) => figures.answered === 0 || figures.errors > 0) ? 1 : 0;
}

await runBench(main, USAGE);
