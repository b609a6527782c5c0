import fc from 'fast-check';
import { hostileDate, hostileJson, hostileNumber, hostileText, toJson } from './hostile-values.js';
import { body, type FuzzContext, JSON_TYPES, param, type Part, part } from './requests.js';
import { ACTIVITIES, actorIdParameter, agentParameter, hostileActorId, hostileAgentParameter } from './xapi-values.js';

/**
 * Values the routes of several modules take (their generators: test/<module>/<module>.fuzz-routes.ts):
 * organisation entries and attributes, paging, competency names, the activity registry's ids,
 * one person's query, actor search criteria and learner credentials' usernames.
 */

const attributeName = fc.oneof(fc.constantFrom('email', 'employeeId', 'positionNumber', 'jobCode', 'city'), hostileText);
export const attributeMap = fc.dictionary(
  attributeName,
  fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 1, arbitrary: hostileText }),
  { maxKeys: 4 },
);
export const entryId = fc.oneof(fc.constantFrom('P1', 'P2', 'P3', 'J1', 'J2'), fc.string({ minLength: 1, maxLength: 8 }));
/** A valid-looking array of `entry`, or the same mixed with hostile values, or hostile JSON. */
export const arrayBody = (entry: fc.Arbitrary<unknown>) =>
  body(
    fc.array(entry, { maxLength: 6 }).map(toJson),
    JSON_TYPES,
    fc.oneof(hostileJson.map(toJson), fc.array(fc.oneof(entry, hostileJson), { minLength: 1, maxLength: 6 }).map(toJson)),
  );
export const pageQuery = () => ({
  limit: param('limit', fc.integer({ min: 1, max: 1000 }).map(String), {
    hostile: fc.constantFrom('0', '-1', '1e2', 'Infinity', '99999999999999999999'),
  }),
  skip: param('skip', fc.integer({ min: 0, max: 50 }).map(String), { hostile: fc.constantFrom('-1', '0x10', '1.5') }),
});

/** Competency names (issue 28) the fuzz tenant may have, in any case. */
export const competencyName = fc.constantFrom('Fire safety', 'FIRE SAFETY', 'TypeScript', 'Ärger', 'ärger');

/** Ids of the activities registry (issue 14): the activities statements name, and others. */
export const registryId = fc.oneof(fc.constantFrom(...ACTIVITIES), fc.constantFrom('http://example.com/reg/a', 'http://example.com/reg/b'));

/**
 * One person (docs/actors.md, "One person"): read, deactivated and reactivated. The PATCH never
 * names the fuzz learner (LEARNER_MBOX), by any spelling: deactivating them would revoke the learner
 * credential (and end the launch) that every later route's requests are made with.
 */
const namesTheLearner = (text: string) => /learner@example\.com/i.test(text);
/**
 * Valid: exactly one of `agent` and `actorId`, among them the SCIM user of the context (a person
 * the tenant has whatever routes ran before). Hostile: a hostile one, both, or neither.
 */
export const onePersonQuery = (ctx: FuzzContext, learner: 'may be named' | 'never named'): Record<string, Part<string[]>> => {
  const keep = (values: fc.Arbitrary<string>) => (learner === 'may be named' ? values : values.filter((text) => !namesTheLearner(text)));
  // givenScimUser's User: an account at the tenant's own address named by its e-mail (the default uniqueAttributes).
  const scimUser = { account: { homePage: `http://${ctx.tenant.name}.${ctx.baseDomain}`, name: 'fuzz@example.com' } };
  const agent = param('agent', fc.oneof(keep(agentParameter), fc.constant(toJson(scimUser))), {
    required: true,
    hostile: keep(hostileAgentParameter),
  });
  const actorId = param('actorId', fc.oneof(keep(actorIdParameter), fc.constant(`account|${scimUser.account.homePage}|fuzz@example.com`)), {
    required: true,
    hostile: keep(hostileActorId),
  });
  return {
    person: part(
      fc.oneof(agent.valid, actorId.valid),
      fc.oneof(
        { weight: 3, arbitrary: agent.hostile },
        { weight: 3, arbitrary: actorId.hostile },
        { weight: 1, arbitrary: fc.tuple(agent.valid, actorId.valid).map(([one, other]) => [...one, ...other]) },
        { weight: 1, arbitrary: fc.constant<string[]>([]) },
      ),
      4,
    ),
  };
};

