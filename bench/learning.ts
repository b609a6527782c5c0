import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import {
  adminQuery,
  createStorage,
  DEFAULT_POSTGRES,
  ensureBuilt,
  integer,
  load,
  log,
  quantile,
  runBench,
  sequence,
  UsageError,
  publishReport,
} from './support.js';
import {
  ACCOUNT_HOME,
  ADL,
  type Api,
  activityIri,
  DAY_MS,
  END,
  employeeId,
  jobId,
  positionId,
  seed,
  startLearningTenant,
} from './learning-tenant.js';

const USAGE = `Usage: node --import tsx bench/learning.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required; the issue's figures are PostgreSQL's)
  --people N                  people (default 100000), ten to a position
  --jobs N                    jobs (default 500), five competencies each from a catalogue of twice as many
  --activities N              registered activities (default 2000), each developing two competencies
  --statements N              statements (default 1000000), ten a person at most
  --duration S                measured seconds per case (default 10)
  --warmup S                  unmeasured load before each case (default 2)
  --connections N             concurrent keep-alive connections (default 10)
  --cases LIST                comma-separated case names (default: every case)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})
  --keep-database             keep the PostgreSQL database after the run (to look at plans; drop it yourself)
  --no-save                   do not write bench/results/`;

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      people: { type: 'string', default: '100000' },
      jobs: { type: 'string', default: '500' },
      activities: { type: 'string', default: '2000' },
      statements: { type: 'string', default: '1000000' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '10' },
      cases: { type: 'string' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
      'no-save': { type: 'boolean', default: false },
      'keep-database': { type: 'boolean', default: false },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  const people = integer('--people', values.people, 1_000, 1_000_000);
  return {
    backend: values.backend as 'pglite' | 'postgres',
    people,
    positions: Math.ceil(people / 10),
    jobs: integer('--jobs', values.jobs, 10, 10_000),
    activities: integer('--activities', values.activities, 10, 100_000),
    statements: integer('--statements', values.statements, 0, 10 * people),
    duration: integer('--duration', values.duration, 1, 120),
    warmup: integer('--warmup', values.warmup, 0, 60),
    connections: integer('--connections', values.connections, 1, 1_000),
    cases: values.cases?.split(',').filter(Boolean),
    database: values.database,
    save: !values['no-save'],
    keep: values['keep-database'],
  };
}

type Options = ReturnType<typeof parseOptions>;

// ---------------------------------------------------------------------------------------------
// Measuring

interface Case {
  name: string;
  /** The figure for the case: p99 under this many ms. */
  targetP99Ms?: number;
  /** One request, built anew for each (a random person, a random subtree). */
  request: () => { method: 'GET' | 'POST'; path: string; body?: unknown; headers?: Record<string, string> };
}

/** The agent key form of person n: `account|<homePage>|<name>`. */
const actorId = (n: number) => `account|${ACCOUNT_HOME}|${employeeId(n)}`;

function cases(options: Options): Case[] {
  const random = sequence(28);
  const person = () => Math.floor(random() * options.people);
  /** A position two levels below the root: about 1,110 people below it. */
  const subtree = () => positionId(11 + Math.floor(random() * Math.min(100, Math.max(1, options.positions - 11))));
  const q = (parameters: Record<string, string>) => new URLSearchParams(parameters).toString();
  const list: Case[] = [
    {
      name: 'skillsGap',
      targetP99Ms: 50,
      request: () => ({ method: 'GET', path: `/api/skills-gap?${q({ actorId: actorId(person()) })}` }),
    },
    {
      name: 'skillsGapNext',
      targetP99Ms: 50,
      request: () => ({
        method: 'GET',
        path: `/api/skills-gap?${q({ actorId: actorId(10 * 111 + (person() % (options.people - 1110))), target: 'next' })}`,
      }),
    },
    {
      name: 'recommendations',
      targetP99Ms: 50,
      request: () => ({ method: 'GET', path: `/api/recommendations?${q({ actorId: actorId(person()) })}` }),
    },
  ];
  // The reports, over the whole tenant (p99 < 250 ms) and over a subtree of about 1,110 people
  // (p99 < 50 ms); activity over time for the statements' year, by day and by week.
  const reports: Array<[string, string, Record<string, string>]> = [
    ['completionByUnit', '/api/reports/completion-by-unit', {}],
    ['completionByJob', '/api/reports/completion-by-job', {}],
    ['completionByActivity', '/api/reports/completion-by-activity', {}],
    ['activityOverTime', '/api/reports/activity-over-time', { from: '2025-11-01', to: '2026-10-31' }],
    ['activityOverTimeWeeks', '/api/reports/activity-over-time', { from: '2025-11-01', to: '2026-10-31', interval: 'week' }],
  ];
  for (const [name, path, parameters] of reports) {
    list.push(
      { name: `${name}Whole`, targetP99Ms: 250, request: () => ({ method: 'GET', path: `${path}?${q(parameters)}` }) },
      {
        name: `${name}Subtree`,
        targetP99Ms: 50,
        request: () => ({ method: 'GET', path: `${path}?${q({ ...parameters, organisationId: subtree() })}` }),
      },
    );
  }
  return list;
}

