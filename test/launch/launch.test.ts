import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { after, before, it } from 'node:test';
import { buildApp } from '../../src/server/app.js';
import { describeEachBackend, testConfig, type TestContext } from '../support/build-test-app.js';
import { basic, givenLaunch, PASSWORD, startContentServer, type LaunchFixture } from './launch-fixtures.js';

type Headers = Record<string, string>;
type Agent = Record<string, unknown>;

const LAUNCHED = 'http://adlnet.gov/expapi/verbs/launched';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Opens the launch link on the tenant's sub-domain, as a browser would. */
const launch = (ctx: TestContext, fixture: LaunchFixture, path = fixture.launchPath, headers: Headers = {}) =>
  ctx.app.inject({ method: 'GET', url: path, headers: { host: `${fixture.tenant.name}.localhost:8080`, ...headers } });

interface Handed {
  endpoint: string;
  auth: string;
  actor: Agent;
  registration: string;
  activityId: string;
}

function handedOver(location: string): Handed {
  const url = new URL(location);
  return {
    endpoint: url.searchParams.get('endpoint')!,
    auth: url.searchParams.get('auth')!,
    actor: JSON.parse(url.searchParams.get('actor')!),
    registration: url.searchParams.get('registration')!,
    activityId: url.searchParams.get('activity_id')!,
  };
}

