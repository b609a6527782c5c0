import fc from 'fast-check';
import { hostileText } from '../fuzz/hostile-values.js';
import { apiHeaders, param, route, type RouteFuzzer } from '../fuzz/requests.js';
import { activityId, hostileExtensions, hostileIri, hostileLanguageMap, languageMap, validExtensions } from '../fuzz/xapi-values.js';
import { arrayBody, attributeMap, competencyName, pageQuery, registryId } from '../fuzz/api-values.js';

/** The activities registry (issue 14). */
const mostly = (valid: fc.Arbitrary<unknown>, hostile: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostile });
const registryEntry = fc.record(
  {
    id: mostly(registryId, hostileIri),
    definition: fc.record(
      {
        name: mostly(languageMap, hostileLanguageMap),
        description: languageMap,
        type: mostly(activityId, hostileIri),
        extensions: mostly(validExtensions, hostileExtensions),
      },
      { requiredKeys: [] },
    ),
    attributes: attributeMap,
    tags: fc.array(fc.oneof(fc.constantFrom('mandatory', 'safety'), hostileText), { maxLength: 3 }),
    parentId: fc.oneof(registryId, fc.constant(null), hostileIri),
    launchUrl: fc.oneof(
      fc.constantFrom(
        'https://content.example.com/a/index.html',
        'http://127.0.0.1:8080/x',
        'ftp://x.example/y',
        'javascript:alert(1)',
        '/relative',
      ),
      hostileIri,
    ),
    competencies: fc.array(fc.oneof(competencyName, fc.string({ minLength: 1, maxLength: 12 }), hostileText), { maxLength: 3 }),
    requiresSuccess: fc.oneof(fc.boolean(), fc.constantFrom<unknown>('true', 1, null)),
  },
  { requiredKeys: ['id', 'definition'] },
);
export const ACTIVITIES_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'PUT /api/activities': (ctx) =>
    route({ method: 'PUT', path: '/api/activities', headers: apiHeaders(ctx, false), body: arrayBody(registryEntry) }),
  'GET /api/activities': (ctx) =>
    route({
      method: 'GET',
      path: '/api/activities',
      query: {
        tag: param('tag', fc.constantFrom('mandatory', 'safety')),
        parentId: param('parentId', registryId, { hostile: hostileIri }),
        q: param('q', fc.constantFrom('fuzz', 'COURSE', '%', 'é'), { hostile: hostileText }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/activities/item': (ctx) =>
    route({
      method: 'GET',
      path: '/api/activities/item',
      query: { activityId: param('activityId', registryId, { required: true, hostile: hostileIri, weight: 4 }) },
      headers: apiHeaders(ctx, false),
    }),
};
