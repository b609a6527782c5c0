import fc from 'fast-check';
import { apiHeaders, param, plainRoute, route, type RouteFuzzer } from '../fuzz/requests.js';
import { entryId } from '../fuzz/api-values.js';

/** The route fuzz test's generators (test/fuzz/routes.fuzz.test.ts) of the organisation module's routes: the structure and the jobs. */
export const ORGANISATION_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/organisation': (ctx) =>
    route({
      method: 'GET',
      path: '/api/organisation',
      query: { id: param('id', entryId), format: param('format', fc.constantFrom('tree', 'flat')) },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/jobs': plainRoute('GET', '/api/jobs', (ctx) => apiHeaders(ctx, false)),
};
