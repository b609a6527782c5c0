import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { givenOAuth, REDIRECT_URI, type GivenClient, type OAuthFixture } from './oauth-token-fixtures.js';

interface ServedForm {
  fields: { request_id: string; client_id: string; csrf_token: string };
  cookie: { name: string; value: string };
}

function hidden(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  assert.ok(match, `the page has a hidden ${name}`);
  return match[1]!;
}

const authorizeUrl = (client: GivenClient) =>
  `/auth/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: REDIRECT_URI, state: 's' })}`;

const openPage = (app: FastifyInstance, client: GivenClient, remoteAddress?: string) =>
  app.inject({ method: 'GET', url: authorizeUrl(client), remoteAddress });

/** GET the sign-in page and keep what a browser keeps: the hidden fields and the cookie. */
async function openForm(app: FastifyInstance, client: GivenClient, remoteAddress?: string): Promise<ServedForm> {
  const res = await openPage(app, client, remoteAddress);
  assert.equal(res.statusCode, 200, res.body);
  const cookie = res.cookies.find((item) => item.name.startsWith('__Host-lb-signin-'));
  assert.ok(cookie, 'the page sets its sign-in cookie');
  return {
    cookie: { name: cookie.name, value: cookie.value },
    fields: {
      request_id: hidden(res.body, 'request_id'),
      client_id: hidden(res.body, 'client_id'),
      csrf_token: hidden(res.body, 'csrf_token'),
    },
  };
}

function post(
  app: FastifyInstance,
  form: ServedForm,
  credentials: { email: string; password: string },
  options: { remoteAddress?: string; forwardedFor?: string } = {},
) {
  return app.inject({
    method: 'POST',
    url: '/auth/oauth/authorize',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(options.forwardedFor === undefined ? {} : { 'x-forwarded-for': options.forwardedFor }),
    },
    payload: new URLSearchParams({ ...form.fields, ...credentials, action: 'authorize' }).toString(),
    cookies: { [form.cookie.name]: form.cookie.value },
    remoteAddress: options.remoteAddress,
  });
}

async function failures(ctx: TestContext, oauth: OAuthFixture): Promise<Record<string, number>> {
  const { rows } = await ctx.db.query<{ subject: string; failures: number }>(
    'SELECT subject, failures FROM sign_in_failures WHERE tenant_id = $1 ORDER BY subject',
    [oauth.tenant.id],
  );
  return Object.fromEntries(rows.map((row) => [row.subject, row.failures]));
}