/**
 * A pause before each case: the previous case's last requests, abandoned by the load generator
 * when its time was up, finish in the server meanwhile instead of weighing on this case.
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5_000));

async function measure(api: Api, options: Options, one: Case) {
  await settle();
  const first = one.request();
  const check = await fetch(`${api.base}${first.path}`, {
    method: first.method,
    headers: { ...api.headers, ...first.headers },
    body: first.body === undefined ? undefined : JSON.stringify(first.body),
  });
  const text = await check.text();
  if (!check.ok) throw new Error(`${one.name}: ${first.method} ${first.path} answered ${check.status}: ${text.slice(0, 300)}`);
  const request: autocannon.Request = {
    setupRequest: (req) => {
      const next = one.request();
      return {
        ...req,
        method: next.method,
        path: next.path,
        headers: { ...api.headers, ...next.headers },
        ...(next.body === undefined ? {} : { body: JSON.stringify(next.body) }),
      };
    },
  };
  if (options.warmup > 0) await load(api.base, request, options.warmup, options.connections);
  const { result, latencies } = await load(api.base, request, options.duration, options.connections);
  const p99Ms = quantile(latencies, 0.99);
  const figure = {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: quantile(latencies, 0.5),
    p90Ms: quantile(latencies, 0.9),
    p99Ms,
    maxMs: quantile(latencies, 1),
    requests: result['2xx'] + result.non2xx,
    non2xx: result.non2xx,
    errors: result.errors,
    ...(one.targetP99Ms === undefined ? {} : { target: { p99Ms: one.targetP99Ms, met: p99Ms < one.targetP99Ms } }),
  };
  log(`${one.name}: ${figure.requestsPerSecond} req/s, p50 ${figure.p50Ms} ms, p99 ${figure.p99Ms} ms`);
  return figure;
}

/** Statements for the write cases: batches of 100 about random people and activities, each a new id. */
function statementBatches(options: Options): () => object[] {
  const random = sequence(2_028);
  return () =>
    Array.from({ length: 100 }, () => {
      const n = Math.floor(random() * options.people);
      return {
        actor: { objectType: 'Agent', account: { homePage: ACCOUNT_HOME, name: employeeId(n) } },
        verb: { id: `${ADL}completed`, display: { en: 'completed' } },
        object: { objectType: 'Activity', id: activityIri(Math.floor(random() * options.activities)) },
        result: { completion: true, score: { scaled: Math.round(random() * 100) / 100 } },
        timestamp: new Date(END - Math.floor(random() * 30) * DAY_MS).toISOString(),
      };
    });
}

/** POST /xapi/statements, batches of 100, for the measured seconds: statements a second and the latency. */
async function measureWrites(api: Api, options: Options) {
  await settle();
  const batch = statementBatches(options);
  const request: autocannon.Request = {
    setupRequest: (req) => ({
      ...req,
      method: 'POST',
      path: '/xapi/statements',
      headers: { ...api.headers, 'x-experience-api-version': '2.0.0' },
      body: JSON.stringify(batch()),
    }),
  };
  if (options.warmup > 0) await load(api.base, request, options.warmup, options.connections);
  const { result, latencies } = await load(api.base, request, options.duration, options.connections);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    statementsPerSecond: Math.round(result.requests.average * 100),
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    non2xx: result.non2xx,
  };
}

/**
 * The assignment cases: one dynamic assignment over cohort A (half the people) created and timed;
 * statement writes before any assignment and with 100 active (the first of them over cohort A,
 * the others over jobs and subtrees); then the per-assignment and per-person reads under load.
 */
