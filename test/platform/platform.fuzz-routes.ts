import fc from 'fast-check';
import { hostileHeader, hostileText, percentEncode } from '../fuzz/hostile-values.js';
import {
  absent,
  type FuzzContext,
  type FuzzRequest,
  header,
  param,
  plainRoute,
  publicHeaders,
  route,
  type RouteFuzzer,
} from '../fuzz/requests.js';

/**
 * The route fuzz test's generators (test/fuzz/routes.fuzz.test.ts) of the platform's routes: the
 * home page, health and metrics, the OpenAPI document, the API reference and its guides, the console's files.
 */

/** A path segment under a folder of static files: `names` in it, traversal and encoded oddities, hostile text. */
const staticSegment = (...names: string[]) =>
  fc.oneof(
    fc.constantFrom(
      ...names,
      '..',
      '.',
      '%2e%2e',
      '%2E%2E%2F',
      '..%2f..%2fetc%2fpasswd',
      '..%2f..%2fpackage.json',
      '%00',
      '%',
      '%zz',
      '',
      'x'.repeat(300),
    ),
    hostileText.map(percentEncode),
  );

/** The API reference's static files: paths under /docs/, with traversal and encoded oddities. */
function docsWildcardRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const segment = staticSegment('static', 'index.html', 'swagger-ui.css', 'favicon-32x32.png');
  return route({
    method: 'GET',
    path: fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => `/docs/${segments.join('/')}`),
    headers: publicHeaders(ctx),
  });
}

/**
 * The console's page and files: deep links, asset names known and not, traversal and encoded
 * oddities, with hostile Accept-Encoding and If-None-Match.
 */
function consoleWildcardRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const segment = staticSegment('assets', 'people', 'reports', 'index.html');
  return route({
    method: 'GET',
    path: fc.array(segment, { minLength: 0, maxLength: 4 }).map((segments) => `/console/${segments.join('/')}`),
    query: { tenant: param('tenant', fc.constantFrom(ctx.tenant.name, 'acme'), { hostile: hostileText }) },
    headers: {
      ...publicHeaders(ctx),
      'accept-encoding': header(fc.constantFrom(undefined, 'gzip, deflate, br', 'br;q=0, gzip;q=0', 'identity'), hostileHeader),
      'if-none-match': header(fc.constant(undefined), fc.oneof(absent, fc.constant('*'), hostileHeader)),
    },
  });
}

/** The rendered guides: known names, unknown ones, traversal and encoded oddities, with or without If-None-Match. */
function guideRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const name = fc.oneof(
    fc.constantFrom(
      'oauth',
      'operations',
      'nothing',
      'OAUTH',
      'oauth.md',
      '..%2Fpackage.json',
      '%2e%2e',
      '%00',
      '%',
      '%zz',
      'x'.repeat(300),
    ),
    hostileText.map(percentEncode),
  );
  return route({
    method: 'GET',
    path: name.map((page) => `/docs/guides/${page}`),
    headers: { ...publicHeaders(ctx), 'if-none-match': header(fc.constant(undefined), fc.oneof(absent, fc.constant('*'), hostileHeader)) },
  });
}
// ---------------------------------------------------------------------------------------------
// Metrics and health (issue 17, item 5). The fuzzed app has no LEARNBASE_METRICS_TOKEN and its
// requests come from loopback: /metrics is served (text) unless a forwarding header asks for the
// token (403); a Bearer header, right or hostile, changes nothing then.
const OBSERVABILITY_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /metrics': (ctx) =>
    route({
      method: 'GET',
      path: '/metrics',
      headers: {
        ...publicHeaders(ctx),
        authorization: header(absent, fc.oneof(fc.constant('Bearer not-the-token'), hostileHeader)),
        'x-forwarded-for': header(absent, fc.oneof(fc.constantFrom('127.0.0.1', '::1, 10.0.0.1'), hostileHeader)),
      },
    }),
  'GET /health/live': plainRoute('GET', '/health/live', publicHeaders),
  'GET /health/ready': plainRoute('GET', '/health/ready', publicHeaders),
};

export const PLATFORM_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /': plainRoute('GET', '/', publicHeaders),
  'GET /health': plainRoute('GET', '/health', publicHeaders),
  'GET /openapi.json': plainRoute('GET', '/openapi.json', publicHeaders),
  'GET /docs': plainRoute('GET', '/docs', publicHeaders),
  'GET /docs/': plainRoute('GET', '/docs/', publicHeaders),
  'GET /docs/static/index.html': plainRoute('GET', '/docs/static/index.html', publicHeaders),
  'GET /docs/static/swagger-initializer.js': plainRoute('GET', '/docs/static/swagger-initializer.js', publicHeaders),
  'GET /docs/static/theme/favicon.svg': plainRoute('GET', '/docs/static/theme/favicon.svg', publicHeaders),
  'GET /docs/json': plainRoute('GET', '/docs/json', publicHeaders),
  'GET /docs/yaml': plainRoute('GET', '/docs/yaml', publicHeaders),
  'GET /docs/*': docsWildcardRoute,
  'GET /docs/guides/': plainRoute('GET', '/docs/guides/', publicHeaders),
  'GET /docs/guides/:name': guideRoute,
  'GET /console': plainRoute('GET', '/console', publicHeaders),
  'GET /console/': plainRoute('GET', '/console/', publicHeaders),
  'GET /console/*': consoleWildcardRoute,
  ...OBSERVABILITY_FUZZERS,
};
