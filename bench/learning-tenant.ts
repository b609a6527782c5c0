// The learning benchmark's tenant (bench/learning.ts, bench/console.ts): its shape, the data built
// for it, and the seeding through the API.
import { BENCH_TENANT, log, sequence, type Storage, startBenchTenant } from './support.js';

// ---------------------------------------------------------------------------------------------
// The tenant. Positions form a tree of ten under each (position n reports to (n - 1) / 10), so a
// position two levels below the root heads 111 positions and about 1,110 people: the "1,000-person
// subtree". Each position has a job (attribute `jobCode`, the tenant's positionJobAttribute), and
// its ten people hold that job through their own `jobCode` too. Job j requires five of the
// catalogue's 2 × jobs competencies, overlapping its neighbours'; activity a develops two
// competencies, every fifth one only when passed. Half the people are in cohort A: the dynamic
// assignment over 50,000 people selects them.

/** The size of the tenant seeded: people (ten to a position), positions, jobs, activities, statements. */
export interface TenantShape {
  people: number;
  positions: number;
  jobs: number;
  activities: number;
  statements: number;
}

type Options = TenantShape;

export const positionId = (n: number) => `P${String(n).padStart(6, '0')}`;
export const jobId = (n: number) => `J${String(n).padStart(4, '0')}`;
export const employeeId = (n: number) => `E${String(n).padStart(7, '0')}`;
const competencyName = (n: number) => `Competency ${String(n).padStart(5, '0')}`;
export const activityIri = (n: number) => `https://bench.example.com/activities/${String(n).padStart(5, '0')}`;
export const ACCOUNT_HOME = 'https://hr.bench.example.com';

const positionJob = (position: number, options: Options) => position % options.jobs;
const jobCompetencies = (job: number, options: Options) => [0, 1, 2, 3, 4].map((k) => (job * 2 + k * 3) % (options.jobs * 2));
const activityCompetencies = (activity: number, options: Options) => [
  activity % (options.jobs * 2),
  (activity * 7 + 1) % (options.jobs * 2),
];

const organisation = (options: Options) =>
  Array.from({ length: options.positions }, (_, n) => ({
    id: positionId(n),
    ...(n === 0 ? {} : { parentId: positionId(Math.floor((n - 1) / 10)) }),
    attributes: { title: `Position ${n}`, jobCode: jobId(positionJob(n, options)) },
  }));

const jobs = (options: Options) =>
  Array.from({ length: options.jobs }, (_, n) => ({
    id: jobId(n),
    name: `Job ${n}`,
    competencies: jobCompetencies(n, options).map((c) => ({ Name: competencyName(c), Description: `Competency ${c} of the bench.` })),
    attributes: { family: `Family ${n % 20}` },
  }));

const registry = (options: Options) =>
  Array.from({ length: options.activities }, (_, n) => ({
    id: activityIri(n),
    definition: { name: { en: `Activity ${n}` }, type: 'http://adlnet.gov/expapi/activities/course' },
    competencies: activityCompetencies(n, options).map(competencyName),
    requiresSuccess: n % 5 === 0,
    launchUrl: `https://content.bench.example.com/${n}/index.html`,
  }));

/** The position of person n: ten people a position. */
const personPosition = (n: number) => Math.floor(n / 10);

const users = (from: number, to: number, options: Options) =>
  Array.from({ length: to - from }, (_, i) => {
    const n = from + i;
    const position = personPosition(n);
    return {
      name: `Learner ${n}`,
      attributes: {
        employeeId: employeeId(n),
        positionNumber: positionId(position),
        jobCode: jobId(positionJob(position, options)),
        cohort: n % 2 === 0 ? 'A' : 'B',
      },
    };
  });

/** The activities that develop a competency, for statements that mostly follow each person's job. */
function developers(options: Options): Map<number, number[]> {
  const byCompetency = new Map<number, number[]>();
  for (let a = 0; a < options.activities; a++) {
    for (const c of activityCompetencies(a, options)) byCompetency.set(c, [...(byCompetency.get(c) ?? []), a]);
  }
  return byCompetency;
}

export const ADL = 'http://adlnet.gov/expapi/verbs/';
export const DAY_MS = 86_400_000;
/** Statements fall in the year before this instant. */
export const END = Date.UTC(2026, 10, 1);

/**
 * The statements of person n, at most ten: an activity of their job's competencies completed with
 * a score, one passed, one failed, the rest launched and progressed. Deterministic in n.
 */
