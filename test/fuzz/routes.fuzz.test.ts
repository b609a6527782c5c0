import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { exchange, givenOAuth, REDIRECT_URI } from '../auth/oauth-token-fixtures.js';
import { issueApiKey } from '../../src/modules/auth/api-keys/api-key.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { issueScimToken } from '../../src/modules/identity/scim/scim-token.service.js';
import { issueHrWebhook } from '../../src/modules/identity/hr-webhooks/hr-webhook.service.js';
import { configuredSecretBox } from '../../src/platform/secret-box.js';
import type { GivenTenant } from '../support/given.js';
import type { FuzzContext, FuzzRequest } from './requests.js';
import { ROUTE_FUZZERS } from './route-fuzzers.js';
import { LAUNCH_ACTIVITY, LEARNER_MBOX } from './xapi-values.js';

/**
 * Every route, fed generated requests (valid-ish, with hostile parts: see requests.ts; each module's
 * generators are in test/<module>/<module>.fuzz-routes.ts, gathered in route-fuzzers.ts), never
 * answers 5xx. One subtest per route and backend, each of FUZZ_RUNS requests (200 by default;
 * GET routes send one in five as HEAD); each prints how its answers spread over status codes.
 * `npm test` runs it with a fixed seed; a longer run with another seed:
 *
 *   FUZZ_RUNS=5000 FUZZ_SEED=random node --import tsx --test test/fuzz/routes.fuzz.test.ts
 *
 * A failure prints the seed, the path and the shrunk request; replay it with
 * `FUZZ_SEED=<seed> FUZZ_PATH=<path> FUZZ_ROUTE='<METHOD /path>'` (FUZZ_ROUTE runs one route only).
 */

const DEFAULT_SEED = 20_260_612;
const DEFAULT_RUNS = 200;

const SEED =
  process.env.FUZZ_SEED === 'random' ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0 : Number(process.env.FUZZ_SEED ?? DEFAULT_SEED);
const RUNS = Number(process.env.FUZZ_RUNS ?? DEFAULT_RUNS);
const PATH = process.env.FUZZ_PATH || undefined;
const ONLY = process.env.FUZZ_ROUTE || undefined;
/** Per request: a request that hangs fails the property rather than the whole run. */
const REQUEST_TIMEOUT_MS = 20_000;

if (!Number.isInteger(SEED) || !Number.isInteger(RUNS) || RUNS < 1) {
  throw new Error(
    `FUZZ_SEED must be an integer or "random" and FUZZ_RUNS a positive integer (got ${process.env.FUZZ_SEED}, ${process.env.FUZZ_RUNS})`,
  );
}
if (ONLY && !(ONLY in ROUTE_FUZZERS)) throw new Error(`FUZZ_ROUTE "${ONLY}" is none of: ${Object.keys(ROUTE_FUZZERS).join(', ')}`);

/**
 * The routes the app serves, `METHOD /path`, read from `printRoutes`' tree: a route added later
 * shows up here without this file knowing it.
 */
function servedRoutes(app: FastifyInstance): Map<string, Set<string>> {
  const routes = new Map<string, Set<string>>();
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const branch = line.indexOf('── ');
    if (branch < 1) continue;
    const depth = (branch - 1) / 4;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(branch + 3));
    if (!match) continue;
    const path = (depth > 0 ? stack[depth - 1] : '') + match[1];
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of match[2]?.split(', ') ?? []) {
      if (!routes.has(path)) routes.set(path, new Set());
      routes.get(path)!.add(method);
    }
  }
  return routes;
}

/** The generator key of a served route: HEAD is fuzzed with GET's requests. */
const fuzzerKey = (method: string, path: string) => `${method === 'HEAD' ? 'GET' : method} ${path}`;

function excerpt(value: string, max = 300): string {
  const text = JSON.stringify(value.length > max ? value.slice(0, max) : value);
  return value.length > max ? `${text}… (${value.length} characters)` : text;
}

function describeRequest(request: FuzzRequest): string {
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `\n    ${name}: ${excerpt(value, 200)}`)
    .join('');
  let body = '';
  if (Buffer.isBuffer(request.payload)) {
    body = `\n  body: <${request.payload.length} bytes> ${request.payload.subarray(0, 64).toString('hex')} ${excerpt(request.payload.toString('utf8'))}`;
  } else if (request.payload !== undefined) {
    body = `\n  body: ${excerpt(request.payload)}`;
  }
  return `${request.method} ${excerpt(request.url, 600)}\n  headers:${headers || ' (none)'}${body}`;
}

/** fast-check prints counterexamples with this: the request with long parts cut. */
const printable = (request: FuzzRequest): FuzzRequest =>
  Object.assign(request, { [fc.toStringMethod]: () => `\n  ${describeRequest(request)}\n` });

