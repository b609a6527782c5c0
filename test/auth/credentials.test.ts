import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { PostgresNotifyBus } from '../../src/platform/database/notify-bus.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { describeEachBackend, testConfig, type TestContext } from '../support/build-test-app.js';
import { Given, type GivenTenant } from '../support/given.js';
import { basic, givenLaunch, PASSWORD } from '../launch/launch-fixtures.js';

type Headers = Record<string, string>;
type Agent = Record<string, unknown>;

const newUsername = () => `u-${randomBytes(8).toString('hex')}`;
const STATE = 'http://example.com/activities/course-1';

interface Learner {
  tenant: GivenTenant;
  agent: Agent;
  username: string;
  password: string;
  /** The learner credential, the tenant named, xAPI 1.0.3. */
  headers: Headers;
}

/** A tenant with one imported user (the actor) and one learner credential for it. */
async function givenLearner(app: FastifyInstance, given: Given, email = 'ada@example.com'): Promise<Learner> {
  const tenant = await given.tenant();
  const imported = await app.inject({
    method: 'POST',
    url: '/api/import/users',
    headers: tenant.headers,
    payload: { users: [{ name: 'Ada', attributes: { email } }] },
  });
  assert.equal(imported.statusCode, 200, imported.body);
  const agent = { account: { homePage: `http://${tenant.name}.localhost`, name: email } };
  const username = newUsername();
  const created = await createCredential(app, tenant.headers, { username, password: PASSWORD, data: { actor: agent } });
  assert.equal(created.statusCode, 201, created.body);
  return { tenant, agent, username, password: PASSWORD, headers: learnerHeaders(tenant, username, PASSWORD) };
}

const learnerHeaders = (tenant: GivenTenant, username: string, password: string): Headers => ({
  authorization: basic(username, password),
  'x-svc-tenant': tenant.name,
  'x-experience-api-version': '1.0.3',
});