function statementsOf(n: number, options: Options, byCompetency: Map<number, number[]>, limit: number): object[] {
  const random = sequence(n + 1);
  const job = positionJob(personPosition(n), options);
  const wanted = jobCompetencies(job, options);
  const pick = (k: number) => {
    const list = byCompetency.get(wanted[k % wanted.length]) ?? [0];
    return list[Math.floor(random() * list.length)];
  };
  const actor = { objectType: 'Agent', account: { homePage: ACCOUNT_HOME, name: employeeId(n) } };
  const at = (dayOffset: number) => new Date(END - Math.floor(random() * 365) * DAY_MS - dayOffset * 3_600_000).toISOString();
  const statement = (verb: string, activity: number, time: string, result?: object) => ({
    actor,
    verb: { id: `${ADL}${verb}`, display: { en: verb } },
    object: { objectType: 'Activity', id: activityIri(activity) },
    timestamp: time,
    ...(result ? { result } : {}),
  });
  const first = pick(0);
  const second = pick(1);
  const third = Math.floor(random() * options.activities);
  const day = at(0);
  const made = [
    statement('launched', first, day),
    statement('progressed', first, day, { extensions: { 'http://id.tincanapi.com/extension/progress': 50 } }),
    statement('completed', first, day, { completion: true, score: { scaled: Math.round(random() * 100) / 100 } }),
    statement('launched', second, at(1)),
    statement('progressed', second, at(1), { extensions: { 'http://id.tincanapi.com/extension/progress': 80 } }),
    statement('passed', second, at(1), { success: true, completion: true, score: { scaled: 0.8 + Math.round(random() * 20) / 100 } }),
    statement('launched', third, at(2)),
    statement('failed', third, at(2), { success: false, score: { scaled: Math.round(random() * 50) / 100 } }),
    statement('launched', pick(2), at(3)),
    statement('progressed', pick(3), at(4), { extensions: { 'http://id.tincanapi.com/extension/progress': 20 } }),
  ];
  return made.slice(0, limit);
}

// ---------------------------------------------------------------------------------------------
// Seeding, through the API

export interface Api {
  base: string;
  headers: Record<string, string>;
  send: (method: string, path: string, body?: unknown, extra?: Record<string, string>) => Promise<Record<string, unknown> | undefined>;
}

export async function seed(api: Api, options: Options): Promise<Record<string, number>> {
  const seconds: Record<string, number> = {};
  const timed = async (what: string, work: () => Promise<unknown>) => {
    const started = process.hrtime.bigint();
    await work();
    seconds[what] = Math.round(Number(process.hrtime.bigint() - started) / 1e7) / 100;
    log(`seed: ${what} in ${seconds[what]} s`);
  };
  await api.send('PUT', '/api/settings', {
    uniqueAttributes: ['employeeId'],
    accountHomePage: ACCOUNT_HOME,
    organisationAttribute: 'positionNumber',
    jobAttribute: 'jobCode',
    positionJobAttribute: 'jobCode',
  });
  await timed('organisation', () => api.send('PUT', '/api/import/organisation', organisation(options)));
  await timed('jobs', () => api.send('PUT', '/api/import/jobs', jobs(options)));
  await timed('activities', () => api.send('PUT', '/api/activities', registry(options)));
  await timed('people', async () => {
    for (let from = 0; from < options.people; from += 50_000) {
      const to = Math.min(options.people, from + 50_000);
      const summary = await api.send('POST', '/api/import/users', { users: users(from, to, options) });
      if (summary?.new !== to - from) throw new Error(`unexpected import summary: ${JSON.stringify(summary).slice(0, 300)}`);
    }
  });
  const byCompetency = developers(options);
  await timed('statements', async () => {
    const perPerson = Math.min(10, Math.ceil(options.statements / options.people));
    let remaining = options.statements;
    let next = 0;
    // Ten requests in flight of 1,000 statements each (a hundred people).
    const worker = async () => {
      while (remaining > 0 && next < options.people) {
        const from = next;
        next += 100;
        const batch: object[] = [];
        for (let n = from; n < Math.min(options.people, from + 100) && remaining > 0; n++) {
          const mine = statementsOf(n, options, byCompetency, Math.min(perPerson, remaining));
          remaining -= mine.length;
          batch.push(...mine);
        }
        if (batch.length > 0) await api.send('POST', '/xapi/statements', batch, { 'x-experience-api-version': '2.0.0' });
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
  });
  return seconds;
}

/** The bench tenant's server on `storage` (imports up to 1 GiB), and the API as its key calls it. */
export async function startLearningTenant(storage: Storage): Promise<Api> {
  const { base, authorization } = await startBenchTenant(storage, { LEARNBASE_IMPORT_LIMIT_BYTES: String(1024 * 1024 * 1024) });
  const headers = { authorization, 'x-svc-tenant': BENCH_TENANT, 'content-type': 'application/json' };
  return {
    base,
    headers,
    send: async (method, path, body, extra = {}) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...headers, ...extra },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
      return text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    },
  };
}
