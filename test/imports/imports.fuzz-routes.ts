import fc from 'fast-check';
import { hostileJson, hostileText, toJson } from '../fuzz/hostile-values.js';
import { apiHeaders, body, JSON_TYPES, param, route, type RouteFuzzer } from '../fuzz/requests.js';
import { arrayBody, attributeMap, entryId, pageQuery } from '../fuzz/api-values.js';

/** The route fuzz test's generators (test/fuzz/routes.fuzz.test.ts) of the imports module's routes: the organisation, jobs and users imports, and their history. */

const organisationEntry = fc.record(
  { id: entryId, parentId: fc.oneof(entryId, fc.constant(null)), attributes: attributeMap },
  { requiredKeys: ['id'] },
);
const competency = fc.record(
  { Name: fc.string({ minLength: 1, maxLength: 12 }), Description: fc.string({ maxLength: 20 }) },
  { requiredKeys: ['Name'] },
);
const jobEntry = fc.record(
  {
    id: entryId,
    name: fc.string({ minLength: 1, maxLength: 12 }),
    competencies: fc.array(competency, { maxLength: 3 }),
    attributes: attributeMap,
  },
  { requiredKeys: ['id', 'name'] },
);
const importedUser = fc.record({
  name: fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), hostileText),
  attributes: fc.record(
    { email: fc.emailAddress(), employeeId: fc.stringMatching(/^E\d{1,4}$/), positionNumber: entryId, jobCode: entryId },
    { requiredKeys: [] },
  ),
});
const usersBody = body(
  fc.record({ users: fc.array(importedUser, { maxLength: 6 }), verify: fc.boolean() }, { requiredKeys: ['users'] }).map(toJson),
  JSON_TYPES,
  fc.oneof(
    hostileJson.map(toJson),
    fc
      .record(
        { users: fc.array(fc.oneof(importedUser, hostileJson), { minLength: 1, maxLength: 6 }), verify: hostileJson },
        { requiredKeys: ['users'] },
      )
      .map(toJson),
  ),
);

/** `?verify=` of the organisation and jobs imports: a check only (200 with what would change) or the import (204). */
const verifyQuery = () =>
  param('verify', fc.constantFrom('true', 'false'), { hostile: fc.constantFrom('', 'TRUE', '1', 'yes', 'true ', 'null') });

export const IMPORTS_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'PUT /api/import/organisation': (ctx) =>
    route({
      method: 'PUT',
      path: '/api/import/organisation',
      query: { verify: verifyQuery() },
      headers: apiHeaders(ctx, false),
      body: arrayBody(organisationEntry),
    }),
  'PUT /api/import/jobs': (ctx) =>
    route({
      method: 'PUT',
      path: '/api/import/jobs',
      query: { verify: verifyQuery() },
      headers: apiHeaders(ctx, false),
      body: arrayBody(jobEntry),
    }),
  'POST /api/import/users': (ctx) => route({ method: 'POST', path: '/api/import/users', headers: apiHeaders(ctx, false), body: usersBody }),
  'GET /api/import/history': (ctx) =>
    route({ method: 'GET', path: '/api/import/history', query: pageQuery(), headers: apiHeaders(ctx, false) }),
};
