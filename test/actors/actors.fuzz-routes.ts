import fc from 'fast-check';
import { hostileHeader, hostileJson, hostileText, toJson } from '../fuzz/hostile-values.js';
import { apiHeaders, body, header, JSON_TYPES, param, plainRoute, route, type RouteFuzzer } from '../fuzz/requests.js';
import {
  actorIdParameter,
  agentParameter,
  hostileActorId,
  hostileAgent,
  hostileAgentParameter,
  MBOXES,
  validAgent,
} from '../fuzz/xapi-values.js';
import { attributeMap, hostileCriteria, onePersonQuery, pageQuery, searchCriteria } from '../fuzz/api-values.js';

/**
 * The route fuzz test's generators (test/fuzz/routes.fuzz.test.ts) of the actors module's routes:
 * the tenant's settings, the actor lists, search and attribute catalogue, writing one agent, one
 * person, and managers' reports.
 */

const settingsBody = body(
  fc
    .record(
      {
        uniqueAttributes: fc.uniqueArray(fc.constantFrom('email', 'employeeId'), { minLength: 1, maxLength: 2 }),
        accountHomePage: fc.constantFrom('https://people.example.com', 'http://localhost:8080'),
        organisationAttribute: fc.constantFrom('positionNumber', null),
        jobAttribute: fc.constantFrom('jobCode', null),
        positionJobAttribute: fc.constantFrom('jobCode', 'job', null),
      },
      { requiredKeys: [] },
    )
    .map(toJson),
  JSON_TYPES,
  fc.oneof(
    hostileJson.map(toJson),
    fc
      .dictionary(
        fc.constantFrom('uniqueAttributes', 'accountHomePage', 'organisationAttribute', 'jobAttribute', 'positionJobAttribute', 'other'),
        hostileJson,
      )
      .map(toJson),
  ),
);

/** `kind` of the actor lists (issue 25): people, authorities or all. */
const actorKind = () =>
  param('kind', fc.constantFrom('people', 'authorities', 'deactivated', 'all'), {
    hostile: fc.constantFrom('', 'People', 'groups', 'all,people', 'x'.repeat(300)),
  });

/** Actor search and the attribute catalogue (issue 14): valid criteria, and hostile ones (api-values.ts). */
const searchBody = body(
  searchCriteria.map((criteria) => toJson({ criteria })),
  JSON_TYPES,
  fc.oneof(
    hostileCriteria.map((criteria) => toJson({ criteria })),
    fc.record({ criteria: searchCriteria, extra: hostileJson }).map(toJson),
    hostileJson.map(toJson),
    // 5,000 levels of not: built as text, JSON.stringify would overflow the stack.
    fc.constant(`{"criteria":${'{"not":'.repeat(5_000)}{}${'}'.repeat(5_000)}}`),
  ),
);
const ACTOR_SEARCH_FUZZERS: Record<string, RouteFuzzer> = {
  'POST /api/actors/search': (ctx) =>
    route({
      method: 'POST',
      path: '/api/actors/search',
      query: { ...pageQuery(), kind: actorKind() },
      headers: apiHeaders(ctx, false),
      body: searchBody,
    }),
  'GET /api/actors/attributes': plainRoute('GET', '/api/actors/attributes', (ctx) => apiHeaders(ctx, false)),
};

/** Writing one agent (issue 14): PUT and POST /api/actors/agents, the same handler. */
const upsertAttributesKey = fc.constantFrom(
  'http://localhost/api/ext/agent/attributes',
  'https://other.example.com:8443/api/ext/agent/attributes',
  'http://example.com/ext/other',
);
const upsertAgent = fc
  .tuple(
    validAgent,
    fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
    fc.option(fc.dictionary(upsertAttributesKey, attributeMap, { maxKeys: 2 }), { nil: undefined }),
  )
  .map(([agent, name, extensions]) => ({
    ...agent,
    ...(name === undefined ? {} : { name }),
    ...(extensions === undefined ? {} : { extensions }),
  }));
const hostileUpsertAgent: fc.Arbitrary<unknown> = fc.oneof(
  hostileAgent,
  hostileJson.map((value) => ({ mbox: MBOXES[0], extensions: { 'http://localhost/api/ext/agent/attributes': value } })),
  hostileJson.map((value) => ({ mbox: MBOXES[0], extensions: { 'http://localhost/api/ext/agent/attributes': { email: value } } })),
  hostileJson.map((value) => ({ mbox: MBOXES[0], extensions: value })),
  hostileText.map((text) => ({ mbox: MBOXES[0], extensions: { [`http://${text}/api/ext/agent/attributes`]: { email: text } } })),
  hostileJson.map((value) => ({ mbox: MBOXES[0], name: value, member: value })),
);
const upsertBody = body(upsertAgent.map(toJson), JSON_TYPES, hostileUpsertAgent.map(toJson));
const upsertRoute =
  (method: 'PUT' | 'POST'): RouteFuzzer =>
  (ctx) =>
    route({
      method,
      path: '/api/actors/agents',
      headers: { ...apiHeaders(ctx, false), 'svc-account-source': header(fc.constantFrom(undefined, 'hr-sync', ' crm '), hostileHeader) },
      body: upsertBody,
    });
const ACTOR_UPSERT_FUZZERS: Record<string, RouteFuzzer> = {
  'PUT /api/actors/agents': upsertRoute('PUT'),
  'POST /api/actors/agents': upsertRoute('POST'),
};

export const ACTORS_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/settings': plainRoute('GET', '/api/settings', (ctx) => apiHeaders(ctx, false)),
  'PUT /api/settings': (ctx) => route({ method: 'PUT', path: '/api/settings', headers: apiHeaders(ctx, false), body: settingsBody }),
  'GET /api/actors': (ctx) =>
    route({ method: 'GET', path: '/api/actors', query: { ...pageQuery(), kind: actorKind() }, headers: apiHeaders(ctx, false) }),
  ...ACTOR_SEARCH_FUZZERS,
  ...ACTOR_UPSERT_FUZZERS,
  // One person (docs/actors.md, "One person"); its PATCH, which deactivates and reactivates, is identity's.
  'GET /api/actors/item': (ctx) =>
    route({ method: 'GET', path: '/api/actors/item', query: onePersonQuery(ctx, 'may be named'), headers: apiHeaders(ctx, false) }),
  // Managers' reports (issue 28, item 5): a learner credential's own, or the person an admin or key names.
  'GET /api/actors/reports': (ctx) =>
    route({
      method: 'GET',
      path: '/api/actors/reports',
      query: {
        agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
};
