/**
 * Notification query benchmark (issue 16): starts `learnbase serve` on fresh storage, creates
 * 10,000 actors (PUT /api/actors/agents) and 1,000 registry activities with tags and attributes
 * (PUT /api/activities), makes `--notifications` notifications (default 1,000,000) with POST
 * /api/notifications in arrays of 1,000, then, with no ANALYZE step, measures the common queries
 * of GET /api/notifications with limit=20. See bench/README.md, "Notification queries".
 *
 *   node --import tsx bench/notifications.ts --backend pglite|postgres [--notifications N] [--duration 10]
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  BENCH_TENANT,
  createStorage,
  DEFAULT_POSTGRES,
  ensureBuilt,
  integer,
  log,
  measureQueryCases,
  runBench,
  sequence,
  startBenchTenant,
  UsageError,
} from './support.js';

const USAGE = `Usage: node --import tsx bench/notifications.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --notifications N           notifications made before the queries (default 1000000)
  --duration S                measured seconds per query case (default 10, after 2 s of warm-up)
  --connections N             concurrent keep-alive connections of the query cases (default 10)
  --load-connections N        concurrent writers while loading (default 4)
  --cases LIST                comma-separated query cases (default: all)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})`;

const ACTORS = 10_000;
const ACTIVITIES = 1_000;
const BATCH = 1_000;
const TAGS = ['mandatory', 'safety', 'compliance', 'onboarding', 'leadership', 'technical', 'soft-skills', 'optional'];
const CHANNELS = ['email', 'sms', 'push', 'in-app'];
const SURNAMES = ['Lovelace', 'Hopper', 'Turing', 'Noether', 'Curie', 'Franklin', 'Hamilton', 'Johnson', 'Liskov', 'Goldberg'];
/** The targets of issue 16 on PostgreSQL, p99 in ms. */
const TARGETS: Record<string, number> = { actorSince: 20, tagsChannel: 50, query: 200 };