const createCredential = (app: FastifyInstance, headers: Headers, payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/auth/basic', headers, payload: payload as object });

const me = (app: FastifyInstance, headers: Headers) => app.inject({ method: 'GET', url: '/api/me', headers });

const statement = (actor: Agent, activityId = STATE) => ({
  actor,
  verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
  object: { id: activityId },
});

describeEachBackend('POST /api/auth/basic', (ctx) => {
  it('creates a credential for an actor of the store: 201 with username, the stored actor and the expiry; audited with the source', async () => {
    const tenant = await ctx.given.tenant();
    await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: tenant.headers,
      payload: { users: [{ name: 'Bea', attributes: { email: 'bea@x' } }] },
    });
    const agent = { account: { homePage: `http://${tenant.name}.localhost`, name: 'bea@x' } };
    const username = newUsername();
    const before = Date.now();
    const res = await createCredential(
      ctx.app,
      { ...tenant.headers, 'svc-account-source': 'hr-sync' },
      { username, password: PASSWORD, data: { actor: agent } },
    );
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.username, username);
    assert.deepEqual(body.actor, { objectType: 'Agent', name: 'Bea', ...agent });
    const lifetime = Date.parse(body.expiresAt) - before;
    assert.ok(Math.abs(lifetime - 30 * 24 * 3600 * 1000) < 60_000, `lifetime ${lifetime} ms is not 30 days`);

    const learner = await me(ctx.app, learnerHeaders(tenant, username, PASSWORD));
    assert.equal(learner.statusCode, 200, learner.body);
    assert.deepEqual(learner.json(), { tenant: { id: tenant.id, name: tenant.name }, principal: { kind: 'actor', id: username } });

    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=credential.created', headers: tenant.headers });
    assert.equal(audit.statusCode, 200, audit.body);
    const [entry] = audit.json();
    assert.equal(entry.source, 'hr-sync');
    assert.equal(entry.actorId, `account|http://${tenant.name}.localhost|bea@x`);
    assert.deepEqual(entry.principal, { kind: 'api_key', id: tenant.key });
    assert.equal(entry.details.username, username);
    const stored = await ctx.db.query<{ password_hash: string }>('SELECT password_hash FROM actor_credentials WHERE tenant_id = $1', [
      tenant.id,
    ]);
    assert.match(stored.rows[0]!.password_hash, /^scrypt\$/, 'the password is stored as an scrypt hash');
  });

  it('accepts any agent with one identifier (mbox) when that actor exists', async () => {
    const tenant = await ctx.given.tenant();
    const named = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: tenant.xapi,
      payload: statement({ mbox: 'mailto:cy@example.com' }),
    });
    assert.equal(named.statusCode, 200, named.body);
    const res = await createCredential(ctx.app, tenant.headers, {
      username: newUsername(),
      password: PASSWORD,
      data: { actor: { mbox: 'mailto:cy@example.com' } },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json().actor, { objectType: 'Agent', mbox: 'mailto:cy@example.com' });
  });

  it('answers 404 auth.actor_not_found for an actor the tenant does not have', async () => {
    const tenant = await ctx.given.tenant();
    const res = await createCredential(ctx.app, tenant.headers, {
      username: newUsername(),
      password: PASSWORD,
      data: { actor: { mbox: 'mailto:nobody@example.com' } },
    });
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(res.json().code, 'auth.actor_not_found');
  });

  it('answers 409 auth.username_taken for a username used before, even after revocation', async () => {
    const learner = await givenLearner(ctx.app, ctx.given);
    const again = { username: learner.username, password: 'another password', data: { actor: learner.agent } };
    const taken = await createCredential(ctx.app, learner.tenant.headers, again);
    assert.equal(taken.statusCode, 409, taken.body);
    assert.equal(taken.json().code, 'auth.username_taken');
    const revoked = await ctx.app.inject({ method: 'DELETE', url: `/api/auth/basic/${learner.username}`, headers: learner.tenant.headers });
    assert.equal(revoked.statusCode, 204);
    assert.equal((await createCredential(ctx.app, learner.tenant.headers, again)).statusCode, 409);
    // Usernames are per tenant: another tenant may use the same one.
    const other = await givenLearner(ctx.app, ctx.given);
    const elsewhere = await createCredential(ctx.app, other.tenant.headers, { ...again, data: { actor: other.agent } });
    assert.equal(elsewhere.statusCode, 201, elsewhere.body);
  });

  it('answers 400 naming the field for a malformed body', async () => {
    const learner = await givenLearner(ctx.app, ctx.given);
    const valid = { username: newUsername(), password: PASSWORD, data: { actor: learner.agent } };
    const cases: Array<[unknown, string]> = [
      [[valid], 'The body'],
      [{ ...valid, username: undefined }, 'username'],
      [{ ...valid, username: '' }, 'username'],
      [{ ...valid, username: 'x'.repeat(201) }, 'username'],
      [{ ...valid, username: 'a:b' }, 'username'],
      [{ ...valid, username: 'a\u0000b' }, 'username'],
      [{ ...valid, username: 'launch.abc' }, 'username'],
      [{ ...valid, username: `lb_${'0'.repeat(32)}_${'0'.repeat(16)}` }, 'username'],
      [{ ...valid, username: 42 }, 'username'],
      [{ ...valid, password: 'short' }, 'password'],
      [{ ...valid, password: 'p'.repeat(1001) }, 'password'],
      [{ ...valid, password: undefined }, 'password'],
      [{ ...valid, data: undefined }, 'data.actor'],
      [{ ...valid, data: {} }, 'data.actor'],
    ];
    for (const [payload, field] of cases) {
      const res = await createCredential(ctx.app, learner.tenant.headers, payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json().code, 'auth.invalid_credential_request');
      assert.equal(res.json().details.field, field, res.body);
      assert.ok(res.json().message.startsWith(field), res.body);
    }
    const twoIfis = await createCredential(ctx.app, learner.tenant.headers, {
      ...valid,
      data: { actor: { ...learner.agent, mbox: 'mailto:a@b.c' } },
    });
    assert.equal(twoIfis.statusCode, 400);
    assert.equal(twoIfis.json().code, 'xapi.invalid_agent');
    assert.match(twoIfis.json().message, /'data\.actor' must have exactly one inverse functional identifier/);
  });

  it('refuses a caller without a credential (401), with another tenant’s key (401), and a learner credential (403)', async () => {
    const learner = await givenLearner(ctx.app, ctx.given);
    const other = await ctx.given.tenant();
    const payload = { username: newUsername(), password: PASSWORD, data: { actor: learner.agent } };
    assert.equal((await createCredential(ctx.app, { 'x-svc-tenant': learner.tenant.name }, payload)).statusCode, 401);
    assert.equal((await createCredential(ctx.app, { ...other.headers, 'x-svc-tenant': learner.tenant.name }, payload)).statusCode, 401);
    const byLearner = await createCredential(ctx.app, learner.headers, payload);
    assert.equal(byLearner.statusCode, 403);
    assert.equal(byLearner.json().code, 'auth.forbidden');
  });
});

