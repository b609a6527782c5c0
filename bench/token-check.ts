/**
 * What a Bearer token costs against an API key: `GET /xapi/activities/state` of one stored
 * document, authenticated once with the API key (Basic) and once with an OAuth access token
 * (Bearer), alternately, on one server. Both credentials are verified once and then served from
 * the per-process cache, so the two figures should be within noise of each other; a gap means a
 * database round trip per request. Starts `learnbase serve` (dist/) on fresh storage, like
 * bench/documents.ts, whose conventions it follows (it is a script, so nothing is imported from it).
 *
 *   npm run build && node --import tsx bench/token-check.ts --backend pglite|postgres [--duration 10] [--connections 10] [--rounds 2]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { createAdmin } from '../src/modules/auth/admins/admin.service.js';
import { issueApiKey } from '../src/modules/auth/api-keys/api-key.service.js';
import { createClient } from '../src/modules/auth/oauth/clients/client.service.js';
import { issueCode } from '../src/modules/auth/oauth/code.service.js';
import { TenancyService } from '../src/modules/tenancy/tenancy.service.js';
import { migrate } from '../src/platform/database/migrate.js';
import { PgliteDatabase } from '../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../src/platform/database/postgres-client.js';
import type { Database } from '../src/platform/database/sql-client.js';
import { newSecret } from '../src/platform/issued-secrets.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HOST = '127.0.0.1';
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

const { values } = parseArgs({
  options: {
    backend: { type: 'string' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
if (values.backend !== 'pglite' && values.backend !== 'postgres') {
  process.stderr.write(
    'Usage: node --import tsx bench/token-check.ts --backend pglite|postgres [--duration S] [--connections N] [--rounds N]\n',
  );
  process.exit(2);
}
const backend = values.backend;
const duration = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const log = (message: string) => process.stderr.write(`[token-check] ${message}\n`);

const cleanups: Array<() => Promise<void>> = [];
async function cleanUp(): Promise<void> {
  for (const run of cleanups.reverse()) await run().catch((error: Error) => log(`clean-up failed: ${error.message}`));
  cleanups.length = 0;
}
process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Fresh storage, and the flags that point `learnbase serve` at it. */
async function createStorage(): Promise<{ flags: string[]; open(): Promise<Database> }> {
  if (backend === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'learnbase-token-check-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return { flags: ['--data', dir], open: () => PgliteDatabase.open(dir) };
  }
  const name = `learnbase_bench_${randomBytes(4).toString('hex')}`;
  await adminQuery(values.database!, `CREATE DATABASE ${name}`);
  cleanups.push(() => adminQuery(values.database!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const url = new URL(values.database!);
  url.pathname = `/${name}`;
  return { flags: ['--database', url.toString()], open: async () => new PostgresDatabase(url.toString(), { max: 2 }) };
}

/** Tenant, API key, admin, client and one code, through the services, before the server holds the storage. */
async function seed(db: Database) {
  await migrate(db);
  const tenant = await new TenancyService(db, 0).create('bench');
  const apiKey = await issueApiKey(db, tenant);
  const admin = await createAdmin(db, tenant, 'bench-admin@example.com', newSecret(16));
  const client = await createClient(db, tenant, [REDIRECT_URI], 'token-check');
  const verifier = newSecret();
  const code = await issueCode(db, {
    tenantId: tenant.id,
    clientId: client.clientId,
    adminId: admin.id,
    redirectUri: REDIRECT_URI,
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
  });
  return { apiKey, client, code, verifier };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startServer(flags: string[], port: number): Promise<ChildProcess> {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'cli.js'))) throw new Error('dist/ is missing: run `npm run build` first.');
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'learnbase'), 'serve', '--port', String(port), '--host', HOST, ...flags], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  cleanups.push(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  for (let attempt = 0; attempt < 200; attempt++) {
    const ok = await fetch(`http://${HOST}:${port}/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the server did not answer /health');
}

function run(url: string, headers: Record<string, string>, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, pipelining: 1, headers }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

async function main(): Promise<void> {
  const storage = await createStorage();
  const db = await storage.open();
  const seeded = await seed(db).finally(() => db.close());
  const port = await freePort();
  await startServer(storage.flags, port);
  const base = `http://${HOST}:${port}`;

  const exchange = await fetch(`${base}/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      client_id: seeded.client.clientId,
      client_secret: seeded.client.clientSecret,
      redirect_uri: REDIRECT_URI,
      code: seeded.code,
      code_verifier: seeded.verifier,
    }),
  });
  if (!exchange.ok) throw new Error(`the code exchange answered ${exchange.status}: ${await exchange.text()}`);
  const { access_token: accessToken } = (await exchange.json()) as { access_token: string };

  const common = { 'x-svc-tenant': 'bench', 'x-experience-api-version': '2.0.0' };
  const credentials = {
    apiKey: { ...common, authorization: `Basic ${Buffer.from(`${seeded.apiKey.key}:${seeded.apiKey.secret}`).toString('base64')}` },
    bearer: { ...common, authorization: `Bearer ${accessToken}` },
  };
  const url = `${base}/xapi/activities/state?activityId=${encodeURIComponent('https://example.com/bench')}&agent=${encodeURIComponent(
    JSON.stringify({ mbox: 'mailto:bench-learner@example.com' }),
  )}&stateId=bookmark`;
  const put = await fetch(url, {
    method: 'PUT',
    headers: { ...credentials.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ page: 7, location: 'x'.repeat(250) }),
  });
  if (put.status !== 204) throw new Error(`storing the document answered ${put.status}`);
  for (const [name, headers] of Object.entries(credentials)) {
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`${name}: GET answered ${res.status}: ${await res.text()}`);
  }

  const figures: Record<string, number[]> = { apiKey: [], bearer: [] };
  const errors: Record<string, number> = { apiKey: 0, bearer: 0 };
  for (const [_name, headers] of Object.entries(credentials)) await run(url, headers, 2); // warm-up
  for (let round = 0; round < rounds; round++) {
    // Alternate the order, so a machine getting busier does not favour one side.
    const order = round % 2 === 0 ? (['apiKey', 'bearer'] as const) : (['bearer', 'apiKey'] as const);
    for (const name of order) {
      const result = await run(url, credentials[name], duration);
      figures[name]!.push(Math.round(result.requests.average));
      errors[name]! += result.non2xx + result.errors;
      log(`round ${round + 1}, ${name}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms`);
    }
  }
  const mean = (list: number[]) => Math.round(list.reduce((sum, value) => sum + value, 0) / list.length);
  const report = {
    backend,
    request: 'GET /xapi/activities/state (one stored document)',
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model,
    connections,
    durationSeconds: duration,
    rounds,
    requestsPerSecond: { apiKey: mean(figures.apiKey!), bearer: mean(figures.bearer!) },
    perRound: figures,
    non2xxOrErrors: errors,
    bearerVersusApiKey: Math.round((mean(figures.bearer!) / mean(figures.apiKey!)) * 1000) / 1000,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

let code = 0;
try {
  await main();
} catch (error) {
  log(`failed: ${(error as Error).message}`);
  code = 1;
} finally {
  await cleanUp();
}
process.exit(code);
