/**
 * Memory benchmark: starts `learnbase serve` with a capped heap (--max-old-space-size, 512 MB by
 * default, as docs/operations.md recommends), fires four concurrent maximum-size user imports and
 * four concurrent 63 MB attachments (each from its own tenant), and reports the server's peak
 * resident memory and heap, the worst latency of a request polled meanwhile, and whether every
 * request got a proper answer (2xx, or 429/503 with Retry-After). Refused requests are then sent
 * again after their Retry-After until stored, so the whole load is carried out. See bench/README.md.
 *
 *   node --import tsx bench/memory.ts --backend pglite|postgres [--cases imports,attachments] [--heap 512]
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  cliJson,
  createStorage,
  DEFAULT_POSTGRES,
  ensureBuilt,
  freePort,
  HOST,
  integer,
  log,
  runBench,
  startServer,
  UsageError,
} from './support.js';

const USAGE = `Usage: node --import tsx bench/memory.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --cases LIST                imports,attachments (default both)
  --heap MB                   the server's --max-old-space-size (default 512; 0: Node's default)
  --requests N                concurrent requests per case, each from its own tenant (default 4)
  --import-mb N               size of each users import, in MB of JSON (default 99: the 100 MiB limit)
  --attachment-mb N           size of each attachment (default 63: under the 64 MiB limit)
  --env K=V,...               more environment for the server (LEARNBASE_IMPORTS_IN_FLIGHT=4, ...)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})`;

interface Options {
  backend: 'pglite' | 'postgres';
  cases: string[];
  heap: number;
  requests: number;
  importMb: number;
  attachmentMb: number;
  env: Record<string, string>;
  database: string;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      cases: { type: 'string', default: 'imports,attachments' },
      heap: { type: 'string', default: '512' },
      requests: { type: 'string', default: '4' },
      'import-mb': { type: 'string', default: '99' },
      'attachment-mb': { type: 'string', default: '63' },
      env: { type: 'string', default: '' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  const cases = values.cases.split(',').map((item) => item.trim());
  if (cases.some((item) => item !== 'imports' && item !== 'attachments')) throw new UsageError('--cases takes imports and attachments.');
  return {
    backend: values.backend,
    cases,
    heap: integer('--heap', values.heap, 0, 65_536),
    requests: integer('--requests', values.requests, 1, 64),
    importMb: integer('--import-mb', values['import-mb'], 1, 1_024),
    attachmentMb: integer('--attachment-mb', values['attachment-mb'], 1, 1_024),
    env: Object.fromEntries(
      values.env
        .split(',')
        .filter(Boolean)
        .map((pair) => pair.split('=') as [string, string]),
    ),
    database: values.database,
  };
}

/** Users with ten attributes each, about `mb` MB of JSON in all. */
function usersBody(mb: number, seed: string): string {
  const users: string[] = [];
  let size = 12;
  for (let n = 0; size < mb * 1_000_000; n++) {
    const user = JSON.stringify({
      name: `Learner ${seed} ${n}`,
      attributes: {
        employeeId: `E${seed}${String(n).padStart(7, '0')}`,
        email: `learner${n}.${seed}@bench.example.com`,
        positionNumber: `P${n % 10_000}`,
        jobCode: `J${n % 500}`,
        department: `Department ${n % 50}`,
        costCentre: `CC${n % 300}`,
        country: ['NZ', 'AU', 'GB', 'US', 'DE'][n % 5],
        language: ['en', 'de', 'fr'][n % 3],
        startDate: `20${10 + (n % 15)}-0${1 + (n % 9)}-1${n % 9}`,
        round: '1',
      },
    });
    users.push(user);
    size += user.length + 1;
  }
  return `{"users":[${users.join(',')}]}`;
}

