import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

/**
 * One organisation for the skills gap and recommendation tests (docs/learning.md): positions
 * linked to jobs through `positionJobAttribute`, jobs with competencies, registered activities
 * developing them, people and their statements. The `expected*` parts are written by hand from
 * the rules (a person's current job; what counts as evidence), so the tests compute their
 * expectations from this fixture, not from the implementation.
 */

export const ADL = 'http://adlnet.gov/expapi/verbs/';
export const SETTINGS = { organisationAttribute: 'position', jobAttribute: 'jobCode', positionJobAttribute: 'job' };

export const ORGANISATION = [
  { id: 'HQ', attributes: { title: 'Head office', job: 'J-CEO' } },
  { id: 'ENG', parentId: 'HQ', attributes: { title: 'Engineering', job: 'J-LEAD' } },
  { id: 'DEV', parentId: 'ENG', attributes: { title: 'Development', job: 'J-DEV' } },
  // Names a job that does not exist: nobody gets a job from it.
  { id: 'QA', parentId: 'ENG', attributes: { title: 'Quality', job: 'J-GONE' } },
  // Names no job at all.
  { id: 'OPS', parentId: 'HQ', attributes: { title: 'Operations' } },
  { id: 'OPS2', parentId: 'OPS', attributes: { title: 'Operations desk', job: 'J-DEV' } },
];

export const DESCRIPTIONS: Record<string, string> = {
  TypeScript: 'Writes it',
  SQL: 'Queries data',
  Testing: 'Tests it',
  Mentoring: 'Grows people',
  Planning: 'Plans work',
  Strategy: 'Sets direction',
};
const competency = (Name: string) => ({ Name, Description: DESCRIPTIONS[Name] });

export const JOBS = [
  { id: 'J-DEV', name: 'Developer', competencies: ['TypeScript', 'SQL', 'Testing'].map(competency) },
  { id: 'J-LEAD', name: 'Lead', competencies: ['TypeScript', 'Mentoring', 'Planning'].map(competency) },
  { id: 'J-CEO', name: 'Chief', competencies: ['Planning', 'Strategy'].map(competency) },
  { id: 'J-OTHER', name: 'Analyst', competencies: ['SQL'].map(competency) },
  { id: 'J-EMPTY', name: 'Nothing required', competencies: [] },
];
export const jobOf = (id: string) => JOBS.find((job) => job.id === id)!;

export const activityId = (name: string) => `https://example.com/${name}`;
/** The registry: what each activity develops and whether only passing it counts. */
export const ACTIVITIES: Array<{ name: string; competencies: string[]; requiresSuccess?: boolean; title?: string; launchUrl?: string }> = [
  { name: 'a1', competencies: ['TypeScript', 'SQL'], title: 'TypeScript and SQL' },
  { name: 'a2', competencies: ['TypeScript', 'Testing', 'Mentoring'], title: 'Pairing' },
  { name: 'a3', competencies: ['Mentoring', 'Planning'], requiresSuccess: true, title: 'Leading' },
  // No definition name.
  { name: 'a4', competencies: ['Testing'] },
  { name: 'a5', competencies: ['Planning', 'Strategy'], title: 'Strategy', launchUrl: 'https://content.example.com/a5/' },
  { name: 'a6', competencies: ['Fire safety'], title: 'Fire safety' },
  { name: 'a7', competencies: ['Mentoring', 'Planning'], title: 'Mentoring and planning' },
  // Byte order puts "Z8" before "a1".
  { name: 'Z8', competencies: ['Planning'], title: 'Planning' },
  { name: 'a9', competencies: [], title: 'Nothing in particular' },
];
export const activityOf = (name: string) => ACTIVITIES.find((activity) => activity.name === name)!;

/**
 * The people: their attributes and, by hand from the rule (own jobAttribute when it names a job,
 * else the position's job through positionJobAttribute), their current job.
 */
export const PEOPLE: Array<{ key: string; attributes: Record<string, string>; currentJob?: string }> = [
  { key: 'ada', attributes: { position: 'DEV' }, currentJob: 'J-DEV' },
  { key: 'bob', attributes: { position: 'DEV', jobCode: 'J-OTHER' }, currentJob: 'J-OTHER' },
  { key: 'cid', attributes: { position: 'DEV', jobCode: 'J-NONE' }, currentJob: 'J-DEV' },
  { key: 'dan', attributes: { position: 'QA' } },
  { key: 'eve', attributes: { position: 'ENG' }, currentJob: 'J-LEAD' },
  { key: 'fay', attributes: { position: 'OPS' } },
  { key: 'gus', attributes: { position: 'HQ' }, currentJob: 'J-CEO' },
  { key: 'ivy', attributes: { jobCode: 'J-DEV' }, currentJob: 'J-DEV' },
  { key: 'kim', attributes: { position: 'OPS2' }, currentJob: 'J-DEV' },
  { key: 'lou', attributes: { jobCode: 'J-OTHER' }, currentJob: 'J-OTHER' },
];

/** Hal is only named by statements: never one of the people a group counts. */
export const HAL = { mbox: 'mailto:hal@example.com' };

export interface Completion {
  person: string;
  activity: string;
  verb: 'completed' | 'passed' | 'attempted';
  at: string;
  success?: boolean;
  registration?: string;
  score?: number;
}

const R1 = randomUUID();
/** Lou completes a1 twelve times, in twelve registrations: more evidence than a gap lists. */
const louRuns: Completion[] = Array.from({ length: 12 }, (_, i) => ({
  person: 'lou',
  activity: 'a1',
  verb: 'completed',
  at: `2026-03-${String(i + 1).padStart(2, '0')}T09:00:00.000Z`,
  registration: randomUUID(),
}));