async function assignmentCases(api: Api, options: Options, wanted: (name: string) => boolean): Promise<Record<string, unknown>> {
  const measured: Record<string, unknown> = {};
  if (wanted('statementWritesBefore')) measured.statementWritesBefore = await measureWrites(api, options);
  const activityIds = [0, 1, 2, 3, 4].map((k) => activityIri(k * 37));
  const started = process.hrtime.bigint();
  const created = (await api.send('POST', '/api/assignments', {
    name: 'Cohort A',
    activityIds,
    dueAt: '2026-12-31T17:00:00Z',
    people: { criteria: { field: 'attributes.cohort', op: 'eq', value: 'A' } },
  })) as { id: string; members: number };
  const createSeconds = Math.round(Number(process.hrtime.bigint() - started) / 1e6) / 1e3;
  measured.assignmentCreate = { members: created.members, seconds: createSeconds, target: { seconds: 5, met: createSeconds < 5 } };
  log(`assignmentCreate: ${created.members} members in ${createSeconds} s`);
  for (let k = 1; k < 100; k++) {
    const people = k % 2 === 0 ? { jobId: jobId(k % options.jobs) } : { organisationId: positionId(11 + (k % 100)) };
    await api.send('POST', '/api/assignments', { name: `Bench ${k}`, activityIds: [activityIri(k)], people });
  }
  if (wanted('statementWritesWith100')) {
    measured.statementWritesWith100 = await measureWrites(api, options);
    const before = (measured.statementWritesBefore as { statementsPerSecond: number } | undefined)?.statementsPerSecond;
    const after = (measured.statementWritesWith100 as { statementsPerSecond: number }).statementsPerSecond;
    if (before)
      measured.statementWritesRatio = {
        withOverBefore: Math.round((after / before) * 100) / 100,
        target: { atLeast: 0.85, met: after / before >= 0.85 },
      };
  }
  const random = sequence(4);
  const person = () => Math.floor(random() * options.people);
  const q = (parameters: Record<string, string>) => new URLSearchParams(parameters).toString();
  const reads: Case[] = [
    { name: 'assignmentCounts', request: () => ({ method: 'GET', path: `/api/assignments/item?${q({ id: created.id })}` }) },
    {
      name: 'assignmentPeopleOverdue',
      request: () => ({ method: 'GET', path: `/api/assignments/people?${q({ id: created.id, status: 'overdue', limit: '50' })}` }),
    },
    { name: 'personAssignments', request: () => ({ method: 'GET', path: `/api/actors/assignments?${q({ actorId: actorId(person()) })}` }) },
    // Compliance over every assignment's members (about 65,000 people, 300,000 pairs), and over a subtree of about 1,110 people.
    { name: 'assignmentComplianceWhole', targetP99Ms: 250, request: () => ({ method: 'GET', path: '/api/reports/assignment-compliance' }) },
    {
      name: 'assignmentComplianceSubtree',
      targetP99Ms: 50,
      request: () => ({
        method: 'GET',
        path: `/api/reports/assignment-compliance?${q({ organisationId: positionId(11 + Math.floor(random() * Math.min(100, Math.max(1, options.positions - 11)))) })}`,
      }),
    },
  ];
  for (const one of reads) if (wanted(one.name)) measured[one.name] = await measure(api, options, one);
  return measured;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const api = await startLearningTenant(storage);
  const seeded = await seed(api, options);
  if (storage.statsUrl) {
    // The tables were just written: vacuum and analyse them now, so that no autovacuum runs in the
    // middle of a case and every case is planned with the statistics of the data it reads.
    const started = process.hrtime.bigint();
    await adminQuery(storage.statsUrl, 'VACUUM (ANALYZE)');
    seeded.vacuumAnalyze = Math.round(Number(process.hrtime.bigint() - started) / 1e7) / 100;
    log(`seed: VACUUM (ANALYZE) in ${seeded.vacuumAnalyze} s`);
  }
  const wanted = (name: string) => !options.cases || options.cases.includes(name);
  const measured: Record<string, unknown> = {};
  for (const one of cases(options)) if (wanted(one.name)) measured[one.name] = await measure(api, options, one);
  Object.assign(measured, await assignmentCases(api, options, wanted));
  const report = {
    backend: options.backend,
    node: process.version,
    cpus: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    startedAt: new Date().toISOString(),
    data: {
      people: options.people,
      positions: options.positions,
      jobs: options.jobs,
      activities: options.activities,
      statements: options.statements,
      seedSeconds: seeded,
    },
    connections: options.connections,
    durationSeconds: options.duration,
    cases: measured,
  };
  publishReport('learning', report, options.save);
  return 0;
}

await runBench(main, USAGE);