describeEachBackend('A learner credential', (ctx) => {
  const state = (learner: Learner, agent: Agent, method: 'PUT' | 'GET', activityId = STATE) =>
    ctx.app.inject({
      method,
      url: '/xapi/activities/state',
      query: { activityId, agent: JSON.stringify(agent), stateId: 'bookmark' },
      headers: { ...learner.headers, 'content-type': 'application/json' },
      ...(method === 'PUT' ? { payload: { page: 3 } } : {}),
    });

  it('reads and writes its own actor’s state and agent profile, and is refused another actor’s (403)', async () => {
    const learner = await givenLearner(ctx.app, ctx.given);
    assert.equal((await state(learner, learner.agent, 'PUT')).statusCode, 204);
    const read = await state(learner, learner.agent, 'GET');
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), { page: 3 });
    const other = { mbox: 'mailto:someone-else@example.com' };
    const refused = await state(learner, other, 'PUT');
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().code, 'documents.forbidden');
    assert.equal((await state(learner, other, 'GET')).statusCode, 403);

    const profile = (agent: Agent, method: 'PUT' | 'GET') =>
      ctx.app.inject({
        method,
        url: '/xapi/agents/profile',
        query: { agent: JSON.stringify(agent), profileId: 'preferences' },
        headers: { ...learner.headers, 'content-type': 'application/json', 'if-none-match': '*' },
        ...(method === 'PUT' ? { payload: { language: 'fr' } } : {}),
      });
    const putProfile = await profile(learner.agent, 'PUT');
    assert.equal(putProfile.statusCode, 204, putProfile.body);
    assert.deepEqual((await profile(learner.agent, 'GET')).json(), { language: 'fr' });
    assert.equal((await profile(other, 'PUT')).statusCode, 403);

    // Activity profiles are shared by every learner: read, not written.
    const activityProfile = (method: 'PUT' | 'GET') =>
      ctx.app.inject({
        method,
        url: '/xapi/activities/profile',
        query: { activityId: STATE, profileId: 'settings' },
        headers: { ...learner.headers, 'content-type': 'application/json', 'if-none-match': '*' },
        ...(method === 'PUT' ? { payload: { x: 1 } } : {}),
      });
    assert.equal((await activityProfile('PUT')).statusCode, 403);
    const put = await ctx.app.inject({
      method: 'PUT',
      url: '/xapi/activities/profile',
      query: { activityId: STATE, profileId: 'settings' },
      headers: { ...learner.tenant.xapi, 'content-type': 'application/json', 'if-none-match': '*' },
      payload: { x: 1 },
    });
    assert.equal(put.statusCode, 204, put.body);
    assert.deepEqual((await activityProfile('GET')).json(), { x: 1 });
  });

  it('stores and reads its own actor’s statements, and is refused others (403, or 404 by id)', async () => {
    const learner = await givenLearner(ctx.app, ctx.given);
    const post = (body: unknown) =>
      ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: learner.headers, payload: body as object });
    const own = await post(statement(learner.agent));
    assert.equal(own.statusCode, 200, own.body);
    const [id] = own.json();
    // A group naming the learner and someone else is not the learner's to write (issue 24)…
    const groupActor = { objectType: 'Group', member: [learner.agent, { mbox: 'mailto:peer@example.com' }] };
    const refusedGroup = await post(statement(groupActor));
    assert.equal(refusedGroup.statusCode, 403, refusedGroup.body);
    // … but the API key's statement with that group as actor is the learner's to read.
    const asGroup = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: learner.tenant.xapi,
      payload: statement(groupActor),
    });
    assert.equal(asGroup.statusCode, 200, asGroup.body);
    const others = await post(statement({ mbox: 'mailto:someone-else@example.com' }));
    assert.equal(others.statusCode, 403);
    assert.equal(others.json().code, 'statements.forbidden');
    assert.match(others.json().message, /must be this credential's own agent/);
    // Naming the learner as the object is not being its actor.
    const aboutLearner = await post({
      ...statement({ mbox: 'mailto:someone-else@example.com' }),
      object: { objectType: 'Agent', ...learner.agent },
    });
    assert.equal(aboutLearner.statusCode, 403);

    const stored = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${id}`, headers: learner.headers });
    assert.equal(stored.statusCode, 200, stored.body);
    assert.deepEqual(stored.json().authority.account.name, learner.username, 'the authority is the credential’s username at this server');

    const byKey = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: learner.tenant.xapi,
      payload: statement({ mbox: 'mailto:x@example.com' }),
    });
    const notTheirs = await ctx.app.inject({
      method: 'GET',
      url: `/xapi/statements?statementId=${byKey.json()[0]}`,
      headers: learner.headers,
    });
    assert.equal(notTheirs.statusCode, 404);

    const list = (query: string) => ctx.app.inject({ method: 'GET', url: `/xapi/statements?${query}`, headers: learner.headers });
    const mine = await list(`agent=${encodeURIComponent(JSON.stringify(learner.agent))}`);
    assert.equal(mine.statusCode, 200, mine.body);
    assert.equal(mine.json().statements.length, 2);
    // Without filters, and with another agent, the list holds only statements whose actor is the learner.
    const unfiltered = await list('');
    assert.equal(unfiltered.statusCode, 200, unfiltered.body);
    assert.deepEqual(
      unfiltered
        .json()
        .statements.map((s: { id: string }) => s.id)
        .sort(),
      [id, asGroup.json()[0]].sort(),
    );
    const someoneElse = await list(`agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:x@example.com' }))}`);
    assert.equal(someoneElse.statusCode, 200);
    assert.deepEqual(someoneElse.json().statements, []);
    // A statement that only names the learner as its object is not the learner's to read.
    const learnerAsObject = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: learner.tenant.xapi,
      payload: { ...statement({ mbox: 'mailto:x@example.com' }), object: { objectType: 'Agent', ...learner.agent } },
    });
    assert.equal(learnerAsObject.statusCode, 200);
    const asObject = await list(`agent=${encodeURIComponent(JSON.stringify(learner.agent))}`);
    assert.equal(asObject.json().statements.length, 2, 'the API key sees it; the learner does not');
    // The more link pages through the same filtered list.
    const first = await list('limit=1');
    assert.equal(first.json().statements.length, 1);
    const next = await ctx.app.inject({ method: 'GET', url: first.json().more, headers: learner.headers });
    assert.equal(next.json().statements.length, 1);
    assert.equal(next.json().more, '');
    assert.notEqual(next.json().statements[0].id, first.json().statements[0].id);
  });

  it('is refused the tenant-wide /api/ routes (403)', async () => {
    const learner = await givenLearner(ctx.app, ctx.given);
    for (const url of ['/api/actors', '/api/audit', '/api/settings', '/api/import/history']) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: learner.headers });
      assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
      assert.equal(res.json().code, 'auth.forbidden');
    }
    const revoke = await ctx.app.inject({ method: 'DELETE', url: `/api/auth/basic/${learner.username}`, headers: learner.headers });
    assert.equal(revoke.statusCode, 403);
  });

  it('answers 401 to a wrong password, an unknown username, no tenant named, and another tenant', async () => {
    const learner = await givenLearner(ctx.app, ctx.given);
    const other = await ctx.given.tenant();
    const cases: Array<[Headers, RegExp]> = [
      [learnerHeaders(learner.tenant, learner.username, 'not the password'), /^The credential is not valid\.$/],
      [learnerHeaders(learner.tenant, newUsername(), PASSWORD), /^The credential is not valid\.$/],
      [{ authorization: basic(learner.username, PASSWORD) }, /none was named: name it with the X-SVC-Tenant header/],
      [learnerHeaders(other, learner.username, PASSWORD), /^The credential is not valid\.$/],
    ];
    for (const [headers, message] of cases) {
      const res = await me(ctx.app, headers);
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(res.json().code, 'auth.unauthorized');
      assert.match(res.json().message, message);
    }
    // The right password still works after the failures (they are not cached).
    assert.equal((await me(ctx.app, learner.headers)).statusCode, 200);
  });

  it('refuses guessing: after 10 failed checks of one username, 429 with Retry-After without checking, the right password too, and the launch page says so', async () => {
    const learner = await givenLearner(ctx.app, ctx.given);
    const wrong = learnerHeaders(learner.tenant, learner.username, 'not the password');
    for (let attempt = 0; attempt < 10; attempt++) assert.equal((await me(ctx.app, wrong)).statusCode, 401);
    for (const headers of [wrong, learner.headers]) {
      const res = await me(ctx.app, headers);
      assert.equal(res.statusCode, 429, res.body);
      assert.equal(res.json().code, 'auth.too_many_attempts');
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(retryAfter > 0 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`);
    }
    const launch = await ctx.app.inject({
      method: 'GET',
      url: `/api/activities/launch?activityId=${encodeURIComponent(STATE)}&auth=${encodeURIComponent(basic(learner.username, PASSWORD))}`,
      headers: { 'x-svc-tenant': learner.tenant.name },
    });
    assert.equal(launch.statusCode, 429);
    assert.match(String(launch.headers['content-type']), /text\/html/);
    assert.match(launch.body, /Too many failed sign-ins/);
    assert.ok(Number(launch.headers['retry-after']) > 0);
    // Another learner's credential, from the same address, is still checked.
    const other = await givenLearner(ctx.app, ctx.given, 'bea@example.com');
    assert.equal((await me(ctx.app, other.headers)).statusCode, 200);
  });
});

describeEachBackend(
  'Revoking a learner credential (DELETE /api/auth/basic/{username})',
  (ctx) => {
    it('answers 204, refuses the credential at once although this process cached it, and audits it', async () => {
      const learner = await givenLearner(ctx.app, ctx.given);
      assert.equal((await me(ctx.app, learner.headers)).statusCode, 200);
      const revoked = await ctx.app.inject({
        method: 'DELETE',
        url: `/api/auth/basic/${learner.username}`,
        headers: { ...learner.tenant.headers, 'svc-account-source': 'offboarding' },
      });
      assert.equal(revoked.statusCode, 204, revoked.body);
      const refused = await me(ctx.app, learner.headers);
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().message, 'The credential was revoked.');
      const again = await ctx.app.inject({ method: 'DELETE', url: `/api/auth/basic/${learner.username}`, headers: learner.tenant.headers });
      assert.equal(again.statusCode, 204, 'revoking twice is harmless');
      const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=credential.revoked', headers: learner.tenant.headers });
      const entries = audit.json();
      assert.equal(entries.length, 2);
      assert.equal(entries[1].source, 'offboarding');
      assert.equal(entries[1].details.username, learner.username);
    });

    it('answers 404 for an unknown username, and refuses another tenant’s key (401) and a learner (403)', async () => {
      const learner = await givenLearner(ctx.app, ctx.given);
      const other = await ctx.given.tenant();
      const unknown = await ctx.app.inject({ method: 'DELETE', url: `/api/auth/basic/${newUsername()}`, headers: learner.tenant.headers });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().code, 'auth.credential_not_found');
      const nul = await ctx.app.inject({ method: 'DELETE', url: '/api/auth/basic/a%00b', headers: learner.tenant.headers });
      assert.equal(nul.statusCode, 404, nul.body);
      // Another tenant's key, and that tenant's own route: the credential lives in learner's tenant only.
      assert.equal(
        (
          await ctx.app.inject({
            method: 'DELETE',
            url: `/api/auth/basic/${learner.username}`,
            headers: { ...other.headers, 'x-svc-tenant': learner.tenant.name },
          })
        ).statusCode,
        401,
      );
      assert.equal(
        (await ctx.app.inject({ method: 'DELETE', url: `/api/auth/basic/${learner.username}`, headers: other.headers })).statusCode,
        404,
      );
      assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/auth/basic/${learner.username}` })).statusCode, 401);
      assert.equal((await me(ctx.app, learner.headers)).statusCode, 200, 'still valid');
    });
  },
  { cacheTtlMs: 60_000 },
);