export const COMPLETIONS: Completion[] = [
  { person: 'ada', activity: 'a1', verb: 'completed', at: '2026-01-01T10:00:00.000Z', score: 0.8 },
  { person: 'ada', activity: 'a1', verb: 'completed', at: '2026-02-01T10:00:00.000Z', registration: R1 },
  // Completed and failed: completedAt set, but a3 requires success: no evidence.
  { person: 'ada', activity: 'a3', verb: 'completed', at: '2026-01-05T10:00:00.000Z', success: false },
  { person: 'ada', activity: 'a4', verb: 'attempted', at: '2026-01-06T10:00:00.000Z' },
  { person: 'cid', activity: 'a4', verb: 'completed', at: '2026-01-07T10:00:00.000Z' },
  { person: 'cid', activity: 'a3', verb: 'passed', at: '2026-01-08T10:00:00.000Z', score: 0.9 },
  { person: 'ivy', activity: 'a2', verb: 'completed', at: '2026-01-09T10:00:00.000Z' },
  { person: 'ivy', activity: 'a4', verb: 'completed', at: '2026-01-10T10:00:00.000Z' },
  { person: 'eve', activity: 'a3', verb: 'passed', at: '2026-01-11T10:00:00.000Z' },
  { person: 'bob', activity: 'a6', verb: 'completed', at: '2026-01-12T10:00:00.000Z' },
  { person: 'hal', activity: 'a4', verb: 'completed', at: '2026-01-12T10:00:00.000Z' },
  { person: 'hal', activity: 'a2', verb: 'completed', at: '2026-01-12T10:00:00.000Z' },
  { person: 'hal', activity: 'a7', verb: 'completed', at: '2026-01-12T10:00:00.000Z' },
  ...louRuns,
];

/** Whether a completion is evidence (the rule of docs/learning.md): passed where the activity requires success, else completed. */
export const isEvidence = (completion: Completion) =>
  activityOf(completion.activity).requiresSuccess
    ? completion.verb === 'passed'
    : completion.verb === 'completed' || completion.verb === 'passed';
/** Whether the person completed the activity (completedAt set): completed or passed, whatever the success. */
export const isCompleted = (completion: Completion) => completion.verb === 'completed' || completion.verb === 'passed';

/** The competencies a person holds, from the fixture's completions. */
export function heldBy(person: string): Set<string> {
  return new Set(
    COMPLETIONS.filter((completion) => completion.person === person && isEvidence(completion)).flatMap(
      (completion) => activityOf(completion.activity).competencies,
    ),
  );
}

export interface SkillsWorld {
  tenant: GivenTenant;
  homePage: string;
  /** The actorId of a person of PEOPLE (or hal). */
  actorId(person: string): string;
  agent(person: string): Record<string, unknown>;
  competencyId(name: string): string;
}

/** Builds the fixture in a new tenant, through the API. */
export async function buildSkillsWorld(ctx: TestContext): Promise<SkillsWorld> {
  const tenant = await ctx.given.tenant();
  const homePage = `http://${tenant.name}.${ctx.config.baseDomain}`;
  const send = async (method: 'PUT' | 'POST', url: string, payload: unknown, headers = tenant.headers) => {
    const res = await ctx.app.inject({ method, url, headers, payload: payload as object });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res;
  };
  await send('PUT', '/api/settings', SETTINGS);
  await send('PUT', '/api/import/organisation', ORGANISATION);
  await send('PUT', '/api/import/jobs', JOBS);
  await send('PUT', '/api/competencies', [{ name: 'Fire safety' }]);
  await send(
    'PUT',
    '/api/activities',
    ACTIVITIES.map((activity) => ({
      id: activityId(activity.name),
      definition: activity.title ? { name: { en: activity.title } } : {},
      competencies: activity.competencies,
      ...(activity.requiresSuccess ? { requiresSuccess: true } : {}),
      ...(activity.launchUrl ? { launchUrl: activity.launchUrl } : {}),
    })),
  );
  const users = PEOPLE.map((person) => ({ name: person.key, attributes: { email: `${person.key}@example.com`, ...person.attributes } }));
  await send('POST', '/api/import/users', { users });
  const agent = (person: string) => (person === 'hal' ? HAL : { account: { homePage, name: `${person}@example.com` } });
  const statements = COMPLETIONS.map((completion) => ({
    actor: agent(completion.person),
    verb: { id: `${ADL}${completion.verb}` },
    object: { id: activityId(completion.activity) },
    timestamp: completion.at,
    ...(completion.success !== undefined || completion.score !== undefined
      ? {
          result: {
            ...(completion.success !== undefined ? { success: completion.success } : {}),
            ...(completion.score !== undefined ? { score: { scaled: completion.score } } : {}),
          },
        }
      : {}),
    ...(completion.registration ? { context: { registration: completion.registration } } : {}),
  }));
  await send('POST', '/xapi/statements', statements, tenant.xapi);
  const catalogue = (await ctx.app.inject({ method: 'GET', url: '/api/competencies', headers: tenant.headers })).json() as {
    competencies: Array<{ id: string; name: string }>;
  };
  const ids = new Map(catalogue.competencies.map((c) => [c.name, c.id]));
  return {
    tenant,
    homePage,
    actorId: (person) => (person === 'hal' ? `mbox|${HAL.mbox}` : `account|${homePage}|${person}@example.com`),
    agent,
    competencyId: (name) => {
      const id = ids.get(name);
      assert.ok(id, name);
      return id;
    },
  };
}
