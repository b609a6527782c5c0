import fc from 'fast-check';
import {
  hostileDate,
  hostileHeader,
  hostileJson,
  hostileText,
  iriish,
  longIndexedText,
  toJson,
  uuidish,
  validDate,
} from '../fuzz/hostile-values.js';
import {
  apiHeaders,
  type Body,
  body,
  type FuzzContext,
  header,
  JSON_TYPES,
  param,
  type Part,
  part,
  route,
  type RouteFuzzer,
} from '../fuzz/requests.js';
import {
  ACTIVITIES,
  activityId,
  actorIdParameter,
  agentParameter,
  hostileActorId,
  hostileAgentParameter,
  hostileIri,
  LAUNCH_ACTIVITY,
  LEARNER_MBOX,
} from '../fuzz/xapi-values.js';
import { arrayBody, competencyName, entryId, hostileCriteria, pageQuery, searchCriteria } from '../fuzz/api-values.js';

/**
 * The route fuzz test's generators (test/fuzz/routes.fuzz.test.ts) of the learning module's routes:
 * the competency catalogue, skills gaps and recommendations, assignments and reports (issue 28).
 */

/** The competency catalogue (issue 28). */
const competencyEntry = fc.record(
  {
    name: fc.oneof(competencyName, fc.string({ maxLength: 12 }), hostileText, fc.constant('x'.repeat(1001))),
    description: fc.oneof(fc.string({ maxLength: 20 }), hostileText),
  },
  { requiredKeys: [] },
);
/** A CASE framework's item (issue 28): the fields the import reads, sometimes null, long or hostile, and others it does not. */
const caseText = fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null), hostileText, fc.constant('x'.repeat(1001)));
const caseItem = fc.record(
  {
    identifier: fc.oneof(fc.uuid(), caseText),
    fullStatement: fc.oneof(competencyName, fc.string({ maxLength: 20 }), hostileText, fc.constant('y'.repeat(10_001))),
    abbreviatedStatement: fc.oneof(competencyName, caseText),
    humanCodingScheme: caseText,
    CFItemType: fc.oneof(fc.constantFrom('Competency', 'Skill', 'Domain'), caseText),
    educationLevel: fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
/** A CFPackage: a document, items, associations; or hostile JSON, or items mixed with it. */
const casePackage = () =>
  body(
    fc
      .record(
        {
          CFDocument: fc.record({ identifier: fc.oneof(fc.uuid(), caseText), title: caseText }, { requiredKeys: [] }),
          CFItems: fc.array(caseItem, { maxLength: 5 }),
          CFAssociations: fc.array(fc.record({ associationType: fc.constantFrom('isChildOf', 'exactMatchOf') }), { maxLength: 2 }),
        },
        { requiredKeys: ['CFItems'] },
      )
      .map(toJson),
    JSON_TYPES,
    fc.oneof(
      hostileJson.map(toJson),
      fc.array(fc.oneof(caseItem, hostileJson), { minLength: 1, maxLength: 4 }).map((items) => toJson({ CFItems: items })),
    ),
  );
/** Skills gaps and recommendations (issue 28): whose, against which job; jobs and entries the fuzz tenant may have. */
const gapJobId = fc.oneof(fc.constantFrom('J1', 'J2', 'J-ENG'), fc.string({ minLength: 1, maxLength: 8 }));
const personQuery = () => ({
  agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
  actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
  target: param('target', fc.constantFrom('current', 'next'), { hostile: fc.constantFrom('previous', 'NEXT', '') }),
  jobId: param('jobId', gapJobId, { hostile: fc.constantFrom('', 'x'.repeat(256), 'J1\u0000') }),
});
/** The group body, built when a request is. */
const groupBody = () =>
  body(
    fc
      .record(
        {
          people: fc.oneof(fc.record({ organisationId: entryId }), fc.record({ jobId: gapJobId }), fc.record({ criteria: searchCriteria })),
          jobId: gapJobId,
        },
        { requiredKeys: ['people'] },
      )
      .map(toJson),
    JSON_TYPES,
    fc.oneof(
      hostileJson.map(toJson),
      hostileJson.map((people) => toJson({ people })),
      hostileText.map((text) => toJson({ people: { organisationId: text } })),
      hostileText.map((text) => toJson({ people: { jobId: 'J1' }, jobId: text })),
      hostileJson.map((value) => toJson({ people: { jobId: value } })),
      hostileCriteria.map((criteria) => toJson({ people: { criteria } })),
      fc.constantFrom(
        toJson({ people: { organisationId: 'P1', jobId: 'J1' } }),
        toJson({ people: {} }),
        toJson({ people: { organisationId: 'P1' }, extra: 1 }),
        toJson({ people: { jobId: 'x'.repeat(256) } }),
        `{"people":{"criteria":${'{"not":'.repeat(5_000)}{}${'}'.repeat(5_000)}}}`,
      ),
    ),
  );
/** The reports (issue 28, item 6): their filters, date ranges and the Accept that picks JSON or CSV. */
function REPORT_FUZZERS(): Record<string, RouteFuzzer> {
  const people = () => ({
    // The fuzz tenant has no organisation or jobs: any value is a 404, so valid requests leave them out.
    organisationId: param('organisationId', fc.constantFrom('CEO', 'P1'), { rare: true }),
    jobId: param('jobId', fc.constantFrom('J1', 'J-ENG'), { rare: true }),
    activityId: param('activityId', fc.constantFrom(...ACTIVITIES), { hostile: iriish }),
  });
  const accept = header(
    fc.constantFrom(undefined, 'text/csv', 'application/json', '*/*', 'text/*', 'application/json;q=0.5, text/csv'),
    fc.oneof(fc.constantFrom('application/xml', 'text/csv;q=0', '*/*;q=0', 'garbage', 'text/csv;q=2', '*/csv', ',,,'), hostileHeader),
  );
  const headers = (ctx: FuzzContext) => ({ ...apiHeaders(ctx, false), accept });
  // `from` in the first half of 2026, `to` in the second: valid unless a hostile part says otherwise.
  const day = (first: number) =>
    fc.integer({ min: first, max: first + 180 }).map((offset) => new Date(Date.UTC(2026, 0, 1 + offset)).toISOString().slice(0, 10));
  const hostileDay = fc.constantFrom('2026-02-30', '0000-01-01', '9999-12-31', '2026-1-1', '2026-01-01T00:00:00Z', '20260101', '1e3', '');
  /** The day `offset` days after the first of `year`, a common year as 1 and 9999 are (Date.UTC reads years 0-99 as 1900-1999). */
  const dayOfYear = (year: number, offset: number) => {
    const date = new Date(Date.UTC(2001, 0, 1 + offset));
    date.setUTCFullYear(year + date.getUTCFullYear() - 2001);
    return date.toISOString().slice(0, 10);
  };
  // Ranges at the calendar's edges, from and to together: in year 1, and in year 9999 up to its
  // last day (weeks widen the latter into year 10000, which must be a 400, never a 500).
  const edgeRange = fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 40 })).map(([a, b]) => [dayOfYear(1, a), dayOfYear(1, a + b)]),
    fc
      .tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 40 }))
      .map(([a, b]) => [dayOfYear(9999, 364 - a - b), dayOfYear(9999, 364 - a)]),
  );
  const from = param('from', day(0), { required: true, hostile: hostileDay });
  const to = param('to', day(182), { required: true, hostile: hostileDay });
  const range: Part<string[]> = part(
    fc
      .oneof({ weight: 1, arbitrary: fc.tuple(day(0), day(182)) }, { weight: 1, arbitrary: edgeRange })
      .map(([first, last]) => [`from=${first}`, `to=${last}`]),
    fc.oneof(
      fc.tuple(from.hostile, to.valid).map(([first, last]) => [...first, ...last]),
      fc.tuple(from.valid, to.hostile).map(([first, last]) => [...first, ...last]),
    ),
    4,
  );
  const completion = (path: string) => (ctx: FuzzContext) =>
    route({
      method: 'GET',
      path,
      query: { ...people(), tag: param('tag', fc.constantFrom('mandatory', 'safety'), { hostile: hostileText }) },
      headers: headers(ctx),
    });
  return {
    'GET /api/reports/completion-by-unit': completion('/api/reports/completion-by-unit'),
    'GET /api/reports/completion-by-job': completion('/api/reports/completion-by-job'),
    'GET /api/reports/completion-by-activity': completion('/api/reports/completion-by-activity'),
    'GET /api/reports/activity-over-time': (ctx) =>
      route({
        method: 'GET',
        path: '/api/reports/activity-over-time',
        query: {
          range,
          interval: param('interval', fc.constantFrom('day', 'week'), { hostile: fc.constantFrom('month', 'DAY', 'weeks') }),
          ...people(),
        },
        headers: headers(ctx),
      }),
    'GET /api/reports/assignment-compliance': (ctx) =>
      route({
        method: 'GET',
        path: '/api/reports/assignment-compliance',
        // An assignment the fuzz tenant may not have is a 404: valid requests mostly leave it out.
        query: { ...people(), assignmentId: param('assignmentId', fc.uuid(), { rare: true, hostile: uuidish }) },
        headers: headers(ctx),
      }),
  };
}

