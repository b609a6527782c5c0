import { cpus, totalmem } from 'node:os';
import { readAuthnRequest, startSamlIdp } from '../test/identity/saml-fixtures.js';
import { parseArgs } from 'node:util';
import {
  BENCH_TENANT,
  cliJson,
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
  quantile,
} from './support.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const USAGE = `Usage: node --import tsx bench/identity.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --duration S                measured seconds per case (default 10, at most 120)
  --connections N             concurrent keep-alive connections (default 10)
  --sign-ins N                just-in-time sign-ins through SAML, 10 at a time (default 500)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})
  --no-save                   do not write bench/results/identity-<backend>-<timestamp>.json`;

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      'sign-ins': { type: 'string', default: '500' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
      'no-save': { type: 'boolean', default: false },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  return {
    backend: values.backend as 'pglite' | 'postgres',
    duration: integer('--duration', values.duration, 1, 120),
    connections: integer('--connections', values.connections, 1, 1_000),
    signIns: integer('--sign-ins', values['sign-ins'], 10, 100_000),
    database: values.database,
    save: !values['no-save'],
  };
}

/** The User Entra ID sends on a first provisioning, for person `n`. */
const user = (n: number) =>
  JSON.stringify({
    schemas: [USER, ENTERPRISE],
    externalId: `ext-${n}`,
    userName: `person${n}@example.com`,
    active: true,
    displayName: `Person ${n}`,
    name: { givenName: 'Person', familyName: String(n) },
    emails: [{ primary: true, type: 'work', value: `person${n}@example.com` }],
    title: 'Analyst',
    [ENTERPRISE]: { employeeNumber: `E${n}`, department: 'Engineering' },
  });

/**
 * Just-in-time sign-ins through SAML, `workers` at a time, each of a new person: the server's time
 * is the Response's post and the callback (the person written, the launch started), timed here;
 * the launch link before and the provider's signing are not counted.
 */
async function measureSignIns(base: string, authorization: string, storageFlags: string[], count: number, workers: number, round: string) {
  const idp = await startSamlIdp(new Map());
  try {
    await cliJson(['sso', 'set', '--tenant', BENCH_TENANT, '--name', 'corp', '--metadata-url', idp.metadataUrl, ...storageFlags]);
    const activityId = 'http://example.com/bench/sso';
    const registered = await fetch(`${base}/api/activities`, {
      method: 'PUT',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify([{ id: activityId, definition: { name: { en: 'Course' } }, launchUrl: 'http://127.0.0.1:9/course/' }]),
    });
    if (!registered.ok) throw new Error(`registering the activity: ${registered.status} ${await registered.text()}`);
    const spEntityId = `urn:learnbase:${BENCH_TENANT}:corp`;
    const times: number[] = [];
    let next = 0;
    let failed = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < count) {
        const n = next++;
        const link = await fetch(`${base}/api/activities/launch?activityId=${encodeURIComponent(activityId)}`, {
          headers: { 'x-svc-tenant': BENCH_TENANT },
          redirect: 'manual',
        });
        const request = readAuthnRequest(link.headers.get('location') ?? '');
        const cookie = (link.headers.get('set-cookie') ?? '').split(';')[0]!;
        const email = `jit-${round}-${n}@example.com`;
        const samlResponse = idp.response({
          inResponseTo: request.id,
          acsUrl: request.acsUrl,
          audience: spEntityId,
          nameId: email,
          attributes: { email, givenName: 'Person', sn: String(n) },
        });
        const at = performance.now();
        const posted = await fetch(`${base}/auth/sso/saml`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: request.relayState }),
          redirect: 'manual',
        });
        const callback = await fetch(posted.headers.get('location') ?? `${base}/`, { headers: { cookie }, redirect: 'manual' });
        times.push(performance.now() - at);
        if (posted.status !== 303 || callback.status !== 302) failed++;
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    const seconds = (performance.now() - started) / 1000;
    const sorted = Float64Array.from(times).sort();
    const figures = {
      signIns: count,
      workers,
      perSecond: Math.round(count / seconds),
      p50Ms: Math.round(quantile(sorted, 0.5) * 10) / 10,
      p99Ms: Math.round(quantile(sorted, 0.99) * 10) / 10,
      failed,
    };
    log(
      `JIT sign-in (SAML), ${workers} at a time: ${figures.perSecond}/s, server time p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms, ${failed} failed`,
    );
    return figures;
  } finally {
    await idp.close();
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const { base, authorization } = await startBenchTenant(storage);
  const { token } = await cliJson<{ token: string }>(['scim-token', 'create', '--tenant', BENCH_TENANT, ...storage.flags]);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' };

  let created = 0;
  const ids: string[] = [];
  const create = await measureCase(
    'SCIM create',
    base,
    {
      method: 'POST',
      path: '/scim/v2/Users',
      headers,
      setupRequest: (request) => ({ ...request, body: user(created++) }),
      onResponse: (status, body) => {
        if (status === 201) ids.push((JSON.parse(body) as { id: string }).id);
      },
    },
    options.duration,
    options.connections,
    (status) => status === 201,
  );
  if (ids.length === 0) throw new Error('no User was created');

  let patched = 0;
  const patch = await measureCase(
    'SCIM PATCH',
    base,
    {
      method: 'PATCH',
      path: '/scim/v2/Users/x',
      headers,
      setupRequest: (request) => {
        const n = patched++;
        return {
          ...request,
          path: `/scim/v2/Users/${ids[n % ids.length]}`,
          body: JSON.stringify({
            schemas: [PATCH_OP],
            Operations: [
              { op: 'Replace', path: 'title', value: `Title ${n}` },
              { op: 'Replace', path: 'active', value: n % 2 === 0 ? 'True' : 'False' },
            ],
          }),
        };
      },
    },
    options.duration,
    options.connections,
    (status) => status === 200,
  );

  let looked = 0;
  const lookup = await measureCase(
    'SCIM lookup by userName',
    base,
    {
      method: 'GET',
      path: '/scim/v2/Users',
      headers,
      setupRequest: (request) => ({
        ...request,
        path: `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "person${looked++ % created}@example.com"`)}`,
      }),
    },
    options.duration,
    options.connections,
    (status) => status === 200,
  );

  // One at a time (a sign-in's own server time), then ten at a time (under load).
  const signIn = await measureSignIns(base, authorization, storage.flags, options.signIns, 1, 'solo');
  const signInsAtOnce = await measureSignIns(base, authorization, storage.flags, options.signIns, 10, 'ten');

  const report = {
    backend: options.backend,
    node: process.version,
    cpus: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    startedAt: new Date().toISOString(),
    connections: options.connections,
    durationSeconds: options.duration,
    people: ids.length,
    create,
    patch,
    lookup,
    signIn,
    signInsAtOnce,
  };
  publishReport('identity', report, options.save);
  return [create, patch, lookup].some((figures) => figures.answered === 0 || figures.errors > 0) || signIn.failed + signInsAtOnce.failed > 0
    ? 1
    : 0;
}

await runBench(main, USAGE);