/**
 * Actor search criteria (issue 14), valid and hostile: what the actor search takes, and the skills
 * gaps of a group and the assignments name their people with.
 */
const SEARCH_FIELDS = [
  'objectType',
  'name',
  'mbox',
  'mbox_sha1sum',
  'openid',
  'account.homePage',
  'account.name',
  'attributes.email',
  'attributes.positionNumber',
  'organisation.id',
  'organisation.attributes.site',
  'organisation.ancestors.id',
  'organisation.ancestors.attributes.site',
  'job.id',
  'job.name',
  'job.attributes.grade',
  'job.competencies.Name',
];
const searchCondition: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    field: fc.constantFrom(...SEARCH_FIELDS),
    op: fc.constantFrom('eq', 'ne', 'contains', 'startsWith'),
    value: fc.oneof(entryId, fc.string({ maxLength: 8 })),
  }),
  fc.record({ field: fc.constantFrom(...SEARCH_FIELDS), op: fc.constant('in'), value: fc.array(entryId, { minLength: 1, maxLength: 4 }) }),
  fc.record(
    { field: fc.constantFrom(...SEARCH_FIELDS), op: fc.constant('exists'), value: fc.boolean() },
    { requiredKeys: ['field', 'op'] },
  ),
  fc.record({
    field: fc.constantFrom(...SEARCH_FIELDS),
    op: fc.constantFrom('lt', 'lte', 'gt', 'gte'),
    value: fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom('2026-11-23', '2026-11-23T17:00:00Z', '0001-01-01', '9999-12-31T23:59:59.999999999-14:59'),
    ),
  }),
);
export const searchCriteria: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'criteria' },
    { weight: 4, arbitrary: searchCondition },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.record({ and: fc.array(tie('node'), { minLength: 1, maxLength: 3, depthIdentifier: 'criteria' }) }) },
    { weight: 1, arbitrary: fc.record({ or: fc.array(tie('node'), { minLength: 1, maxLength: 3, depthIdentifier: 'criteria' }) }) },
    { weight: 1, arbitrary: fc.record({ not: tie('node') }) },
  ),
})).node;
const nested = (depth: number, leaf: unknown) => Array.from({ length: depth }).reduce<unknown>((inner) => ({ not: inner }), leaf);
export const hostileCriteria: fc.Arbitrary<unknown> = fc.oneof(
  hostileJson,
  fc.record({
    field: fc.oneof(
      hostileText,
      hostileText.map((text) => `attributes.${text}`),
    ),
    op: fc.constantFrom('eq', 'exists', 'gt'),
    value: hostileJson,
  }),
  fc.record({
    field: fc.constantFrom(...SEARCH_FIELDS),
    op: fc.oneof(hostileText, fc.constantFrom('like', 'regex', '$where', 'EQ')),
    value: hostileText,
  }),
  fc.record({
    field: fc.constantFrom(...SEARCH_FIELDS),
    op: fc.constantFrom('eq', 'contains', 'startsWith', 'in'),
    value: fc.oneof(hostileText, fc.array(hostileText, { maxLength: 4 })),
  }),
  fc.record({
    field: fc.constantFrom('attributes.score', 'name', 'job.attributes.grade'),
    op: fc.constantFrom('lt', 'gte'),
    value: fc.oneof(hostileDate, hostileNumber, fc.constantFrom(1e308, -1e308, 5e-324)),
  }),
  fc.constantFrom<unknown>(
    { field: 'name', op: 'eq', value: "x' OR '1'='1" },
    { field: "attributes.x' OR true --", op: 'exists' },
    { field: 'name', op: 'contains', value: '%\\_\u0000' },
    { field: 'name', op: 'in', value: Array.from({ length: 5_000 }, (_, i) => `n${i}`) },
    { or: Array.from({ length: 500 }, () => ({ field: 'name', op: 'eq', value: 'x' })) },
    { and: [] },
    { and: [{}], or: [{}] },
    nested(9, { field: 'name', op: 'eq', value: 'x' }),
  ),
  fc.integer({ min: 1, max: 12 }).chain((depth) => searchCondition.map((leaf) => nested(depth, leaf))),
);

/** Learner credentials' usernames (issue 14): what /api/auth/basic names and a launch's `auth` carries. */
export const credentialUsername = fc.oneof(
  fc.uuid(),
  fc.stringMatching(/^[A-Za-z0-9._-]{1,24}$/),
  fc.constantFrom('fuzz-learner', 'launch.x', 'a:b', 'x'.repeat(201)),
);