async function count(
  ctx: TestContext,
  table: 'oauth_codes' | 'oauth_authorization_requests',
  oauth: OAuthFixture,
  clientId?: string,
): Promise<number> {
  const { rows } = await ctx.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1 AND ($2::text IS NULL OR client_id = $2)`,
    [oauth.tenant.id, clientId ?? null],
  );
  return rows[0]!.n;
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((sum, status) => ({ ...sum, [status]: (sum[status] ?? 0) + 1 }), {});

describeEachBackend(
  'Sign-in lock-out under concurrent attempts',
  (ctx) => {
    it('checks no more than the account limit of wrong passwords however many arrive at once, then refuses the right one', async () => {
      const oauth = await givenOAuth(ctx);
      // Each guess with its own pending request and cookie, as 40 browser tabs would have.
      const forms = await Promise.all(Array.from({ length: 41 }, () => openForm(ctx.app, oauth.client)));
      const answers = await Promise.all(
        forms.slice(0, 40).map((form, index) => post(ctx.app, form, { email: oauth.adminEmail, password: `wrong guess ${index}` })),
      );
      const statuses = tally(answers.map((res) => res.statusCode));
      // Places 1–4 are wrong-password answers; place 5 checks its password and locks (429); the other
      // 35 are refused without their password being checked.
      assert.deepEqual(statuses, { 401: 4, 429: 36 });
      for (const res of answers.filter((item) => item.statusCode === 429)) {
        assert.ok(Number(res.headers['retry-after']) > 0, 'every refusal says when to come back');
        assert.match(res.body, /Too many failed sign-in attempts/);
      }
      assert.deepEqual(
        await failures(ctx, oauth),
        { [`email:${oauth.adminEmail}`]: 5, 'ip:127.0.0.1': 5 },
        'only the checked guesses are counted',
      );

      const right = await post(ctx.app, forms[40]!, { email: oauth.adminEmail, password: oauth.adminPassword });
      assert.equal(right.statusCode, 429, 'the right password does not get through the lock');
      assert.equal(await count(ctx, 'oauth_codes', oauth), 0);
    });

    it('checks no more than the address limit of passwords across accounts at once', async () => {
      const oauth = await givenOAuth(ctx);
      const forms = await Promise.all(Array.from({ length: 41 }, () => openForm(ctx.app, oauth.client)));
      const answers = await Promise.all(
        forms.map((form, index) =>
          post(ctx.app, form, { email: `guess-${index}@example.com`, password: 'guess' }, { remoteAddress: '198.51.100.41' }),
        ),
      );
      const statuses = tally(answers.map((res) => res.statusCode));
      assert.deepEqual(statuses, { 401: 19, 429: 22 });
      const counted = await failures(ctx, oauth);
      assert.equal(counted['ip:198.51.100.41'], 20);
      // A refused attempt gives its account's place back: 20 accounts with one failure, the rest none.
      const accounts = Object.entries(counted).filter(([subject]) => subject.startsWith('email:'));
      assert.equal(accounts.filter(([, failed]) => failed === 1).length, 20);
      assert.equal(accounts.filter(([, failed]) => failed !== 1 && failed !== 0).length, 0);
    });

    it('does not count successful sign-ins against the address', async () => {
      const oauth = await givenOAuth(ctx);
      for (let attempt = 1; attempt <= 22; attempt++) {
        const form = await openForm(ctx.app, oauth.client);
        const res = await post(
          ctx.app,
          form,
          { email: oauth.adminEmail, password: oauth.adminPassword },
          { remoteAddress: '198.51.100.42' },
        );
        assert.equal(res.statusCode, 303, `sign-in ${attempt}`);
      }
      const counted = await failures(ctx, oauth);
      assert.ok(
        Object.values(counted).every((failed) => failed === 0),
        JSON.stringify(counted),
      );
    });

    it('answers an e-mail address longer than any address with the form again (400), counting nothing (issue 24)', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth.client);
      // Random letters: a B-tree entry of the throttle's counts could not hold them (a 500 before).
      const local = Array.from(
        { length: 3_000 },
        (_, i) => 'abcdefghijklmnopqrstuvwxyz0123456789'[(i * 7919 + (i >> 3) * 104729) % 36],
      ).join('');
      const res = await post(ctx.app, form, { email: `${local}@example.com`, password: 'whatever it is' });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.body, /at most 254 characters/);
      assert.deepEqual(
        Object.keys(await failures(ctx, oauth)).filter((subject) => subject.startsWith('email:')),
        [],
      );
    });
  },
  {},
  // The page's own rate limit raised: this block opens many forms from one address on purpose.
  { signInPolicy: { delayStepMs: 0, authorizeRequestsPerMinute: 1_000 } },
);

describeEachBackend(
  'Client addresses counted by the sign-in throttle',
  (ctx) => {
    const wrong = (oauth: OAuthFixture) => ({ email: oauth.adminEmail, password: 'wrong' });

    it('counts an IPv4-mapped IPv6 peer under its IPv4 address', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth.client);
      assert.equal((await post(ctx.app, form, wrong(oauth), { remoteAddress: '::ffff:192.0.2.7' })).statusCode, 401);
      assert.equal((await post(ctx.app, form, wrong(oauth), { remoteAddress: '192.0.2.7' })).statusCode, 401);
      // Forwarded by a trusted proxy, in the hex spelling.
      assert.equal(
        (await post(ctx.app, form, wrong(oauth), { remoteAddress: '10.1.2.3', forwardedFor: '::ffff:c000:207' })).statusCode,
        429,
      );
      const counted = await failures(ctx, oauth);
      assert.deepEqual(
        Object.keys(counted).filter((subject) => subject.startsWith('ip:')),
        ['ip:192.0.2.7'],
      );
      assert.equal(counted['ip:192.0.2.7'], 3);
    });

    it("counts a forwarded value that is not an address under the proxy's address", async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth.client);
      for (const forwardedFor of ['garbage', 'garbage-2', '203.0.113.5, not-an-address']) {
        const res = await post(
          ctx.app,
          form,
          { email: `x-${forwardedFor}@example.com`, password: 'guess' },
          { remoteAddress: '10.1.2.3', forwardedFor },
        );
        assert.equal(res.statusCode, 401);
      }
      const counted = await failures(ctx, oauth);
      assert.deepEqual(
        Object.entries(counted).filter(([subject]) => subject.startsWith('ip:')),
        [['ip:10.1.2.3', 3]],
      );
    });
  },
  { trustProxy: ['10.0.0.0/8'] },
  // Address limit above the attempts made, account limit at 3 so that the mapped-address test locks.
  { signInPolicy: { delayStepMs: 0, maxFailuresPerAccount: 3 } },
);

describeEachBackend(
  'GET and POST /auth/oauth/authorize: rate limit per client address',
  (ctx) => {
    it('answers 429 with Retry-After and an error page past the limit, and stores nothing more', async () => {
      const oauth = await givenOAuth(ctx);
      for (let request = 1; request <= 3; request++) {
        assert.equal((await openPage(ctx.app, oauth.client, '198.51.100.7')).statusCode, 200);
      }
      const refused = await openPage(ctx.app, oauth.client, '198.51.100.7');
      assert.equal(refused.statusCode, 429);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers['retry-after']}`);
      assert.equal(refused.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(refused.headers['cache-control'], 'no-store');
      assert.match(refused.body, /Too many requests/);
      assert.match(refused.body, /Too many sign-in requests from your network address\. Wait \d+ seconds? and try again\./);
      // The same address written as IPv4-mapped IPv6 is the same client.
      assert.equal((await openPage(ctx.app, oauth.client, '::ffff:198.51.100.7')).statusCode, 429);
      assert.equal(await count(ctx, 'oauth_authorization_requests', oauth), 3);

      assert.equal((await openPage(ctx.app, oauth.client, '198.51.100.8')).statusCode, 200, 'another address is served');
    });

    it('limits the sign-in form posts too, before any password is checked', async () => {
      const oauth = await givenOAuth(ctx);
      const form = await openForm(ctx.app, oauth.client, '198.51.100.9');
      for (let attempt = 1; attempt <= 3; attempt++) {
        assert.equal(
          (await post(ctx.app, form, { email: `p${attempt}@example.com`, password: 'guess' }, { remoteAddress: '198.51.100.10' }))
            .statusCode,
          401,
        );
      }
      const refused = await post(
        ctx.app,
        form,
        { email: oauth.adminEmail, password: oauth.adminPassword },
        { remoteAddress: '198.51.100.10' },
      );
      assert.equal(refused.statusCode, 429);
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      assert.match(refused.body, /Too many sign-in requests/);
      assert.equal((await failures(ctx, oauth))['ip:198.51.100.10'], 3);
      assert.equal(await count(ctx, 'oauth_codes', oauth), 0);
    });
  },
  {},
  { signInPolicy: { delayStepMs: 0, authorizeRequestsPerMinute: 3 } },
);

