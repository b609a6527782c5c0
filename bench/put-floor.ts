/**
 * The floor under PUT state on this machine: a bare `node:http` server (no Fastify, no
 * authentication, no tenant, no validation, no metrics) that stores each PUT body with the same
 * batched insert learnbase makes (two batches in flight, one multi-row INSERT … ON CONFLICT DO
 * NOTHING RETURNING a batch, prepared) into a table keyed like `xapi_documents`, loaded like the
 * `putState` case (10 connections, a new id a request). It answers what the architecture (one Node
 * process, node-postgres, PostgreSQL and the load generator sharing the cores) can reach at all,
 * and, with `--work-us`, how fast that falls as each request costs the server more: the figure
 * learnbase's PUT is compared with in docs/performance.md, "Where the ceiling is out of reach".
 *
 *   node --import tsx bench/put-floor.ts [--duration 10] [--work-us 0,20,40,60] [--database URL]
 *
 * `--work-us` spins the server's thread that many microseconds a request before the insert (a
 * stand-in for the work of a real request path); each value is one run on a fresh table.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import pg from 'pg';
import {
  adminQuery,
  createStorage,
  DEFAULT_POSTGRES,
  freePort,
  HOST,
  integer,
  load,
  log,
  onCleanup,
  quantile,
  runBench,
  UsageError,
} from './support.js';

const USAGE = `Usage: node --import tsx bench/put-floor.ts [options]

  --duration S       measured seconds per run (default 10)
  --connections N    concurrent keep-alive connections (default 10)
  --work-us LIST     comma-separated microseconds of work a request (default 0,20,40,60)
  --database URL     PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})`;

const TABLE = `CREATE TABLE floor_documents (
  tenant_id uuid NOT NULL, kind text NOT NULL, activity_id text NOT NULL, agent_key text NOT NULL,
  registration text NOT NULL, document_id text NOT NULL, content bytea NOT NULL, content_type text NOT NULL,
  etag text NOT NULL, updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, kind, activity_id, agent_key, registration, document_id))`;

const TENANT = '00000000-0000-4000-8000-000000000001';
const WIDTH = 9;

/** The server side, in a child process of its own (`--serve PORT URL WORK_US`), as learnbase runs. */
function serve(port: number, url: string, workUs: number): void {
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  const texts: string[] = [];
  const insertText = (rows: number) =>
    (texts[rows] ??= `INSERT INTO floor_documents VALUES ${Array.from(
      { length: rows },
      (_, row) => `(${Array.from({ length: WIDTH }, (_, i) => `$${row * WIDTH + i + 1}`).join(', ')}, clock_timestamp())`,
    ).join(', ')} ON CONFLICT DO NOTHING RETURNING tenant_id, kind, activity_id, agent_key, registration, document_id`);
  type Waiting = { id: string; body: Buffer; etag: string; response: ServerResponse };
  const queue: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;
  const schedule = () => {
    if (scheduled || inFlight >= 2 || queue.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };
  const flush = () => {
    scheduled = false;
    while (inFlight < 2 && queue.length > 0) {
      const batch = queue.splice(0, 100);
      inFlight += 1;
      const values = batch.flatMap((w) => [
        TENANT,
        'state',
        'http://example.com/a',
        'mbox|mailto:a@example.com',
        '',
        w.id,
        w.body,
        'application/json',
        w.etag,
      ]);
      pool
        .query({ name: `floor_${batch.length}`, text: insertText(batch.length), values })
        .then(
          () => {
            for (const w of batch) w.response.writeHead(204).end();
          },
          (error: Error) => {
            for (const w of batch) w.response.writeHead(500).end(error.message);
          },
        )
        .finally(() => {
          inFlight -= 1;
          schedule();
        });
    }
  };
  createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const until = process.hrtime.bigint() + BigInt(workUs * 1000);
      while (process.hrtime.bigint() < until);
      const body = Buffer.concat(chunks);
      JSON.parse(body.toString('utf8'));
      const id = new URL(request.url ?? '/', 'http://floor').searchParams.get('stateId') ?? '';
      queue.push({ id, body, etag: `"${createHash('sha1').update(body).digest('hex')}"`, response });
      schedule();
    });
  }).listen(port, HOST, () => process.send?.('listening'));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      'work-us': { type: 'string', default: '0,20,40,60' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
    },
  });
  const duration = integer('--duration', values.duration as string, 1, 120);
  const connections = integer('--connections', values.connections as string, 1, 1000);
  const works = (values['work-us'] as string).split(',').map((text) => integer('--work-us', text, 0, 10_000));
  if (works.length === 0) throw new UsageError('--work-us needs at least one value.');
  const storage = await createStorage({ backend: 'postgres', database: values.database as string });
  const url = storage.statsUrl as string;

  const runs = [];
  for (const workUs of works) {
    await adminQuery(url, 'DROP TABLE IF EXISTS floor_documents');
    await adminQuery(url, TABLE);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve', String(port), url, String(workUs)],
      {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    onCleanup(`stop the floor server on ${port}`, async () => {
      child.kill();
    });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the floor server exited with ${code}`)));
    });
    let n = 0;
    const agent = encodeURIComponent(JSON.stringify({ objectType: 'Agent', mbox: 'mailto:a@example.com' }));
    const request = {
      method: 'PUT' as const,
      headers: { 'content-type': 'application/json' },
      body: '{"progress":0.5,"bookmark":"page-12"}',
      setupRequest: (req: autocannon.Request) => ({
        ...req,
        path: `/xapi/activities/state?activityId=a&agent=${agent}&stateId=s${n++}`,
      }),
    };
    log(`work ${workUs} µs a request: warming up, then ${duration} s at ${connections} connections`);
    await load(`http://${HOST}:${port}`, request, 2, connections);
    const { result, latencies } = await load(`http://${HOST}:${port}`, request, duration, connections);
    child.kill();
    runs.push({
      workUsPerRequest: workUs,
      requestsPerSecond: Math.round(result.requests.average),
      non2xx: result.non2xx,
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
    });
  }
  process.stdout.write(
    `${JSON.stringify({ what: 'bare node:http + node-postgres PUT floor (bench/put-floor.ts)', connections, durationSeconds: duration, runs }, null, 2)}\n`,
  );
  return 0;
}

if (process.argv[2] === '--serve') {
  // The parent stops this process when its run ends; support.ts's clean-up is the parent's.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.once(signal, () => process.exit(0));
  }
  serve(Number(process.argv[3]), process.argv[4], Number(process.argv[5]));
} else await runBench(main, USAGE);