describeEachBackend(
  'GET /api/activities/launch',
  (ctx) => {
    let content: { server: Server; origin: string };
    before(async () => {
      content = await startContentServer();
    });
    after(() => new Promise<void>((resolve) => content.server.close(() => resolve())));

    it('redirects to the launchUrl with endpoint, auth, actor, registration and activity_id, keeping the URL’s own query', async () => {
      const fixture = await givenLaunch(ctx, content.origin);
      const res = await launch(ctx, fixture);
      assert.equal(res.statusCode, 302, res.body);
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(res.headers['cache-control'], 'no-store');
      const location = new URL(res.headers.location as string);
      assert.equal(`${location.origin}${location.pathname}`, `${content.origin}/course/index.html`);
      assert.equal(location.searchParams.get('lang'), 'en');
      const handed = handedOver(location.toString());
      assert.equal(handed.endpoint, `http://${fixture.tenant.name}.localhost:8080/xapi/`);
      assert.match(handed.auth, /^Basic [A-Za-z0-9+/=]+$/);
      // Content that decodes with decodeURIComponent (no "+" for a space) reads the same values.
      for (const name of ['auth', 'actor', 'endpoint']) {
        const raw = new RegExp(`[?&]${name}=([^&]*)`).exec(res.headers.location as string)![1]!;
        assert.equal(decodeURIComponent(raw), location.searchParams.get(name), name);
      }
      assert.deepEqual(handed.actor, { objectType: 'Agent', name: 'Lea', ...fixture.agent });
      assert.match(handed.registration, UUID);
      assert.equal(handed.activityId, fixture.activityId);
      // The content is there to be opened.
      assert.equal((await fetch(location)).status, 200);

      // A second launch: a new registration and token.
      const second = handedOver((await launch(ctx, fixture)).headers.location as string);
      assert.notEqual(second.registration, handed.registration);
      assert.notEqual(second.auth, handed.auth);
    });

    it('stores a launched statement for the actor, activity and registration, and an audit entry', async () => {
      const fixture = await givenLaunch(ctx, content.origin);
      const handed = handedOver((await launch(ctx, fixture)).headers.location as string);
      const found = await ctx.app.inject({
        method: 'GET',
        url: `/xapi/statements?verb=${encodeURIComponent(LAUNCHED)}`,
        headers: fixture.tenant.xapi,
      });
      assert.equal(found.statusCode, 200, found.body);
      const [launched, ...more] = found.json().statements;
      assert.equal(more.length, 0);
      assert.deepEqual(launched.actor, { objectType: 'Agent', name: 'Lea', ...fixture.agent });
      assert.equal(launched.verb.id, LAUNCHED);
      assert.deepEqual(launched.object, { objectType: 'Activity', id: fixture.activityId });
      assert.equal(launched.context.registration, handed.registration);
      assert.equal(launched.authority.account.name, fixture.username);

      const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=launch', headers: fixture.tenant.headers });
      const [entry] = audit.json();
      const account = fixture.agent.account as { homePage: string; name: string };
      assert.equal(entry.actorId, `account|${account.homePage}|${account.name}`);
      assert.deepEqual(entry.principal, { kind: 'actor', id: fixture.username });
      assert.equal(entry.details.activityId, fixture.activityId);
      assert.equal(entry.details.registration, handed.registration);
      assert.equal(entry.details.statementId, launched.id);
    });

    it('lets the content read and write its state and statements for its activity and registration only', async () => {
      const fixture = await givenLaunch(ctx, content.origin);
      const handed = handedOver((await launch(ctx, fixture)).headers.location as string);
      // Content calls the endpoint it was handed with the token alone: no tenant header.
      const token: Headers = { authorization: handed.auth, 'x-experience-api-version': '1.0.3', host: new URL(handed.endpoint).host };
      const me = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: token });
      assert.equal(me.json().principal.kind, 'launch');

      const state = (method: 'PUT' | 'GET', overrides: Record<string, string | undefined> = {}) => {
        const query: Record<string, string> = {};
        const all = {
          activityId: handed.activityId,
          agent: JSON.stringify(handed.actor),
          stateId: 'bookmark',
          registration: handed.registration,
          ...overrides,
        };
        for (const [key, value] of Object.entries(all)) if (value !== undefined) query[key] = value;
        return ctx.app.inject({
          method,
          url: '/xapi/activities/state',
          query,
          headers: { ...token, 'content-type': 'application/json' },
          ...(method === 'PUT' ? { payload: { page: 7 } } : {}),
        });
      };
      assert.equal((await state('PUT')).statusCode, 204);
      const read = await state('GET');
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json(), { page: 7 });
      const refusals: Array<[Record<string, string | undefined>, RegExp]> = [
        [{ agent: JSON.stringify({ mbox: 'mailto:someone-else@example.com' }) }, /another agent/],
        [{ activityId: `${handed.activityId}/other` }, /another activity/],
        [{ registration: '0b9c3a54-47f4-4c0e-9b3e-6a3c0d6a1e55' }, /another registration/],
        [{ registration: undefined }, /no registration/],
      ];
      for (const [overrides, message] of refusals) {
        for (const method of ['PUT', 'GET'] as const) {
          const res = await state(method, overrides);
          assert.equal(res.statusCode, 403, `${method} ${JSON.stringify(overrides)}: ${res.body}`);
          assert.match(res.json().message, message);
        }
      }

      const post = (body: unknown) => ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: token, payload: body as object });
      const about = (activityId: string, context?: Record<string, unknown>) => ({
        actor: handed.actor,
        verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
        object: { id: activityId },
        ...(context ? { context } : {}),
      });
      const own = await post(about(handed.activityId, { registration: handed.registration }));
      assert.equal(own.statusCode, 200, own.body);
      const withoutRegistration = await post(about(handed.activityId));
      assert.equal(withoutRegistration.statusCode, 200, withoutRegistration.body);
      const asContext = await post(
        about('http://example.com/questions/q1', { contextActivities: { parent: [{ id: handed.activityId }] } }),
      );
      assert.equal(asContext.statusCode, 200, asContext.body);
      const other = await post(about(`${handed.activityId}/other`));
      assert.equal(other.statusCode, 403);
      assert.match(other.json().message, /only store statements about its own activity/);
      const otherRegistration = await post(about(handed.activityId, { registration: '0b9c3a54-47f4-4c0e-9b3e-6a3c0d6a1e55' }));
      assert.equal(otherRegistration.statusCode, 403);
      assert.match(otherRegistration.json().message, /own registration/);
      const otherActor = await post({ ...about(handed.activityId), actor: { mbox: 'mailto:someone-else@example.com' } });
      assert.equal(otherActor.statusCode, 403);

      const query = (parameters: Record<string, string>) =>
        ctx.app.inject({ method: 'GET', url: `/xapi/statements?${new URLSearchParams(parameters)}`, headers: token });
      const mine = await query({ agent: JSON.stringify(handed.actor), activity: handed.activityId, registration: handed.registration });
      assert.equal(mine.statusCode, 200, mine.body);
      // launched, completed (sent with the registration), completed (filled in); the context one has another object.
      assert.equal(mine.json().statements.length, 3);
      for (const stored of mine.json().statements) assert.equal(stored.context.registration, handed.registration);
      // Any other query is narrowed to what the token may read: its actor's statements in its
      // registration about its activity (the object or a context activity).
      const everything = await query({});
      assert.equal(everything.statusCode, 200, everything.body);
      assert.equal(everything.json().statements.length, 4, 'the three, and the one with the activity as parent');
      for (const stored of everything.json().statements) {
        assert.equal(stored.context.registration, handed.registration);
        assert.deepEqual(stored.actor, handed.actor);
      }
      // The API key stored a statement of the same actor in another registration: the token does not see it.
      const elsewhereInTenant = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: fixture.tenant.xapi,
        payload: about(handed.activityId, { registration: '0b9c3a54-47f4-4c0e-9b3e-6a3c0d6a1e55' }),
      });
      assert.equal(elsewhereInTenant.statusCode, 200, elsewhereInTenant.body);
      assert.equal((await query({ activity: handed.activityId })).json().statements.length, 3);
      assert.deepEqual((await query({ registration: '0b9c3a54-47f4-4c0e-9b3e-6a3c0d6a1e55' })).json().statements, []);
      const byId = await ctx.app.inject({
        method: 'GET',
        url: `/xapi/statements?statementId=${elsewhereInTenant.json()[0]}`,
        headers: token,
      });
      assert.equal(byId.statusCode, 404);

      for (const url of ['/api/actors', '/api/audit']) {
        assert.equal((await ctx.app.inject({ method: 'GET', url, headers: token })).statusCode, 403, url);
      }
      // The token belongs to its tenant whatever the request names.
      const elsewhere = await ctx.given.tenant();
      assert.equal((await state('GET', {})).statusCode, 200);
      const crossTenant = await ctx.app.inject({
        method: 'GET',
        url: `/xapi/activities/state?${new URLSearchParams({ activityId: handed.activityId, agent: JSON.stringify(handed.actor), stateId: 'bookmark', registration: handed.registration })}`,
        headers: { authorization: handed.auth, 'x-experience-api-version': '1.0.3', 'x-svc-tenant': elsewhere.name },
      });
      assert.equal(crossTenant.statusCode, 401);
    });

    it('answers a 401 HTML page in a learner’s words, never a redirect, for a bad, revoked or other-tenant credential', async () => {
      const fixture = await givenLaunch(ctx, content.origin);
      const other = await givenLaunch(ctx, content.origin);
      const path = (auth: string, activityId = fixture.activityId) => `/api/activities/launch?${new URLSearchParams({ activityId, auth })}`;
      const cannotSignIn = /This link does not give access to the course/;
      const cases: Array<[string, RegExp]> = [
        [path(basic(fixture.username, 'not the password')), cannotSignIn],
        [path(basic(other.username, PASSWORD)), cannotSignIn],
        [path(fixture.tenant.authorization), cannotSignIn],
        [path('Bearer abc'), cannotSignIn],
        [path('Basic bm9jb2xvbg=='), cannotSignIn],
      ];
      for (const [url, message] of cases) {
        const res = await launch(ctx, fixture, url);
        assert.equal(res.statusCode, 401, `${url}: ${res.body}`);
        assert.equal(res.headers.location, undefined);
        assert.match(res.headers['content-type'] as string, /^text\/html/);
        assert.match(res.body, message);
      }
      const noTenant = await ctx.app.inject({ method: 'GET', url: fixture.launchPath });
      assert.equal(noTenant.statusCode, 401);
      assert.match(noTenant.body, /This link does not say which organisation it belongs to/);

      const revoked = await ctx.app.inject({
        method: 'DELETE',
        url: `/api/auth/basic/${fixture.username}`,
        headers: fixture.tenant.headers,
      });
      assert.equal(revoked.statusCode, 204);
      const afterRevocation = await launch(ctx, fixture);
      assert.equal(afterRevocation.statusCode, 401);
      assert.match(afterRevocation.body, /This link has been withdrawn/);
    });

    it('answers 400 and 404 HTML pages in a learner’s words for missing parameters, an unknown activity and one without launchUrl, echoing nothing of the link', async () => {
      const fixture = await givenLaunch(ctx, content.origin);
      const auth = basic(fixture.username, PASSWORD);
      const cases: Array<[Record<string, string>, number, RegExp]> = [
        [{ auth }, 400, /Part of this link is missing/],
        [{ activityId: fixture.activityId }, 400, /Part of this link is missing/],
        [
          { activityId: 'http://example.com/<script>alert(1)</script>', auth },
          404,
          /This course is not available in your organisation’s catalogue yet\. Tell whoever sent you the link\./,
        ],
        [{ activityId: `${fixture.activityId}/no-content`, auth }, 404, /This course has no online content to open/],
      ];
      for (const [query, status, message] of cases) {
        const res = await launch(ctx, fixture, `/api/activities/launch?${new URLSearchParams(query)}`);
        assert.equal(res.statusCode, status, res.body);
        assert.equal(res.headers.location, undefined);
        assert.match(res.headers['content-type'] as string, /^text\/html/);
        assert.match(res.body, message);
        assert.doesNotMatch(res.body, /<script>|example\.com|activityId|launchUrl/);
      }
      for (const repeated of ['auth', 'activityId']) {
        const twice = await launch(ctx, fixture, `${fixture.launchPath}&${repeated}=`);
        assert.equal(twice.statusCode, 400, `${repeated}: ${twice.body}`);
        assert.match(twice.body, /part of it appears twice/);
        assert.doesNotMatch(twice.body, new RegExp(repeated));
      }
      const unknownTenant = await launch(ctx, fixture, fixture.launchPath, { host: 'no-such-tenant.localhost:8080' });
      assert.equal(unknownTenant.statusCode, 404);
      assert.match(unknownTenant.body, /This link names an organisation this service does not know/);
    });

    it('answers a link the input guards refuse before the route runs (a NUL in it) with the same HTML page, not JSON', async () => {
      const fixture = await givenLaunch(ctx, content.origin);
      const res = await launch(ctx, fixture, `${fixture.launchPath}&note=%00`);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.match(String(res.headers['content-security-policy']), /^default-src 'none'/);
      assert.match(res.body, /<h1>This link is damaged<\/h1>/);
      assert.doesNotMatch(res.body, /request\.invalid|querystring|note/);
    });

    it('interface 5.3, step 3 (the launch URL): tells the learner what happened in a learner’s words, and logs the API path and the code', async () => {
      const fixture = await givenLaunch(ctx, content.origin);
      const lines: Array<Record<string, unknown>> = [];
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
          done();
        },
      });
      const logged = await buildApp(testConfig({ logLevel: 'info' }), ctx.db, { logger: { stream } });
      try {
        const unknown = `${fixture.activityId}/not-registered`;
        const res = await logged.inject({
          method: 'GET',
          url: `/api/activities/launch?${new URLSearchParams({ activityId: unknown, auth: basic(fixture.username, PASSWORD) })}`,
          headers: { host: `${fixture.tenant.name}.localhost:8080`, 'x-request-id': 'launch-wording' },
        });
        assert.equal(res.statusCode, 404, res.body);
        assert.match(res.body, /<h1>This course is not available<\/h1>/);
        assert.match(res.body, /This course is not available in your organisation’s catalogue yet\. Tell whoever sent you the link\./);
        assert.doesNotMatch(res.body, /PUT \/api\/activities|launch\.activity_not_found|activityId|catalogue \(/);

        const entry = lines.find((line) => line.reqId === 'launch-wording' && line.code === 'launch.activity_not_found');
        assert.ok(entry, JSON.stringify(lines));
        assert.equal(entry.level, 30, 'info');
        assert.match(String(entry.msg), /PUT \/api\/activities/);
        assert.ok(String(entry.msg).includes(unknown));
        const credential = basic(fixture.username, PASSWORD).slice('Basic '.length);
        for (const secret of [credential, encodeURIComponent(credential)])
          assert.ok(!JSON.stringify(lines).includes(secret), 'the learner’s credential is not logged');
      } finally {
        await logged.close();
      }
    });

    it('ends the launch token when the credential that launched is revoked', async () => {
      const fixture = await givenLaunch(ctx, content.origin);
      const handed = handedOver((await launch(ctx, fixture)).headers.location as string);
      const token = { authorization: handed.auth };
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/me', headers: token })).statusCode, 200);
      await ctx.app.inject({ method: 'DELETE', url: `/api/auth/basic/${fixture.username}`, headers: fixture.tenant.headers });
      const refused = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: token });
      assert.equal(refused.statusCode, 401);
      assert.match(refused.json().message, /revoked/);
    });
  },
  { cacheTtlMs: 60_000 },
);

describeEachBackend(
  'An expired launch token',
  (ctx) => {
    let content: { server: Server; origin: string };
    before(async () => {
      content = await startContentServer();
    });
    after(() => new Promise<void>((resolve) => content.server.close(() => resolve())));

    it('is refused with 401 saying it expired, even while cached', async () => {
      const fixture = await givenLaunch(ctx, content.origin);
      const handed = handedOver((await launch(ctx, fixture)).headers.location as string);
      const token = { authorization: handed.auth };
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/me', headers: token })).statusCode, 200);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const refused = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: token });
      assert.equal(refused.statusCode, 401);
      assert.match(refused.json().message, /The launch token expired/);
    });
  },
  { cacheTtlMs: 60_000, launchTokenTtlS: 1 },
);