function attachmentBody(mb: number): { body: Buffer; boundary: string } {
  const data = randomBytes(mb * 1024 * 1024);
  const sha2 = createHash('sha256').update(data).digest('hex');
  const statement = {
    actor: { mbox: `mailto:learner-${sha2.slice(0, 8)}@bench.example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
    object: { id: 'http://example.com/activities/video' },
    attachments: [
      { usageType: 'http://example.com/usage/video', display: { en: 'video' }, contentType: 'video/mp4', length: data.length, sha2 },
    ],
  };
  const boundary = 'bench-memory-boundary';
  const head = `--${boundary}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(statement)}\r\n--${boundary}\r\nContent-Type: video/mp4\r\nContent-Transfer-Encoding: binary\r\nX-Experience-API-Hash: ${sha2}\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), data, Buffer.from(`\r\n--${boundary}--\r\n`)]), boundary };
}

interface Sample {
  rssMb: number;
  peakRssMb: number;
  heapUsedMb?: number;
}

/** The server's resident memory now and its peak so far (the kernel's VmHWM), in MB. */
function readMemory(pid: number): Sample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakRssMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return undefined;
  }
}

/** The server's V8 heap in use, from /metrics (loopback is served without a token). */
async function heapUsedMb(base: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(2_000) })).text();
    const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([0-9.e+]+)/m.exec(text);
    return match ? Math.round(Number(match[1]) / 2 ** 20) : undefined;
  } catch {
    return undefined;
  }
}

interface Answer {
  status: number | string;
  code?: string;
  retryAfter?: string;
  seconds: number;
}

const proper = (answer: Answer) =>
  (typeof answer.status === 'number' && answer.status >= 200 && answer.status < 300) ||
  ((answer.status === 429 || answer.status === 503) && answer.retryAfter !== undefined && answer.code !== undefined);

async function send(url: string, init: RequestInit): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(600_000) });
    const text = await response.text();
    let code: string | undefined;
    try {
      code = (JSON.parse(text) as { code?: string }).code;
    } catch {
      // not JSON (a 2xx summary is; an id list is)
    }
    return {
      status: response.status,
      code,
      retryAfter: response.headers.get('retry-after') ?? undefined,
      seconds: (performance.now() - started) / 1000,
    };
  } catch (error) {
    return { status: `failed: ${(error as Error).cause ?? (error as Error).message}`, seconds: (performance.now() - started) / 1000 };
  }
}

/**
 * Runs one case: `requests` sent at once, then each refused one again after its Retry-After until
 * it is stored. Meanwhile samples the server's memory and polls `pollPath` for the worst latency.
 */