const mbox = (n: number) => `mailto:learner${n}@example.com`;
const actor = (n: number) => ({ objectType: 'Agent', name: `Learner ${n} ${SURNAMES[n % SURNAMES.length]}`, mbox: mbox(n) });
const activityId = (n: number) => `https://example.com/activities/${n}`;
const activity = (n: number) => ({
  id: activityId(n),
  definition: { name: { 'en-US': `Activity ${n}` }, type: 'http://adlnet.gov/expapi/activities/lesson' },
  tags: [...new Set([TAGS[n % TAGS.length], TAGS[(n * 3 + 1) % TAGS.length]])],
  attributes: { owner: `team-${n % 20}`, level: String(n % 5) },
});

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      notifications: { type: 'string', default: '1000000' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      'load-connections': { type: 'string', default: '4' },
      cases: { type: 'string' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  const cases = values.cases?.split(',') ?? Object.keys(CASES);
  for (const name of cases)
    if (!(name in CASES)) throw new UsageError(`--cases: no case ${name}; the cases are ${Object.keys(CASES).join(', ')}.`);
  return {
    backend: values.backend as 'pglite' | 'postgres',
    notifications: integer('--notifications', values.notifications, BATCH, 10_000_000),
    duration: integer('--duration', values.duration, 1, 120),
    connections: integer('--connections', values.connections, 1, 1_000),
    loadConnections: integer('--load-connections', values['load-connections'], 1, 100),
    cases,
    database: values.database,
  };
}

/** Notification n: its actor, activity and channel follow from n and the sequence. */
function notification(n: number, random: () => number) {
  const learner = Math.floor(random() * ACTORS);
  const attempt = Math.floor(random() * 10);
  return {
    actor: { mbox: mbox(learner) },
    activity: { id: activityId((learner * 7 + attempt * 131) % ACTIVITIES) },
    channel: CHANNELS[n % CHANNELS.length],
    object: { subject: `Reminder ${n}`, dueInDays: n % 30 },
  };
}

/** The query string of one request of each case; `span` is the load's [start, end] in ms. */
const CASES: Record<string, (random: () => number, span: [number, number]) => string> = {
  // One actor's notifications since an instant within the load (about half of them later).
  actorSince: (random, [start, end]) =>
    `actorId=${encodeURIComponent(`mbox|${mbox(Math.floor(random() * ACTORS))}`)}&since=${encodeURIComponent(new Date(start + random() * (end - start)).toISOString())}&limit=20`,
  tagsChannel: (random) =>
    `activity%3Atags=${encodeURIComponent(TAGS[Math.floor(random() * TAGS.length)])}&channel=${CHANNELS[Math.floor(random() * CHANNELS.length)]}&limit=20`,
  // A name prefix: "Learner 42" matches learners 42, 420-429 and 4200-4299 (111 actors).
  query: (random) => `query=${encodeURIComponent(`^Learner ${1 + Math.floor(random() * 99)}[0-9]* `)}&limit=20`,
  attribute: (random) => `activity%3Aattribute%3Aowner=team-${Math.floor(random() * 20)}&limit=20`,
  newest: () => 'limit=20',
};

/** Runs `amount` requests of `request` over `connections` and fails on any non-2xx answer. */
async function write(base: string, request: autocannon.Request, amount: number, connections: number, what: string): Promise<number> {
  const started = Date.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) =>
    autocannon({ url: base, connections, amount, pipelining: 1, timeout: 120, requests: [request] }, (error, done) =>
      error ? reject(error) : resolve(done),
    ),
  );
  if (result.non2xx + result.errors > 0) throw new Error(`${what}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  const seconds = (Date.now() - started) / 1000;
  log(`${what}: ${amount} requests in ${Math.round(seconds)} s`);
  return seconds;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const { base, authorization } = await startBenchTenant(storage);
  const headers = { authorization, 'x-svc-tenant': BENCH_TENANT, 'content-type': 'application/json' };

  // 1. The actors, one upsert each, and the registry in one PUT.
  let nextActor = 0;
  await write(
    base,
    { method: 'PUT', path: '/api/actors/agents', headers, setupRequest: (req) => ({ ...req, body: JSON.stringify(actor(nextActor++)) }) },
    ACTORS,
    options.loadConnections,
    'actors',
  );
  const registry = await fetch(`${base}/api/activities`, {
    method: 'PUT',
    headers,
    body: JSON.stringify(Array.from({ length: ACTIVITIES }, (_, n) => activity(n))),
  });
  if (registry.status !== 200) throw new Error(`PUT /api/activities: ${registry.status} ${await registry.text()}`);

  // 2. The notifications, in arrays of 1,000.
  const random = sequence(1);
  let next = 0;
  const batches = Math.ceil(options.notifications / BATCH);
  const loadStart = Date.now();
  const loadSeconds = await write(
    base,
    {
      method: 'POST',
      path: '/api/notifications',
      headers,
      setupRequest: (req) => {
        const first = next;
        next += BATCH;
        if (first % 100_000 === 0 && first > 0) log(`made about ${first} notifications`);
        return { ...req, body: JSON.stringify(Array.from({ length: BATCH }, (_, i) => notification(first + i, random))) };
      },
    },
    batches,
    options.loadConnections,
    'notifications',
  );
  const span: [number, number] = [loadStart, Date.now()];
  const made = batches * BATCH;
  const report: Record<string, unknown> = {
    backend: options.backend,
    actors: ACTORS,
    activities: ACTIVITIES,
    notifications: made,
    load: { seconds: Math.round(loadSeconds), notificationsPerSecond: Math.round(made / loadSeconds) },
  };

  // 3. Each query case alone.
  const measured = await measureQueryCases(base, {
    path: '/api/notifications',
    headers,
    names: options.cases,
    query: (name, draw) => CASES[name]!(draw, span),
    duration: options.duration,
    connections: options.connections,
    targets: TARGETS,
  });
  const non2xx = measured.non2xx;
  report.queries = measured.queries;
  report.non2xx = non2xx;
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return non2xx > 0 ? 1 : 0;
}

await runBench(main, USAGE);