describeEachBackend(
  'An expired learner credential',
  (ctx) => {
    it('is refused with 401 saying it expired, even while cached', async () => {
      const learner = await givenLearner(ctx.app, ctx.given);
      assert.equal((await me(ctx.app, learner.headers)).statusCode, 200);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const refused = await me(ctx.app, learner.headers);
      assert.equal(refused.statusCode, 401);
      assert.match(refused.json().message, /^The credential expired/);
      const uncached = await me(ctx.app, learnerHeaders(learner.tenant, learner.username, learner.password));
      assert.equal(uncached.statusCode, 401);
    });
  },
  { cacheTtlMs: 60_000, credentialTtlS: 1 },
);

describe('Learner credential revocation across server processes on one PostgreSQL database (LISTEN/NOTIFY)', {
  skip: !POSTGRES_AVAILABLE && 'PostgreSQL not reachable',
}, () => {
  const opened: Array<{ close(): Promise<void> }> = [];
  let drop: () => Promise<void> = async () => {};
  let apps: FastifyInstance[] = [];
  let given: Given;
  let db: PostgresDatabase;

  before(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const pool = new PostgresDatabase(created.url, { max: 5 });
        const notifications = new PostgresNotifyBus(created.url, pool);
        opened.push(notifications, pool);
        return { pool, app: await buildApp(testConfig({ cacheTtlMs: 60_000 }), pool, { logger: false, notifications }) };
      }),
    );
    db = instances[0]!.pool;
    await migrate(db);
    apps = instances.map((instance) => instance.app);
    given = new Given(apps[0]!, instances[0]!.pool);
  });

  after(async () => {
    for (const app of apps) await app.close();
    for (const resource of opened.reverse()) await resource.close();
    await drop();
  });

  it('evicts the credential the second process cached when the first revokes it', async () => {
    const learner = await givenLearner(apps[0]!, given);
    assert.equal((await me(apps[1]!, learner.headers)).statusCode, 200, 'the second process verifies and caches it');
    const revoked = await apps[0]!.inject({
      method: 'DELETE',
      url: `/api/auth/basic/${learner.username}`,
      headers: learner.tenant.headers,
    });
    assert.equal(revoked.statusCode, 204);
    const deadline = Date.now() + 2_000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) {
      status = (await me(apps[1]!, learner.headers)).statusCode;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(status, 401, 'the second process still accepted the revoked credential after 2 s');
  });

  it('forgets cached credentials and launch tokens when its LISTEN connection drops (messages may be lost)', async () => {
    const fixture = await givenLaunch({ app: apps[0]!, given } as TestContext, 'http://127.0.0.1:9');
    const launched = await apps[1]!.inject({ method: 'GET', url: fixture.launchPath, headers: { 'x-svc-tenant': fixture.tenant.name } });
    assert.equal(launched.statusCode, 302, launched.body);
    const token = { authorization: new URL(launched.headers.location as string).searchParams.get('auth')! };
    const learner = { authorization: basic(fixture.username, PASSWORD), 'x-svc-tenant': fixture.tenant.name };
    assert.equal((await me(apps[1]!, token)).statusCode, 200);
    assert.equal((await me(apps[1]!, learner)).statusCode, 200);
    // Drop every LISTEN connection, then revoke behind the processes' backs: no message reaches them.
    await db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'");
    await db.query('UPDATE actor_credentials SET revoked_at = now() WHERE tenant_id = $1 AND username = $2', [
      fixture.tenant.id,
      fixture.username,
    ]);
    const deadline = Date.now() + 5_000;
    let statuses = [200, 200];
    while (statuses.includes(200) && Date.now() < deadline) {
      statuses = [(await me(apps[1]!, token)).statusCode, (await me(apps[1]!, learner)).statusCode];
      if (statuses.includes(200)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(statuses, [401, 401], 'the second process kept trusting its cache after the gap');
  });
});