describeEachBackend(
  'GET /auth/oauth/authorize: pending sign-ins per client',
  (ctx) => {
    it('keeps at most the cap of pending requests per client, dropping the oldest', async () => {
      const oauth = await givenOAuth(ctx);
      const forms: ServedForm[] = [];
      for (let request = 0; request < 5; request++) forms.push(await openForm(ctx.app, oauth.client));
      assert.equal(await count(ctx, 'oauth_authorization_requests', oauth, oauth.client.clientId), 3);

      const other = await openForm(ctx.app, oauth.otherClient);
      assert.equal(
        await count(ctx, 'oauth_authorization_requests', oauth, oauth.client.clientId),
        3,
        "another client's forms do not push these out",
      );
      assert.equal(await count(ctx, 'oauth_authorization_requests', oauth), 4);

      const credentials = { email: oauth.adminEmail, password: oauth.adminPassword };
      const oldest = await post(ctx.app, forms[0]!, credentials);
      assert.equal(oldest.statusCode, 403);
      assert.match(oldest.body, /expired or has already been used/);
      assert.equal((await post(ctx.app, forms[4]!, credentials)).statusCode, 303, 'the newest form works');
      assert.equal((await post(ctx.app, other, credentials)).statusCode, 303);
    });
  },
  {},
  { signInPolicy: { delayStepMs: 0, maxPendingPerClient: 3 } },
);
