/**
 * Statement write benchmark: starts `learnbase serve` on fresh storage and POSTs statements to
 * `/xapi/statements` with autocannon, `--batch` statements a request (each a new id; 1,000 actors,
 * 100 activities, verb `completed` with a score, so every statement also updates a completion
 * record). Reports requests and statements per second and the latency of the 2xx answers. See
 * bench/README.md, "Statement writes".
 *
 *   node --import tsx bench/statement-writes.ts --backend pglite|postgres [--batch 1] [--duration 10] [--connections 10]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
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
} from './support.js';

const USAGE = `Usage: node --import tsx bench/statement-writes.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --batch N                   statements per request (default 1)
  --duration S                measured seconds (default 10, after 3 s of warm-up)
  --connections N             concurrent keep-alive connections (default 10)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})`;

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      batch: { type: 'string', default: '1' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  return {
    backend: values.backend as 'pglite' | 'postgres',
    batch: integer('--batch', values.batch, 1, 1_000),
    duration: integer('--duration', values.duration, 1, 120),
    connections: integer('--connections', values.connections, 1, 1_000),
    database: values.database,
  };
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const { base, authorization } = await startBenchTenant(storage);
  let sent = 0;
  const statement = () => {
    const n = sent++;
    return {
      id: randomUUID(),
      actor: { mbox: `mailto:learner${n % 1_000}@example.com` },
      verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
      object: { id: `https://example.com/activities/${n % 100}` },
      result: { score: { scaled: 0.5 } },
    };
  };
  const request: autocannon.Request = {
    method: 'POST',
    path: '/xapi/statements',
    headers: {
      authorization,
      'x-svc-tenant': BENCH_TENANT,
      'x-experience-api-version': '1.0.3',
      'content-type': 'application/json',
    },
    setupRequest: (req) => ({ ...req, body: JSON.stringify(Array.from({ length: options.batch }, statement)) }),
  };
  await load(base, request, 3, options.connections);
  log(`batches of ${options.batch}: ${options.connections} connections for ${options.duration} s`);
  const { result, latencies } = await load(base, request, options.duration, options.connections);
  const report = {
    backend: options.backend,
    batch: options.batch,
    connections: options.connections,
    requestsPerSecond: Math.round(result.requests.average),
    statementsPerSecond: Math.round(result.requests.average * options.batch),
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    non2xx: result.non2xx,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return report.non2xx > 0 ? 1 : 0;
}

await runBench(main, USAGE);