async function runCase(
  name: string,
  pid: number,
  base: string,
  requests: Array<() => Promise<Answer>>,
  poll: () => Promise<Answer>,
): Promise<Record<string, unknown>> {
  try {
    // Linux: resets the process's peak resident memory (VmHWM), so the peak is this case's.
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not Linux, or not allowed: the peak is the process's since it started
  }
  const peakBefore = readMemory(pid);
  let peakHeap = 0;
  let stopped = false;
  const heapTimer = setInterval(() => {
    void heapUsedMb(base).then((mb) => (peakHeap = Math.max(peakHeap, mb ?? 0)));
  }, 500);
  let worstPoll = 0;
  let pollFailures = 0;
  const poller = (async () => {
    while (!stopped) {
      const answer = await poll();
      worstPoll = Math.max(worstPoll, answer.seconds);
      if (answer.status !== 200) pollFailures += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const started = performance.now();
  const first = await Promise.all(requests.map((request) => request()));
  const firstSeconds = (performance.now() - started) / 1000;
  let retries = 0;
  const final = await Promise.all(
    first.map(async (answer, index) => {
      let current = answer;
      while ((current.status === 429 || current.status === 503) && current.retryAfter !== undefined && retries < 200) {
        retries += 1;
        await new Promise((resolve) => setTimeout(resolve, Number(current.retryAfter) * 1000));
        current = await requests[index]();
      }
      return current;
    }),
  );
  const allSeconds = (performance.now() - started) / 1000;
  stopped = true;
  await poller;
  clearInterval(heapTimer);
  const peak = readMemory(pid);
  // V8 and the allocator give memory back once the server idles a little.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const after = readMemory(pid);
  const report = {
    firstAnswers: first.map((answer) => ({
      status: answer.status,
      code: answer.code,
      retryAfter: answer.retryAfter,
      seconds: round(answer.seconds),
    })),
    everyFirstAnswerProper: first.every(proper),
    finalStatuses: final.map((answer) => answer.status),
    allStored: final.every((answer) => typeof answer.status === 'number' && answer.status < 300),
    retries,
    secondsToFirstAnswers: round(firstSeconds),
    secondsToAllStored: round(allSeconds),
    serverPeakRssMb: peak?.peakRssMb,
    serverRssBeforeMb: peakBefore?.rssMb,
    serverRssAfterMb: after?.rssMb,
    serverPeakHeapUsedMb: peakHeap || undefined,
    serverAlive: after !== undefined,
    worstPollSeconds: round(worstPoll),
    pollFailures,
  };
  log(`${name}: ${JSON.stringify(report)}`);
  return report;
}

const round = (value: number) => Math.round(value * 100) / 100;

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const tenants: Array<{ name: string; authorization: string }> = [];
  for (let n = 0; n < options.requests; n++) {
    const name = `memory${n}`;
    await cliJson(['tenant', 'create', name, ...storage.flags]);
    const key = await cliJson<{ key: string; secret: string }>(['apikey', 'create', '--tenant', name, ...storage.flags]);
    tenants.push({ name, authorization: `Basic ${Buffer.from(`${key.key}:${key.secret}`).toString('base64')}` });
  }
  if (options.heap > 0) process.env.BENCH_SERVER_NODE_FLAGS = `--max-old-space-size=${options.heap}`;
  const port = await freePort();
  const server = await startServer(storage, port, undefined, options.env);
  const base = `http://${HOST}:${port}`;
  const pid = server.pid as number;
  const headers = (tenant: (typeof tenants)[number]) => ({
    authorization: tenant.authorization,
    'x-svc-tenant': tenant.name,
    'x-experience-api-version': '2.0.0',
  });

  // A document the poll reads: a request that needs the database, not only the event loop.
  const stateUrl = `${base}/xapi/activities/state?activityId=${encodeURIComponent('http://example.com/a')}&agent=${encodeURIComponent('{"mbox":"mailto:poll@example.com"}')}&stateId=poll`;
  const put = await fetch(stateUrl, {
    method: 'PUT',
    headers: { ...headers(tenants[0]), 'content-type': 'application/json' },
    body: '{"page":1}',
  });
  if (!put.ok) throw new Error(`PUT state answered ${put.status}`);
  const poll = () => send(stateUrl, { headers: headers(tenants[0]) });

  const report: Record<string, unknown> = {
    backend: options.backend,
    node: process.version,
    heapCapMb: options.heap || 'default',
    env: options.env,
    startedAt: new Date().toISOString(),
  };
  if (options.cases.includes('imports')) {
    log(`imports: building ${options.requests} bodies of ${options.importMb} MB`);
    const bodies = tenants.map((tenant) => usersBody(options.importMb, tenant.name));
    report.imports = {
      bodyMb: round(Buffer.byteLength(bodies[0]) / 1e6),
      ...(await runCase(
        'imports',
        pid,
        base,
        tenants.map(
          (tenant, n) => () =>
            send(`${base}/api/import/users`, {
              method: 'POST',
              headers: { ...headers(tenant), 'content-type': 'application/json' },
              body: bodies[n],
            }),
        ),
        poll,
      )),
    };
    bodies.length = 0;
  }
  if (options.cases.includes('attachments') && readMemory(pid) !== undefined) {
    log(`attachments: building ${options.requests} bodies of ${options.attachmentMb} MiB`);
    const bodies = tenants.map(() => attachmentBody(options.attachmentMb));
    report.attachments = {
      attachmentMiB: options.attachmentMb,
      ...(await runCase(
        'attachments',
        pid,
        base,
        tenants.map(
          (tenant, n) => () =>
            send(`${base}/xapi/statements`, {
              method: 'POST',
              headers: { ...headers(tenant), 'content-type': `multipart/mixed; boundary=${bodies[n].boundary}` },
              body: bodies[n].body as Uint8Array<ArrayBuffer>,
            }),
        ),
        poll,
      )),
    };
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return 0;
}

await runBench(main, USAGE);