export const LEARNING_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/skills-gap': (ctx) => route({ method: 'GET', path: '/api/skills-gap', query: personQuery(), headers: apiHeaders(ctx, false) }),
  'POST /api/skills-gap/group': (ctx) =>
    route({ method: 'POST', path: '/api/skills-gap/group', headers: apiHeaders(ctx, false), body: groupBody() }),
  'GET /api/recommendations': (ctx) =>
    route({
      method: 'GET',
      path: '/api/recommendations',
      query: {
        ...personQuery(),
        limit: param('limit', fc.integer({ min: 1, max: 100 }).map(String), { hostile: fc.constantFrom('0', '101', '-1', '1.5', 'ten') }),
      },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/competencies': (ctx) =>
    route({
      method: 'GET',
      path: '/api/competencies',
      query: { q: param('q', fc.oneof(competencyName, fc.string({ maxLength: 5 })), { hostile: hostileText }), ...pageQuery() },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/competencies/item': (ctx) =>
    route({
      method: 'GET',
      path: '/api/competencies/item',
      query: { id: param('id', fc.uuid(), { required: true, hostile: uuidish, weight: 4 }) },
      headers: apiHeaders(ctx, false),
    }),
  'PUT /api/competencies': (ctx) =>
    route({ method: 'PUT', path: '/api/competencies', headers: apiHeaders(ctx, false), body: arrayBody(competencyEntry) }),
  'PUT /api/competencies/case': (ctx) =>
    route({
      method: 'PUT',
      path: '/api/competencies/case',
      query: {
        itemTypes: param('itemTypes', fc.constantFrom('Competency', 'skill,Competency', ' , Domain'), {
          hostile: fc.oneof(hostileText, fc.constantFrom('', ',', 'x'.repeat(2001))),
        }),
      },
      headers: apiHeaders(ctx, false),
      body: casePackage(),
    }),
  'POST /api/assignments': (ctx) =>
    route({ method: 'POST', path: '/api/assignments', headers: apiHeaders(ctx, false), body: assignmentBody() }),
  'GET /api/assignments': (ctx) => route({ method: 'GET', path: '/api/assignments', query: pageQuery(), headers: apiHeaders(ctx, false) }),
  'GET /api/assignments/item': (ctx) =>
    route({ method: 'GET', path: '/api/assignments/item', query: { id: assignmentIdParam() }, headers: apiHeaders(ctx, false) }),
  'PUT /api/assignments/item': (ctx) =>
    route({
      method: 'PUT',
      path: '/api/assignments/item',
      query: { id: assignmentIdParam() },
      headers: apiHeaders(ctx, false),
      body: assignmentBody(),
    }),
  'DELETE /api/assignments/item': (ctx) =>
    route({ method: 'DELETE', path: '/api/assignments/item', query: { id: assignmentIdParam() }, headers: apiHeaders(ctx, false) }),
  'GET /api/assignments/people': (ctx) =>
    route({
      method: 'GET',
      path: '/api/assignments/people',
      query: {
        id: assignmentIdParam(),
        status: param('status', fc.constantFrom('assigned', 'inProgress', 'completed,completedLate', 'overdue,assigned'), {
          hostile: fc.constantFrom('', ',', 'late', 'in-progress', 'Completed', 'overdue,,assigned', 'x'.repeat(5_000)),
        }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/actors/assignments': (ctx) =>
    route({
      method: 'GET',
      path: '/api/actors/assignments',
      query: {
        agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
      },
      headers: apiHeaders(ctx, false),
    }),
  ...REPORT_FUZZERS(),
};

/**
 * Learning assignments (issue 28, item 4): bodies mostly valid for the fuzz tenant (its learner,
 * its launch activity, the search's criteria), or hostile in each part. Built when a route is
 * fuzzed.
 */
const assignmentIdParam = () => param('id', fc.uuid(), { required: true, hostile: uuidish, weight: 4 });
let hugeAssignment: string | undefined;
function assignmentBody(): Part<Body> {
  const people = fc.oneof(
    fc.record({
      actorIds: fc.oneof(fc.constant([`mbox|${LEARNER_MBOX}`]), fc.uniqueArray(actorIdParameter, { minLength: 1, maxLength: 3 })),
    }),
    fc.record({ criteria: searchCriteria }),
    fc.record({ organisationId: entryId }),
    fc.record({ jobId: entryId }),
  );
  const valid = fc.record(
    {
      name: fc.oneof(fc.constantFrom('Fire safety 2027', 'Induction'), fc.string({ minLength: 1, maxLength: 20 })),
      activityIds: fc.oneof(fc.constant([LAUNCH_ACTIVITY]), fc.uniqueArray(activityId, { minLength: 1, maxLength: 3 })),
      people,
      dueAt: fc.oneof(validDate, fc.constant(null)),
    },
    { requiredKeys: ['name', 'activityIds', 'people'] },
  );
  const hostilePeople = fc.oneof(
    hostileJson,
    fc.constant({}),
    fc.record({ criteria: hostileCriteria }),
    fc.record({ actorIds: fc.oneof(hostileJson, fc.array(fc.oneof(hostileActorId, actorIdParameter, hostileJson), { maxLength: 4 })) }),
    fc.record({ organisationId: fc.oneof(hostileText, longIndexedText, hostileJson) }),
    fc.record({ jobId: fc.oneof(hostileText, longIndexedText, hostileJson) }),
    fc.record({ criteria: searchCriteria, jobId: entryId }),
    fc.dictionary(hostileText, hostileJson, { minKeys: 1, maxKeys: 2 }),
  );
  hugeAssignment ??= toJson({
    name: 'Huge',
    activityIds: [LAUNCH_ACTIVITY],
    people: { actorIds: Array.from({ length: 50_001 }, (_, i) => `mbox|mailto:p${i}@example.com`) },
  });
  const hostile = fc.oneof(
    hostileJson.map(toJson),
    fc
      .record(
        {
          name: fc.oneof(hostileText, hostileJson, fc.constant('x'.repeat(1_001))),
          activityIds: fc.oneof(hostileJson, fc.array(fc.oneof(activityId, hostileIri, hostileJson), { maxLength: 4 })),
          people: hostilePeople,
          dueAt: fc.oneof(hostileDate, hostileJson),
        },
        { requiredKeys: [] },
      )
      .map(toJson),
    fc
      .tuple(valid, fc.constantFrom('name', 'activityIds', 'people', 'dueAt', 'extra'), hostileJson)
      .map(([sent, key, value]) => toJson({ ...sent, [key]: value })),
    fc.tuple(valid, hostilePeople).map(([sent, people]) => toJson({ ...sent, people })),
    fc.constant(hugeAssignment),
    fc.constant(toJson({ name: 'Many', activityIds: Array.from({ length: 1_001 }, (_, i) => `urn:x:${i}`), people: { criteria: {} } })),
  );
  return body(valid.map(toJson), JSON_TYPES, hostile);
}
