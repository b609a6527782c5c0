import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { exchange, givenOAuth } from '../auth/oauth-token-fixtures.js';
import type { FuzzContext } from '../fuzz/requests.js';
import { alternateSyntaxRequest } from './xapi.fuzz-routes.js';

type Fields = Record<string, string>;

const FORM = 'application/x-www-form-urlencoded';
const ACTIVITY = 'https://example.com/courses/alternate';

/** A valid statement by a fresh learner, with overrides. */
function statement(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const n = randomUUID().slice(0, 8);
  return {
    actor: { objectType: 'Agent', mbox: `mailto:learner-${n}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { objectType: 'Activity', id: `${ACTIVITY}/${n}` },
    ...overrides,
  };
}

/** The form of an alternate request: fields in order, encoded as a browser encodes a form. */
const form = (fields: Fields) => new URLSearchParams(fields).toString();

function alternate(ctx: TestContext) {
  /** `POST path?method=…` with the form, and only Content-Type (plus `headers`) as real headers. */
  return (path: string, method: string, fields: Fields, headers: Record<string, string> = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: `${path}?method=${method}`,
      headers: { 'content-type': FORM, ...headers },
      payload: form(fields),
    });
}

/** The form fields of a tenant's credential, tenant and version 1.0.3. */
const credentialFields = (tenant: GivenTenant): Fields => ({
  Authorization: tenant.authorization,
  'X-SVC-Tenant': tenant.name,
  'X-Experience-API-Version': '1.0.3',
});

const direct = (ctx: TestContext, tenant: GivenTenant, method: 'GET' | 'PUT' | 'DELETE', url: string, version = '1.0.3') =>
  ctx.app.inject({ method, url, headers: { ...tenant.xapi, 'x-experience-api-version': version } });

/** A form POST to `path` exactly as written: no client-side URL normalisation. */
function rawPost(port: number, path: string, body: string): Promise<{ status: number; body: { code: string; message: string } }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': FORM } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describeEachBackend('the xAPI 1.0.3 alternate request syntax', (ctx) => {
  const send = alternate(ctx);

  describe('statements', () => {
    it('stores a statement sent as method=PUT, as the direct PUT would', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      const sent = statement();
      const res = await send('/xapi/statements', 'PUT', { ...credentialFields(tenant), statementId: id, content: JSON.stringify(sent) });
      assert.equal(res.statusCode, 204, res.body);
      assert.equal(res.headers['x-experience-api-version'], '1.0.3');
      assert.ok(res.headers['x-experience-api-consistent-through']);
      const got = await direct(ctx, tenant, 'GET', `/xapi/statements?statementId=${id}`);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json().actor, sent.actor);
      assert.equal(got.json().id, id);
    });

    it('stores a batch sent as method=POST and answers the ids', async () => {
      const tenant = await ctx.given.tenant();
      const res = await send('/xapi/statements', 'POST', {
        ...credentialFields(tenant),
        content: JSON.stringify([statement(), statement()]),
      });
      assert.equal(res.statusCode, 200, res.body);
      const ids = res.json() as string[];
      assert.equal(ids.length, 2);
      for (const id of ids) assert.equal((await direct(ctx, tenant, 'GET', `/xapi/statements?statementId=${id}`)).statusCode, 200);
    });

    it('reads statements with method=GET, its query parameters taken from the form', async () => {
      const tenant = await ctx.given.tenant();
      const sent = statement();
      const stored = await send('/xapi/statements', 'POST', { ...credentialFields(tenant), content: JSON.stringify([sent, statement()]) });
      assert.equal(stored.statusCode, 200, stored.body);
      const [first] = stored.json() as string[];

      const page = await send('/xapi/statements', 'GET', { ...credentialFields(tenant), limit: '1' });
      assert.equal(page.statusCode, 200, page.body);
      assert.equal(page.json().statements.length, 1);
      assert.match(page.json().more, /^\/xapi\/statements\?/);

      const byAgent = await send('/xapi/statements', 'GET', {
        ...credentialFields(tenant),
        agent: JSON.stringify(sent.actor),
        format: 'ids',
      });
      assert.equal(byAgent.statusCode, 200, byAgent.body);
      assert.deepEqual(
        byAgent.json().statements.map((item: { id: string }) => item.id),
        [first],
      );

      const one = await send('/xapi/statements', 'GET', { ...credentialFields(tenant), statementId: first! });
      assert.equal(one.statusCode, 200);
      assert.equal(one.json().id, first);
      assert.ok(one.headers['last-modified']);
    });

    it('answers what the direct request answers to a bad statement, storing nothing', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      const bad = statement({ verb: { id: 'not an iri' } });
      const viaForm = await send('/xapi/statements', 'PUT', { ...credentialFields(tenant), statementId: id, content: JSON.stringify(bad) });
      const viaPut = await ctx.app.inject({
        method: 'PUT',
        url: `/xapi/statements?statementId=${id}`,
        headers: { ...tenant.xapi, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' },
        payload: JSON.stringify(bad),
      });
      assert.equal(viaForm.statusCode, 400);
      assert.equal(viaForm.statusCode, viaPut.statusCode);
      assert.deepEqual(viaForm.json(), viaPut.json());
      assert.equal((await direct(ctx, tenant, 'GET', `/xapi/statements?statementId=${id}`)).statusCode, 404);
    });

    it('refuses a query parameter the resource does not define, as the direct request does', async () => {
      const tenant = await ctx.given.tenant();
      const res = await send('/xapi/statements', 'GET', { ...credentialFields(tenant), color: 'blue' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'request.invalid');
    });
  });

  describe('documents', () => {
    const agent = JSON.stringify({ mbox: 'mailto:learner@example.com' });

    it('puts, reads, guards with If-Match and deletes a state document through the form', async () => {
      const tenant = await ctx.given.tenant();
      const scope = { activityId: `${ACTIVITY}/${randomUUID()}`, agent, stateId: 'bookmark' };
      const put = await send('/xapi/activities/state', 'PUT', {
        ...credentialFields(tenant),
        ...scope,
        'Content-Type': 'application/json',
        content: '{"page":3}',
      });
      assert.equal(put.statusCode, 204, put.body);

      const got = await send('/xapi/activities/state', 'GET', { ...credentialFields(tenant), ...scope });
      assert.equal(got.statusCode, 200, got.body);
      assert.deepEqual(got.json(), { page: 3 });
      assert.match(String(got.headers['content-type']), /^application\/json/);
      const etag = String(got.headers.etag);
      assert.match(etag, /^"[0-9a-f]{40}"$/);
      const viaGet = await direct(ctx, tenant, 'GET', `/xapi/activities/state?${new URLSearchParams(scope)}`);
      assert.equal(viaGet.headers.etag, etag);

      const stale = await send('/xapi/activities/state', 'PUT', {
        ...credentialFields(tenant),
        ...scope,
        'If-Match': '"stale"',
        content: '{"page":4}',
      });
      assert.equal(stale.statusCode, 412);
      const fresh = await send('/xapi/activities/state', 'PUT', {
        ...credentialFields(tenant),
        ...scope,
        'If-Match': etag,
        content: '{"page":4}',
      });
      assert.equal(fresh.statusCode, 204, fresh.body);
      const absentOnly = await send('/xapi/activities/state', 'PUT', {
        ...credentialFields(tenant),
        ...scope,
        'If-None-Match': '*',
        content: '{"page":5}',
      });
      assert.equal(absentOnly.statusCode, 412);

      const merged = await send('/xapi/activities/state', 'POST', { ...credentialFields(tenant), ...scope, content: '{"score":9}' });
      assert.equal(merged.statusCode, 204, merged.body);
      assert.deepEqual((await direct(ctx, tenant, 'GET', `/xapi/activities/state?${new URLSearchParams(scope)}`)).json(), {
        page: 4,
        score: 9,
      });

      const deleted = await send('/xapi/activities/state', 'DELETE', { ...credentialFields(tenant), ...scope });
      assert.equal(deleted.statusCode, 204, deleted.body);
      assert.equal((await direct(ctx, tenant, 'GET', `/xapi/activities/state?${new URLSearchParams(scope)}`)).statusCode, 404);
    });

    it('keeps the Content-Type the form names for a document, and the 1.0.3 rules apply', async () => {
      const tenant = await ctx.given.tenant();
      const scope = { activityId: `${ACTIVITY}/${randomUUID()}`, profileId: 'notes' };
      const fields = { ...credentialFields(tenant), ...scope, 'Content-Type': 'text/plain; charset=utf-8', content: 'été & co' };
      // xAPI 1.0.3 wants a precondition on a profile PUT (2.0.0 does not): the rules of the version named apply.
      const unguarded = await send('/xapi/activities/profile', 'PUT', fields);
      assert.equal(unguarded.statusCode, 400);
      assert.equal(unguarded.json().code, 'documents.precondition_required');
      const put = await send('/xapi/activities/profile', 'PUT', { ...fields, 'If-None-Match': '*' });
      assert.equal(put.statusCode, 204, put.body);
      const got = await direct(ctx, tenant, 'GET', `/xapi/activities/profile?${new URLSearchParams(scope)}`);
      assert.equal(got.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(got.body, 'été & co');
    });

    it('reaches resources that have no POST route of their own (activities, agents)', async () => {
      const tenant = await ctx.given.tenant();
      const activityId = `${ACTIVITY}/${randomUUID()}`;
      const activity = await send('/xapi/activities', 'GET', { ...credentialFields(tenant), activityId });
      assert.equal(activity.statusCode, 200, activity.body);
      assert.equal(activity.json().id, activityId);
      const person = await send('/xapi/agents', 'GET', { ...credentialFields(tenant), agent });
      assert.equal(person.statusCode, 200, person.body);
      assert.equal(person.json().objectType, 'Person');
      const about = await send('/xapi/about', 'GET', { 'X-Experience-API-Version': '1.0.3' });
      assert.equal(about.statusCode, 200);
      assert.deepEqual(about.json().version, ['1.0.3', '2.0.0']);
    });
  });

  describe('headers', () => {
    it('takes the credential from the Authorization header when the form has none', async () => {
      const tenant = await ctx.given.tenant();
      const res = await send('/xapi/statements', 'GET', { limit: '1' }, { ...tenant.xapi, 'x-experience-api-version': '1.0.3' });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('prefers the form over the headers', async () => {
      const tenant = await ctx.given.tenant();
      const res = await send(
        '/xapi/statements',
        'GET',
        { ...credentialFields(tenant), limit: '1' },
        { authorization: 'Basic Z2FyYmFnZTpnYXJiYWdl' },
      );
      assert.equal(res.statusCode, 200, res.body);
    });

    it('answers 401 without a credential, in the form or the headers', async () => {
      const res = await send('/xapi/statements', 'GET', { 'X-Experience-API-Version': '1.0.3' });
      assert.equal(res.statusCode, 401);
      assert.ok(res.headers['www-authenticate']);
    });

    it("refuses another tenant's credential and never shows its statements", async () => {
      const owner = await ctx.given.tenant();
      const other = await ctx.given.tenant();
      const id = randomUUID();
      const put = await send('/xapi/statements', 'PUT', {
        ...credentialFields(owner),
        statementId: id,
        content: JSON.stringify(statement()),
      });
      assert.equal(put.statusCode, 204);
      const crossed = await send('/xapi/statements', 'GET', { ...credentialFields(other), 'X-SVC-Tenant': owner.name, statementId: id });
      assert.equal(crossed.statusCode, 401);
      const own = await send('/xapi/statements', 'GET', { ...credentialFields(other), statementId: id });
      assert.equal(own.statusCode, 404);
      const write = await send('/xapi/statements', 'PUT', {
        ...credentialFields(other),
        'X-SVC-Tenant': owner.name,
        statementId: randomUUID(),
        content: JSON.stringify(statement()),
      });
      assert.equal(write.statusCode, 401);
    });

    it('answers with the headers of the inner answer and the outer request id', async () => {
      const tenant = await ctx.given.tenant();
      const res = await send(
        '/xapi/statements',
        'GET',
        { ...credentialFields(tenant), limit: '1' },
        { 'x-request-id': 'alt-request-1', origin: 'https://content.example.org' },
      );
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-request-id'], 'alt-request-1');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.equal(res.headers.deprecation, '@1767225600');
      assert.match(String(res.headers['content-type']), /^application\/json/);
    });

    it('works over a real socket, as a browser form POST', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      const base = await ctx.url();
      const put = await fetch(`${base}/xapi/statements?method=PUT`, {
        method: 'POST',
        body: new URLSearchParams({ ...credentialFields(tenant), statementId: id, content: JSON.stringify(statement()) }),
      });
      assert.equal(put.status, 204, await put.text());
      const got = await fetch(`${base}/xapi/statements?method=GET`, {
        method: 'POST',
        body: new URLSearchParams({ ...credentialFields(tenant), statementId: id }),
      });
      assert.equal(got.status, 200);
      assert.equal(((await got.json()) as { id: string }).id, id);
    });
  });

  describe('xAPI 2.0.0', () => {
    it('refuses the syntax when the header names 2.0.0', async () => {
      const tenant = await ctx.given.tenant();
      const res = await send('/xapi/statements', 'GET', { limit: '1' }, tenant.xapi);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'xapi.alternate_syntax_removed');
      assert.equal(res.headers['x-experience-api-version'], '2.0.0');
    });

    it('refuses the syntax when the form names 2.0.0, storing nothing', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      const res = await send('/xapi/statements', 'PUT', {
        ...credentialFields(tenant),
        'X-Experience-API-Version': '2.0.0',
        statementId: id,
        content: JSON.stringify(statement()),
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'xapi.alternate_syntax_removed');
      assert.equal((await direct(ctx, tenant, 'GET', `/xapi/statements?statementId=${id}`, '2.0.0')).statusCode, 404);
    });

    it("refuses the syntax when no version is named and the server's default is 2.0.0", async () => {
      const tenant = await ctx.given.tenant();
      const res = await send('/xapi/statements', 'GET', { Authorization: tenant.authorization, limit: '1' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'xapi.alternate_syntax_removed');
    });

    it('refuses method=… on a non-POST request under 2.0.0 too', async () => {
      const tenant = await ctx.given.tenant();
      const res = await ctx.app.inject({
        method: 'PUT',
        url: '/xapi/statements?method=POST',
        headers: { ...tenant.xapi, 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'xapi.alternate_syntax_removed');
    });

    it('answers 400 naming a version this LRS does not speak, given in the form', async () => {
      const tenant = await ctx.given.tenant();
      const res = await send('/xapi/statements', 'PUT', {
        ...credentialFields(tenant),
        'X-Experience-API-Version': '0.8',
        statementId: randomUUID(),
        content: JSON.stringify(statement()),
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'xapi.version_unsupported');
    });
  });

  describe('malformed alternate requests', () => {
    const refused = async (res: { statusCode: number; json(): { code: string; message: string } }, pattern: RegExp) => {
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'xapi.alternate_syntax_invalid');
      assert.match(res.json().message, pattern);
    };

    it('refuses other query parameters on the URL, storing nothing', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/xapi/statements?method=PUT&statementId=${id}`,
        headers: { 'content-type': FORM },
        payload: form({ ...credentialFields(tenant), statementId: id, content: JSON.stringify(statement()) }),
      });
      await refused(res, /only query parameter/);
      assert.equal((await direct(ctx, tenant, 'GET', `/xapi/statements?statementId=${id}`)).statusCode, 404);
      const twice = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements?method=GET&method=GET',
        headers: { 'content-type': FORM },
        payload: form(credentialFields(tenant)),
      });
      await refused(twice, /only query parameter/);
    });

    it('refuses a method it does not tunnel', async () => {
      const tenant = await ctx.given.tenant();
      for (const method of ['PATCH', 'HEAD', 'put', '', 'OPTIONS']) {
        await refused(await send('/xapi/statements', method, credentialFields(tenant)), /method must be GET, PUT, POST or DELETE/);
      }
    });

    it('refuses method=… on a request that is not a POST', async () => {
      const tenant = await ctx.given.tenant();
      const res = await ctx.app.inject({
        method: 'PUT',
        url: '/xapi/statements?method=POST',
        headers: { 'x-experience-api-version': '1.0.3', authorization: tenant.authorization, 'content-type': FORM },
        payload: form({ content: JSON.stringify(statement()) }),
      });
      await refused(res, /must be sent as POST/);
    });

    it('refuses a body that is not a form', async () => {
      const tenant = await ctx.given.tenant();
      const json = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements?method=PUT',
        headers: { ...tenant.xapi, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' },
        payload: JSON.stringify(statement()),
      });
      await refused(json, /x-www-form-urlencoded/);
      const none = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements?method=PUT',
        headers: { ...tenant.xapi, 'x-experience-api-version': '1.0.3' },
      });
      await refused(none, /x-www-form-urlencoded/);
    });

    it('refuses a PUT or POST without content, and a GET or DELETE with it', async () => {
      const tenant = await ctx.given.tenant();
      await refused(
        await send('/xapi/statements', 'PUT', { ...credentialFields(tenant), statementId: randomUUID() }),
        /"content", and there is none/,
      );
      await refused(await send('/xapi/statements', 'POST', credentialFields(tenant)), /"content", and there is none/);
      await refused(await send('/xapi/statements', 'GET', { ...credentialFields(tenant), content: '{}' }), /has no body/);
      // A JSON body labelled as a form reads as one nameless field: no content.
      const labelled = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements?method=PUT',
        headers: { ...tenant.xapi, 'x-experience-api-version': '1.0.3', 'content-type': FORM },
        payload: JSON.stringify({ statementId: randomUUID(), content: JSON.stringify(statement()) }),
      });
      assert.equal(labelled.statusCode, 400);
    });

    it('refuses repeated, misplaced and undecodable fields', async () => {
      const tenant = await ctx.given.tenant();
      const credential = form(credentialFields(tenant));
      const raw = (body: string) =>
        ctx.app.inject({ method: 'POST', url: '/xapi/statements?method=GET', headers: { 'content-type': FORM }, payload: body });
      await refused(await raw(`${credential}&method=PUT`), /method goes on the URL/);
      await refused(await raw(`${credential}&authorization=x`), /"authorization" is repeated/);
      await refused(await raw(`${credential}&limit=%ZZ`), /not percent-encoded UTF-8/);
      await refused(await raw(`${credential}&limit=%ED%A0%80`), /not percent-encoded UTF-8/);
      await refused(await raw(`${credential}&=1`), /has no name/);
      const versionOnly = form({ Authorization: tenant.authorization, 'X-Experience-API-Version': '1.0.3' });
      await refused(await raw(`${versionOnly}&X-SVC-Tenant=a%0Ab`), /cannot carry/);
      const notUtf8 = Buffer.concat([Buffer.from(`${credential}&limit=`), Buffer.from([0xff, 0xfe])]);
      await refused(await raw(notUtf8 as unknown as string), /not UTF-8/);
      const twice = `${form({ ...credentialFields(tenant), statementId: randomUUID() })}&content=%7B%7D&content=%7B%7D`;
      await refused(
        await ctx.app.inject({ method: 'POST', url: '/xapi/statements?method=PUT', headers: { 'content-type': FORM }, payload: twice }),
        /"content" is repeated/,
      );
    });

    it('refuses a NUL in a query field as the direct request does', async () => {
      const tenant = await ctx.given.tenant();
      const res = await send('/xapi/statements', 'GET', { ...credentialFields(tenant), verb: 'http://example.com/\u0000' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'request.invalid');
    });

    it('answers 413 to a form larger than the route accepts, storing nothing', async () => {
      const tenant = await ctx.given.tenant();
      const scope = {
        activityId: `${ACTIVITY}/${randomUUID()}`,
        agent: JSON.stringify({ mbox: 'mailto:big@example.com' }),
        stateId: 'big',
      };
      const big = JSON.stringify({ blob: 'x'.repeat(ctx.config.documentLimitBytes) });
      const inner = await send('/xapi/activities/state', 'PUT', { ...credentialFields(tenant), ...scope, content: big });
      assert.equal(inner.statusCode, 413);
      const huge = await send('/xapi/activities/state', 'PUT', {
        ...credentialFields(tenant),
        ...scope,
        content: '\u00e9'.repeat(ctx.config.documentLimitBytes * 2),
      });
      assert.equal(huge.statusCode, 413);
      assert.equal(huge.json().code, 'request.too_large');
      assert.equal((await direct(ctx, tenant, 'GET', `/xapi/activities/state?${new URLSearchParams(scope)}`)).statusCode, 404);
    });

    it('tunnels to /xapi/ resources only: dot segments are refused', async () => {
      const tenant = await ctx.given.tenant();
      // Over a socket: inject (and fetch) would resolve the dot segments before the server saw them.
      const { port } = new URL(await ctx.url());
      for (const path of ['/xapi/%2e%2e/api/me', '/xapi/../api/me', '/xapi/./statements']) {
        const res = await rawPost(Number(port), `${path}?method=GET`, form(credentialFields(tenant)));
        assert.equal(res.status, 400, path);
        assert.equal(res.body.code, 'xapi.alternate_syntax_invalid');
        assert.match(res.body.message, /without dot segments/);
      }
    });

    it('leaves a method parameter outside /xapi/ alone', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/health?method=PUT' });
      assert.equal(res.statusCode, 200);
    });
  });

  describe('fuzzed alternate requests', () => {
    let fuzz: FuzzContext;

    before(async () => {
      const oauth = await givenOAuth(ctx);
      const other = await ctx.given.tenant();
      const session = await exchange(ctx.app, oauth);
      fuzz = {
        tenant: oauth.tenant,
        otherTenantName: other.name,
        baseDomain: ctx.config.baseDomain,
        oauth: {
          clientId: oauth.client.clientId,
          clientSecret: oauth.client.clientSecret,
          redirectUri: 'unused',
          adminEmail: oauth.adminEmail,
          adminPassword: oauth.adminPassword,
          accessToken: session.access_token,
          refreshToken: 'unused',
          code: 'unused',
          codeVerifier: 'unused',
          form: { requestId: 'unused', csrfToken: 'unused', cookieName: 'unused', cookieValue: 'unused' },
        },
        // No learner here: an unknown one is refused (401), like any wrong credential.
        learner: { credential: 'Basic dW51c2VkOnVudXNlZA==', launchToken: 'Basic dW51c2VkOnVudXNlZA==' },
        scopedKey: 'Basic dW51c2VkOnVudXNlZA==',
        scimToken: 'Bearer unused',
        scimUserId: 'unused',
        hrWebhook: { path: '/hooks/hr/unused', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      };
    });

    it('never answers 5xx, and lets some requests through to the routes', async (t) => {
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(alternateSyntaxRequest(fuzz), async (request) => {
          const res = await ctx.app.inject({
            method: request.method as 'POST',
            url: request.url,
            headers: request.headers,
            payload: request.payload,
          });
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          assert.ok(
            res.statusCode < 500,
            `${res.statusCode} for ${request.method} ${request.url}\n${JSON.stringify(request.headers)}\n${String(request.payload).slice(0, 2_000)}\n${res.body}`,
          );
        }),
        { seed: Number(process.env.FUZZ_SEED ?? 20_261_123), numRuns: Number(process.env.FUZZ_RUNS ?? 300), timeout: 20_000 },
      );
      t.diagnostic(
        `statuses: ${[...statuses]
          .sort(([a], [b]) => a - b)
          .map(([status, count]) => `${status}×${count}`)
          .join(' ')}`,
      );
      const answered = [...statuses].filter(([status]) => status < 300).reduce((sum, [, count]) => sum + count, 0);
      assert.ok(answered > 0, `no request got past the checks: ${JSON.stringify([...statuses])}`);
    });
  });
});

describeEachBackend(
  'the alternate request syntax on a server whose default version is 1.0.3',
  (ctx) => {
    it('still needs a version, as the direct request does', async () => {
      const tenant = await ctx.given.tenant();
      const res = await alternate(ctx)('/xapi/statements', 'GET', { Authorization: tenant.authorization, limit: '1' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'xapi.version_missing');
    });

    it('serves it with the version in the header', async () => {
      const tenant = await ctx.given.tenant();
      const res = await alternate(ctx)(
        '/xapi/statements',
        'GET',
        { limit: '1' },
        { authorization: tenant.authorization, 'x-experience-api-version': '1.0' },
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['x-experience-api-version'], '1.0.3');
    });
  },
  { xapiDefaultVersion: '1.0.3' },
);
