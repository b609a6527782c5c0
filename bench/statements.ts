/**
 * Statement query benchmark (issue 15, "scale of the statement queries"): starts `learnbase serve`
 * on fresh storage, stores `--statements` statements (default 1,000,000 on PostgreSQL, 100,000 on
 * PGlite) over 10,000 agents, 1,000 activities in 100 courses, 10 verbs and 100,000 registrations in
 * batches of 100, then, with no ANALYZE step, measures each filter of `GET /xapi/statements` with
 * limit=10, the unfiltered page of 100, and batches of 100 written while queries run. See
 * bench/README.md, "Statement queries".
 *
 *   node --import tsx bench/statements.ts --backend pglite|postgres [--statements N] [--duration 10]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  BENCH_TENANT,
  createStorage,
  DEFAULT_POSTGRES,
  ensureBuilt,
  integer,
  load,
  log,
  measureQueryCases,
  quantile,
  runBench,
  sequence,
  startBenchTenant,
  UsageError,
} from './support.js';

const USAGE = `Usage: node --import tsx bench/statements.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --statements N              statements stored before the queries (default 1000000 on postgres, 100000 on pglite)
  --duration S                measured seconds per query case (default 10, after 2 s of warm-up)
  --connections N             concurrent keep-alive connections of the query cases (default 10)
  --load-connections N        concurrent writers while loading (default 4)
  --cases LIST                comma-separated query cases (default: all)
  --query-rate N              agent queries per second while batches are written (default 200)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})`;

const AGENTS = 10_000;
const ACTIVITIES = 1_000;
const COURSES = 100;
const REGISTRATIONS = 100_000;
const VERBS = [
  'completed',
  'attempted',
  'experienced',
  'passed',
  'failed',
  'answered',
  'progressed',
  'launched',
  'initialized',
  'terminated',
].map((verb) => `http://adlnet.gov/expapi/verbs/${verb}`);
const BATCH = 100;

const agent = (n: number) => ({ objectType: 'Agent', mbox: `mailto:learner${n}@example.com` });
const activity = (n: number) => `https://example.com/activities/${n}`;
const course = (n: number) => `https://example.com/courses/${n % COURSES}`;
/** Registration n as a UUID: its number in the last group. */
const registration = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      statements: { type: 'string' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      'load-connections': { type: 'string', default: '4' },
      cases: { type: 'string' },
      'query-rate': { type: 'string', default: '200' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  const backend = values.backend as 'pglite' | 'postgres';
  const cases = values.cases?.split(',') ?? Object.keys(CASES);
  for (const name of cases)
    if (!(name in CASES)) throw new UsageError(`--cases: no case ${name}; the cases are ${Object.keys(CASES).join(', ')}.`);
  return {
    backend,
    statements: integer('--statements', values.statements ?? (backend === 'postgres' ? '1000000' : '100000'), BATCH, 10_000_000),
    duration: integer('--duration', values.duration, 1, 120),
    connections: integer('--connections', values.connections, 1, 1_000),
    loadConnections: integer('--load-connections', values['load-connections'], 1, 100),
    cases,
    queryRate: integer('--query-rate', values['query-rate'], 1, 100_000),
    database: values.database,
  };
}

/** Statement n of the data set: its agent, activity, registration and verb follow from n. */
function statement(n: number, random: () => number) {
  const learner = Math.floor(random() * AGENTS);
  const attempt = Math.floor(random() * 10);
  const activityNumber = (learner * 7 + attempt * 131) % ACTIVITIES;
  return {
    id: randomUUID(),
    actor: agent(learner),
    verb: { id: VERBS[n % VERBS.length] },
    object: { id: activity(activityNumber), definition: { name: { 'en-US': `Activity ${activityNumber}` } } },
    result: { score: { scaled: Math.round(random() * 100) / 100 }, completion: n % VERBS.length === 0 },
    context: {
      registration: registration((learner * 10 + attempt) % REGISTRATIONS),
      contextActivities: { parent: [{ id: course(activityNumber) }] },
    },
  };
}

/** The query string of one request of each case; `pick` draws from the data set. */
const CASES: Record<string, (random: () => number, cursors: string[]) => string> = {
  agent: (random) => `agent=${encodeURIComponent(JSON.stringify(agent(Math.floor(random() * AGENTS))))}&limit=10`,
  agentRelated: (random) =>
    `agent=${encodeURIComponent(JSON.stringify(agent(Math.floor(random() * AGENTS))))}&related_agents=true&limit=10`,
  agentAscending: (random) => `agent=${encodeURIComponent(JSON.stringify(agent(Math.floor(random() * AGENTS))))}&ascending=true&limit=10`,
  verb: (random) => `verb=${encodeURIComponent(VERBS[Math.floor(random() * VERBS.length)])}&limit=10`,
  activity: (random) => `activity=${encodeURIComponent(activity(Math.floor(random() * ACTIVITIES)))}&limit=10`,
  activityRelated: (random) => `activity=${encodeURIComponent(course(Math.floor(random() * COURSES)))}&related_activities=true&limit=10`,
  registration: (random) => `registration=${registration(Math.floor(random() * REGISTRATIONS))}&limit=10`,
  agentAndVerb: (random) =>
    `agent=${encodeURIComponent(JSON.stringify(agent(Math.floor(random() * AGENTS))))}&verb=${encodeURIComponent(VERBS[Math.floor(random() * VERBS.length)])}&limit=10`,
  sinceUntil: () =>
    `since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}&until=${encodeURIComponent(new Date().toISOString())}&limit=10`,
  more: (random, cursors) => cursors[Math.floor(random() * cursors.length)],
  page100: () => 'limit=100',
};

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const { base, authorization } = await startBenchTenant(storage);
  const headers = { authorization, 'x-svc-tenant': BENCH_TENANT, 'x-experience-api-version': '2.0.0', 'content-type': 'application/json' };

  // 1. Load, in batches of 100 over --load-connections writers (autocannon, as every write below).
  const random = sequence(1);
  let next = 0;
  const writer: autocannon.Request = {
    method: 'POST',
    path: '/xapi/statements',
    headers,
    setupRequest: (req) => {
      const first = next;
      next += BATCH;
      if (first % 50_000 === 0 && first > 0) log(`stored about ${first} statements`);
      return { ...req, body: JSON.stringify(Array.from({ length: BATCH }, (_, i) => statement(first + i, random))) };
    },
  };
  const started = Date.now();
  const loaded = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon(
      {
        url: base,
        connections: options.loadConnections,
        amount: Math.ceil(options.statements / BATCH),
        pipelining: 1,
        timeout: 30,
        requests: [writer],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
  const failed = loaded.non2xx + loaded.errors;
  const loadSeconds = (Date.now() - started) / 1000;
  const stored = Math.ceil(options.statements / BATCH) * BATCH;
  const report: Record<string, unknown> = {
    backend: options.backend,
    statements: stored,
    load: { seconds: Math.round(loadSeconds), statementsPerSecond: Math.round(stored / loadSeconds), failedBatches: failed },
  };
  log(`loaded ${stored} statements in ${Math.round(loadSeconds)} s`);

  // The `more` links of 200 first pages, for the cursor case.
  const cursors: string[] = [];
  const pick = sequence(2);
  for (let i = 0; i < 200; i++) {
    const response = await fetch(`${base}/xapi/statements?${CASES.agent(pick, [])}`, { headers });
    const { more } = (await response.json()) as { more: string };
    if (more) cursors.push(more.slice(more.indexOf('?') + 1));
  }

  // 2. Each query case alone, right after loading.
  const measured = await measureQueryCases(base, {
    path: '/xapi/statements',
    headers,
    names: options.cases,
    query: (name, draw) => CASES[name]!(draw, cursors),
    duration: options.duration,
    connections: options.connections,
  });
  let non2xx = failed + measured.non2xx;
  report.queries = measured.queries;

  // 3. Batches of 100 written while agent queries run at --query-rate a second.
  const draw = sequence(4);
  let written = next;
  const mixedWriter: autocannon.Request = {
    method: 'POST',
    path: '/xapi/statements',
    headers,
    setupRequest: (req) => {
      const first = written;
      written += BATCH;
      return { ...req, body: JSON.stringify(Array.from({ length: BATCH }, (_, i) => statement(first + i, random))) };
    },
  };
  const reader: autocannon.Request = {
    method: 'GET',
    path: '/xapi/statements',
    headers,
    setupRequest: (req) => ({ ...req, path: `/xapi/statements?${CASES.agent(draw, cursors)}` }),
  };
  const [writes, reads] = await Promise.all([
    load(base, mixedWriter, options.duration, options.loadConnections),
    load(base, reader, options.duration, 2, undefined, options.queryRate),
  ]);
  report.writesWhileQuerying = {
    statementsPerSecond: Math.round(writes.result.requests.average * BATCH),
    writeP99Ms: quantile(writes.latencies, 0.99),
    queryRequestsPerSecond: Math.round(reads.result.requests.average),
    queryP99Ms: quantile(reads.latencies, 0.99),
  };
  non2xx += writes.result.non2xx + reads.result.non2xx;
  report.non2xx = non2xx;
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return non2xx > 0 ? 1 : 0;
}

await runBench(main, USAGE);
