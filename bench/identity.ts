import { cpus, totalmem } from 'node:os';
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
} from './support.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const USAGE = `Usage: node --import tsx bench/identity.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --duration S                measured seconds per case (default 10, at most 120)
  --connections N             concurrent keep-alive connections (default 10)
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

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const { base } = await startBenchTenant(storage);
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
  };
  publishReport('identity', report, options.save);
  return [create, patch, lookup].some((figures) => figures.answered === 0 || figures.errors > 0) ? 1 : 0;
}

await runBench(main, USAGE);