/** GETs the sign-in page and keeps what a browser keeps: the hidden fields and the cookie. */
async function openSignInForm(app: FastifyInstance, clientId: string): Promise<FuzzContext['oauth']['form']> {
  const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, state: 'fuzz' });
  const res = await app.inject({ method: 'GET', url: `/auth/oauth/authorize?${query}`, remoteAddress: '192.0.2.1' });
  assert.equal(res.statusCode, 200, res.body);
  const hidden = (name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(res.body)?.[1] ?? assert.fail(`no ${name} on the sign-in page`);
  const cookie = res.cookies.find((item) => item.name.startsWith('__Host-lb-signin-')) ?? assert.fail('no sign-in cookie');
  return { requestId: hidden('request_id'), csrfToken: hidden('csrf_token'), cookieName: cookie.name, cookieValue: cookie.value };
}

const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/** The learner of FuzzContext: an actor, its learner credential, and a launch of LAUNCH_ACTIVITY. */
async function givenLearner(ctx: TestContext, tenant: GivenTenant): Promise<FuzzContext['learner']> {
  const agent = { mbox: LEARNER_MBOX };
  const upserted = await ctx.app.inject({
    method: 'PUT',
    url: '/api/actors/agents',
    headers: tenant.headers,
    payload: { ...agent, name: 'Fuzz learner' },
  });
  assert.ok(upserted.statusCode < 300, upserted.body);
  const password = 'the fuzz learner password';
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/basic',
    headers: tenant.headers,
    payload: { username: 'fuzz-learner', password, data: { actor: agent } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const registered = await ctx.app.inject({
    method: 'PUT',
    url: '/api/activities',
    headers: tenant.headers,
    payload: [{ id: LAUNCH_ACTIVITY, definition: { name: { 'en-US': 'Fuzz course' } }, launchUrl: 'https://content.example.com/fuzz/' }],
  });
  assert.ok(registered.statusCode < 300, registered.body);
  const launched = await ctx.app.inject({
    method: 'GET',
    url: `/api/activities/launch?${new URLSearchParams({ activityId: LAUNCH_ACTIVITY, auth: basic('fuzz-learner', password) })}`,
    headers: { host: `${tenant.name}.${ctx.config.baseDomain}:8080` },
  });
  assert.equal(launched.statusCode, 302, launched.body);
  return {
    credential: basic('fuzz-learner', password),
    launchToken: new URL(launched.headers.location as string).searchParams.get('auth')!,
  };
}

/**
 * An API key of the tenant limited to the organisation entry P1 (one of the generators' entry ids),
 * in a structure P1 > P2 with the fuzz learner placed in P2: the route generators' imports and
 * settings may later drop the entry or unlink it, which the scoped key must survive as well.
 */
async function givenScopedKey(ctx: TestContext, tenant: GivenTenant): Promise<string> {
  const put = (url: string, payload: unknown) =>
    ctx.app.inject({ method: 'PUT', url, headers: tenant.headers, payload: payload as object });
  assert.equal((await put('/api/settings', { organisationAttribute: 'positionNumber' })).statusCode, 200);
  assert.equal((await put('/api/import/organisation', [{ id: 'P1' }, { id: 'P2', parentId: 'P1' }])).statusCode, 204);
  const placed = await put('/api/actors/agents', {
    mbox: LEARNER_MBOX,
    extensions: { 'http://localhost/api/ext/agent/attributes': { positionNumber: 'P2' } },
  });
  assert.ok(placed.statusCode < 300, placed.body);
  const record = (await new TenancyService(ctx.db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
  const { key, secret } = await issueApiKey(ctx.db, record, 'P1');
  return basic(key, secret);
}

/** The tenant's SCIM token and a User it made (the PATCH, PUT and DELETE generators change that one). */
async function givenScimUser(
  ctx: TestContext,
  tenant: GivenTenant,
): Promise<{ scimToken: string; scimUserId: string; hrWebhook: { path: string; secret: string } }> {
  const record = (await new TenancyService(ctx.db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
  const scimToken = `Bearer ${(await issueScimToken(ctx.db, record)).token}`;
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/scim/v2/Users',
    headers: { authorization: scimToken },
    payload: {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'fuzz@example.com',
      emails: [{ value: 'fuzz@example.com' }],
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  const hook = await issueHrWebhook(ctx.db, configuredSecretBox(ctx.config), record);
  return { scimToken, scimUserId: (created.json() as { id: string }).id, hrWebhook: { path: hook.path, secret: hook.secret } };
}

/**
 * The routes whose OpenAPI description documents a 502, `METHOD /path`: they ask another server (an
 * identity provider, a metadata URL), and one that cannot be reached is a 502 by design.
 */
function gatewayRoutes(app: FastifyInstance): Set<string> {
  const document = app.swagger() as { paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>> };
  const routes = new Set<string>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      if (operation.responses?.['502'] !== undefined) routes.add(fuzzerKey(method.toUpperCase(), path.replace(/\{([^}]+)\}/g, ':$1')));
    }
  }
  return routes;
}

describeEachBackend('route fuzz: no generated request gets a 5xx', (ctx) => {
  let fuzz: FuzzContext;
  let served: Map<string, Set<string>>;
  let gateways: Set<string>;

  before(async () => {
    served = servedRoutes(ctx.app);
    await ctx.app.ready();
    gateways = gatewayRoutes(ctx.app);
    const oauth = await givenOAuth(ctx);
    const other = await ctx.given.tenant();
    const session = await exchange(ctx.app, oauth);
    // A second authorization for the token endpoint to refresh and revoke: the session above stays usable.
    const spare = await exchange(ctx.app, oauth);
    const { code, verifier } = await oauth.code();
    fuzz = {
      tenant: oauth.tenant,
      otherTenantName: other.name,
      baseDomain: ctx.config.baseDomain,
      oauth: {
        clientId: oauth.client.clientId,
        clientSecret: oauth.client.clientSecret,
        redirectUri: REDIRECT_URI,
        adminEmail: oauth.adminEmail,
        adminPassword: oauth.adminPassword,
        accessToken: session.access_token,
        refreshToken: spare.refresh_token,
        code,
        codeVerifier: verifier ?? '',
        form: await openSignInForm(ctx.app, oauth.client.clientId),
      },
      learner: await givenLearner(ctx, oauth.tenant),
      scopedKey: await givenScopedKey(ctx, oauth.tenant),
      ...(await givenScimUser(ctx, oauth.tenant)),
    };
  });

  it('has a generator for every route the app serves, and no generator for a route it does not', () => {
    assert.ok(served.has('/xapi/statements'), `the route table could not be read:\n${ctx.app.printRoutes({ commonPrefix: false })}`);
    assert.deepEqual(
      [...gateways].sort(),
      ['GET /api/activities/launch', 'GET /auth/sso/callback', 'GET /auth/sso/launch/:tenant', 'POST /api/sso/connections/:name/refresh'],
      'the routes that may answer 502 (their OpenAPI description says so)',
    );
    const keys = [...served].flatMap(([path, methods]) => [...methods].map((method) => fuzzerKey(method, path)));
    const missing = [...new Set(keys)].filter((key) => !(key in ROUTE_FUZZERS));
    assert.deepEqual(
      missing,
      [],
      "routes without a generator: add them to the module's test/<module>/<module>.fuzz-routes.ts (the module whose routes file registers them)",
    );
    const stale = Object.keys(ROUTE_FUZZERS).filter((key) => !keys.includes(key));
    assert.deepEqual(stale, [], 'generators of routes the app no longer serves');
  });

  for (const key of Object.keys(ROUTE_FUZZERS)) {
    it(`${key}`, { skip: ONLY !== undefined && ONLY !== key ? `FUZZ_ROUTE=${ONLY}` : false }, async (t) => {
      t.diagnostic(`FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}`);
      const [, path] = key.split(' ', 2) as [string, string];
      const fuzzer = ROUTE_FUZZERS[key]!;
      const requests =
        served.get(path)?.has('HEAD') && key.startsWith('GET ')
          ? fc
              .tuple(fuzzer(fuzz), fc.integer({ min: 0, max: 4 }))
              .map(([request, dice]) => (dice === 0 ? { ...request, method: 'HEAD' } : request))
          : fuzzer(fuzz);
      // How the answers spread over status codes: shows how many requests got past authentication.
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(requests.map(printable), async (request) => {
          const response = await ctx.app.inject({
            method: request.method as 'GET',
            url: request.url,
            headers: request.headers,
            ...(request.payload === undefined ? {} : { payload: request.payload }),
            ...(request.remoteAddress === undefined ? {} : { remoteAddress: request.remoteAddress }),
          });
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          // A 502 is the documented answer of a route that asks another server (an identity provider
          // the generated connections name, which the test cannot reach); any other 5xx is a fault.
          if (response.statusCode >= 500 && !(response.statusCode === 502 && gateways.has(key))) {
            throw new Error(`${response.statusCode} for\n  ${describeRequest(request)}\n  response: ${excerpt(response.body, 1_000)}`);
          }
        }),
        { seed: SEED, numRuns: RUNS, timeout: REQUEST_TIMEOUT_MS, includeErrorInReport: true, ...(PATH ? { path: PATH } : {}) },
      );
      t.diagnostic(
        `statuses: ${[...statuses]
          .sort(([a], [b]) => a - b)
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')}`,
      );
    });
  }
});
