import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../src/server/app.js';
import type { ConnectionUse, Database, QueryResult, SqlClient } from '../../src/platform/database/sql-client.js';
import { BACKENDS } from '../support/backends.js';
import { describeEachBackend, testConfig, type TestContext } from '../support/build-test-app.js';
import { Given, type GivenTenant } from '../support/given.js';
import { exchange, givenOAuth } from '../auth/oauth-token-fixtures.js';
import { basic, PASSWORD } from '../launch/launch-fixtures.js';
import { purgeAppliedHrMessages } from '../../src/modules/identity/hr-webhooks/hr-webhook.repository.js';

type Headers = Record<string, string>;
type Json = Record<string, unknown>;

const HR = 'https://hr.example.com';

interface HrHook {
  tenant: GivenTenant;
  admin: Headers;
  id: string;
  url: string;
  secret: string;
}

/** A tenant identifying people by employeeId then email, whose admin made an HR webhook over HTTP. */
async function givenHook(ctx: Pick<TestContext, 'app' | 'db' | 'given'>): Promise<HrHook> {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  const admin = { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name };
  const settings = await ctx.app.inject({
    method: 'PUT',
    url: '/api/settings',
    headers: oauth.tenant.headers,
    payload: { uniqueAttributes: ['employeeId', 'email'], accountHomePage: HR, organisationAttribute: 'positionNumber' },
  });
  assert.equal(settings.statusCode, 200, settings.body);
  const created = await ctx.app.inject({ method: 'POST', url: '/api/hr-webhooks', headers: admin });
  assert.equal(created.statusCode, 201, created.body);
  const body = created.json() as { id: string; url: string; secret: string };
  assert.match(body.secret, /^whsec_/);
  return { tenant: oauth.tenant, admin, id: body.id, url: new URL(body.url).pathname, secret: body.secret };
}

/** Posts `payload` as the HR system would: signed with the endpoint's secret (or `secret`), at `at`, with `headers` besides. */
function post(
  app: FastifyInstance,
  hook: HrHook,
  payload: unknown,
  options: { id?: string; at?: Date; secret?: string; url?: string; headers?: Headers } = {},
) {
  const id = options.id ?? `msg_${randomUUID()}`;
  const body = JSON.stringify(payload);
  const at = options.at ?? new Date();
  const signature = new Webhook(options.secret ?? hook.secret).sign(id, at, body);
  return app.inject({
    method: 'POST',
    url: options.url ?? hook.url,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
      ...options.headers,
    },
    payload: body,
  });
}

async function messages(app: FastifyInstance, hook: HrHook): Promise<Json[]> {
  const res = await app.inject({ method: 'GET', url: '/api/hr-webhooks/messages', headers: hook.admin });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Json[];
}

/** Waits until every message of the tenant was applied (the applier runs right after the 202). */
async function applied(app: FastifyInstance, hook: HrHook): Promise<Json[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const listed = await messages(app, hook);
    if (listed.every((message) => message.appliedAt !== null)) return listed;
    if (Date.now() > deadline) assert.fail(`messages still waiting: ${JSON.stringify(listed)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function person(app: FastifyInstance, hook: HrHook, employeeId: string, kind = 'all'): Promise<Json | undefined> {
  const res = await app.inject({ method: 'GET', url: `/api/actors?kind=${kind}`, headers: hook.tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as Json[]).find((actor) => (actor.account as Json | undefined)?.name === employeeId);
}

const attributesOf = (actor: Json | undefined) =>
  (actor?.extensions as Json | undefined)?.['http://localhost/api/ext/agent/attributes'] as Record<string, string> | undefined;

const joiner = (employeeId: string, attributes: Json = {}) => ({
  type: 'person.joined',
  data: { name: `Person ${employeeId}`, attributes: { employeeId, email: `${employeeId.toLowerCase()}@example.com`, ...attributes } },
});

describeEachBackend('HR webhooks', (ctx) => {
  it('are made, listed and revoked by an admin only; a revoked endpoint refuses its next message', async () => {
    const hook = await givenHook(ctx);
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/hr-webhooks', headers: hook.admin });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      (listed.json() as Json[]).map((webhook) => [webhook.id, webhook.revokedAt, 'secret' in webhook]),
      [[hook.id, null, false]],
    );
    assert.equal((await ctx.app.inject({ method: 'POST', url: '/api/hr-webhooks', headers: hook.tenant.headers })).statusCode, 403);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/hr-webhooks/messages', headers: hook.tenant.headers })).statusCode, 403);
    const revoked = await ctx.app.inject({ method: 'DELETE', url: `/api/hr-webhooks/${hook.id}`, headers: hook.admin });
    assert.equal(revoked.statusCode, 204, revoked.body);
    const refused = await post(ctx.app, hook, joiner('E1'));
    assert.equal(refused.statusCode, 401, refused.body);
    assert.deepEqual(await messages(ctx.app, hook), []);
  });

  it('applies a joiner after answering 202: a person with the attributes, audited as the webhook; the same message id twice is applied once', async () => {
    const hook = await givenHook(ctx);
    const accepted = await post(ctx.app, hook, joiner('E1', { positionNumber: 'CTO' }), { id: 'msg_1' });
    assert.equal(accepted.statusCode, 202, accepted.body);
    assert.deepEqual(accepted.json(), { id: 'msg_1', status: 'accepted' });
    const [message] = await applied(ctx.app, hook);
    assert.deepEqual((message.result as Json).events, [{ type: 'person.joined', outcome: 'created', actorId: `account|${HR}|E1` }]);
    const actor = await person(ctx.app, hook, 'E1');
    assert.equal(actor?.name, 'Person E1');
    assert.deepEqual(attributesOf(actor), { employeeId: 'E1', email: 'e1@example.com', positionNumber: 'CTO' });

    const again = await post(ctx.app, hook, joiner('E1', { positionNumber: 'CFO' }), { id: 'msg_1' });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(again.json(), { id: 'msg_1', status: 'duplicate' });
    assert.equal((await applied(ctx.app, hook)).length, 1);
    assert.equal(attributesOf(await person(ctx.app, hook, 'E1'))?.positionNumber, 'CTO', 'the replay changed nothing');

    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit', headers: hook.admin });
    const created = (audit.json() as Json[]).find((entry) => entry.action === 'actor.created');
    assert.equal(created?.source, `webhook:${hook.id}`);
    assert.deepEqual(created?.principal, { kind: 'hr_webhook', id: hook.id });
  });

  it('moves (only the attributes sent change, null removes one) and lets a leaver go: deactivated, credential refused at once, records kept', async () => {
    const hook = await givenHook(ctx);
    assert.equal((await post(ctx.app, hook, joiner('E2', { positionNumber: 'DEV1', city: 'Oslo' }))).statusCode, 202);
    await applied(ctx.app, hook);
    const moved = await post(ctx.app, hook, {
      type: 'person.moved',
      data: { attributes: { employeeId: 'E2', positionNumber: 'CTO', city: null } },
    });
    assert.equal(moved.statusCode, 202, moved.body);
    await applied(ctx.app, hook);
    assert.deepEqual(attributesOf(await person(ctx.app, hook, 'E2')), { employeeId: 'E2', email: 'e2@example.com', positionNumber: 'CTO' });

    const username = `u-${randomUUID()}`;
    const credential = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: hook.tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: { account: { homePage: HR, name: 'E2' } } } },
    });
    assert.equal(credential.statusCode, 201, credential.body);
    const learner = { authorization: basic(username, PASSWORD), 'x-svc-tenant': hook.tenant.name };
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/me', headers: learner })).statusCode, 200);

    assert.equal((await post(ctx.app, hook, { type: 'person.left', data: { attributes: { email: 'E2@example.com' } } })).statusCode, 202);
    const [latest] = await applied(ctx.app, hook);
    assert.deepEqual((latest.result as Json).events, [{ type: 'person.left', outcome: 'unknown_person' }], 'values compare exactly');
    assert.equal((await post(ctx.app, hook, { type: 'person.left', data: { attributes: { email: 'e2@example.com' } } })).statusCode, 202);
    const [left] = await applied(ctx.app, hook);
    assert.deepEqual((left.result as Json).events, [{ type: 'person.left', outcome: 'deactivated', actorId: `account|${HR}|E2` }]);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/me', headers: learner })).statusCode, 401);
    assert.ok(await person(ctx.app, hook, 'E2', 'deactivated'), 'listed as deactivated');
    assert.equal(await person(ctx.app, hook, 'E2', 'people'), undefined, 'no longer one of the people');

    // Rehired: a joiner makes them active again.
    assert.equal((await post(ctx.app, hook, joiner('E2'))).statusCode, 202);
    await applied(ctx.app, hook);
    assert.ok(await person(ctx.app, hook, 'E2', 'people'));
  });

  it('applies a batch event by event: one refused (ambiguous, or new without a name) is recorded and the others stay', async () => {
    const hook = await givenHook(ctx);
    assert.equal((await post(ctx.app, hook, { type: 'people.batch', data: { events: [joiner('E3'), joiner('E4')] } })).statusCode, 202);
    await applied(ctx.app, hook);
    const batch = await post(ctx.app, hook, {
      type: 'people.batch',
      data: {
        events: [
          { type: 'person.updated', data: { attributes: { employeeId: 'E3', email: 'e4@example.com' } } },
          { type: 'person.updated', data: { attributes: { employeeId: 'E9' } } },
          { type: 'person.updated', data: { attributes: { employeeId: 'E4', title: 'Lead' } } },
        ],
      },
    });
    assert.equal(batch.statusCode, 202, batch.body);
    const [message] = await applied(ctx.app, hook);
    const events = (message.result as { events: Json[] }).events;
    assert.deepEqual(
      events.map((event) => [event.outcome, (event.error as Json | undefined)?.code]),
      [
        ['refused', 'identity.ambiguous_person'],
        ['refused', 'identity.name_required'],
        ['updated', undefined],
      ],
    );
    assert.equal(attributesOf(await person(ctx.app, hook, 'E4'))?.title, 'Lead');
    assert.equal(attributesOf(await person(ctx.app, hook, 'E3'))?.email, 'e3@example.com', 'the refused event changed nothing');
  });

  it('refuses an event giving a second person a userName another holds in any case (actors.user_name_taken), or one too long to index, and applies the rest', async () => {
    const hook = await givenHook(ctx);
    const batch = await post(ctx.app, hook, {
      type: 'people.batch',
      data: {
        events: [
          joiner('E10', { userName: 'İrace-h' }),
          joiner('E11', { userName: 'irace-H' }),
          joiner('E13', { userName: randomBytes(4_000).toString('base64') }),
          joiner('E12'),
        ],
      },
    });
    assert.equal(batch.statusCode, 202, batch.body);
    const [message] = await applied(ctx.app, hook);
    assert.deepEqual(
      (message.result as { events: Json[] }).events.map((event) => [event.outcome, (event.error as Json | undefined)?.code]),
      [
        ['created', undefined],
        ['refused', 'actors.user_name_taken'],
        ['refused', 'actors.user_name_too_long'],
        ['created', undefined],
      ],
    );
    assert.equal(attributesOf(await person(ctx.app, hook, 'E10'))?.userName, 'İrace-h');
    assert.equal(await person(ctx.app, hook, 'E11'), undefined);
    assert.ok(await person(ctx.app, hook, 'E12'));
  });

  it('refuses a bad signature, an old timestamp, another endpoint’s secret and malformed events: 4xx, nothing stored', async () => {
    const hook = await givenHook(ctx);
    const other = await givenHook(ctx);
    assert.equal((await post(ctx.app, hook, joiner('E5'), { secret: other.secret })).statusCode, 401);
    assert.equal((await post(ctx.app, hook, joiner('E5'), { at: new Date(Date.now() - 6 * 60_000) })).statusCode, 401);
    assert.equal((await post(ctx.app, hook, joiner('E5'), { url: other.url })).statusCode, 401, 'another tenant’s endpoint');
    assert.equal((await post(ctx.app, hook, joiner('E5'), { url: '/hooks/hr/hrw_nothing' })).statusCode, 401);
    const unsigned = await ctx.app.inject({
      method: 'POST',
      url: hook.url,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(joiner('E5')),
    });
    assert.equal(unsigned.statusCode, 401, unsigned.body);
    const invalid = await post(ctx.app, hook, { type: 'person.joined', data: { attributes: { employeeId: 5 } } });
    assert.equal(invalid.statusCode, 400, invalid.body);
    assert.equal(invalid.json().code, 'identity.invalid_event');
    assert.deepEqual(
      (invalid.json().details.problems as Json[]).map((problem) => problem.path),
      ['/data/name', '/data/attributes/employeeId'],
    );
    const notJson = await ctx.app.inject({
      method: 'POST',
      url: hook.url,
      headers: (() => {
        const id = 'msg_x';
        const at = new Date();
        return {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new Webhook(hook.secret).sign(id, at, '{nope'),
        };
      })(),
      payload: '{nope',
    });
    assert.equal(notJson.statusCode, 400, notJson.body);
    assert.deepEqual(await messages(ctx.app, hook), []);
    assert.equal(await person(ctx.app, hook, 'E5'), undefined);
  });

  it('refuses a message naming another tenant by X-SVC-Tenant or by the sub-domain, as SCIM refuses it: 401 auth.unauthorized, nothing stored in either tenant', async () => {
    const hook = await givenHook(ctx);
    const other = await givenHook(ctx);
    const refusals = [
      await post(ctx.app, hook, joiner('E7'), { headers: { 'x-svc-tenant': other.tenant.name } }),
      await post(ctx.app, hook, joiner('E7'), { headers: { host: `${other.tenant.name}.localhost:8080` } }),
      await post(ctx.app, hook, joiner('E7'), { headers: { 'x-svc-tenant': 'no-such-tenant' } }),
    ];
    for (const refused of refusals) {
      assert.equal(refused.statusCode, 401, refused.body);
      assert.equal(refused.json().code, 'auth.unauthorized');
      assert.match(refused.json().message, /The HR webhook does not belong to tenant/);
    }
    // SCIM answers the same mismatch with the same status and code (its body says it in SCIM's shape).
    const token = await ctx.app.inject({ method: 'POST', url: '/api/scim-tokens', headers: hook.admin });
    const scim = await ctx.app.inject({
      method: 'GET',
      url: '/scim/v2/Users',
      headers: { authorization: `Bearer ${(token.json() as { token: string }).token}`, 'x-svc-tenant': other.tenant.name },
    });
    assert.equal(scim.statusCode, 401, scim.body);
    assert.match((scim.json() as { detail: string }).detail, /The SCIM token does not belong to tenant/);
    // The tenant named and the Host disagreeing is the 400 of every address.
    const mismatch = await post(ctx.app, hook, joiner('E7'), {
      headers: { host: `${hook.tenant.name}.localhost`, 'x-svc-tenant': other.tenant.name },
    });
    assert.equal(mismatch.statusCode, 400, mismatch.body);
    assert.equal(mismatch.json().code, 'tenant.mismatch');
    assert.deepEqual(await messages(ctx.app, hook), []);
    assert.deepEqual(await messages(ctx.app, other), []);

    // Its own tenant named, either way, is accepted.
    const byHeader = await post(ctx.app, hook, joiner('E7'), { headers: { 'x-svc-tenant': hook.tenant.name } });
    assert.equal(byHeader.statusCode, 202, byHeader.body);
    const byHost = await post(ctx.app, hook, joiner('E8'), { headers: { host: `${hook.tenant.name}.localhost:8080` } });
    assert.equal(byHost.statusCode, 202, byHost.body);
    assert.equal((await applied(ctx.app, hook)).length, 2);
    assert.ok(await person(ctx.app, hook, 'E7'));
    assert.ok(await person(ctx.app, hook, 'E8'));
    assert.equal(await person(ctx.app, other, 'E7'), undefined);
  });

  it('applies a message stored but never applied (the process died after answering), in the order received', async () => {
    const hook = await givenHook(ctx);
    // As if a process had stored two messages and died before applying them: the rows alone.
    for (const [index, event] of [
      joiner('E6', { city: 'Rome' }),
      { type: 'person.moved', data: { attributes: { employeeId: 'E6', city: 'Paris' } } },
    ].entries()) {
      await ctx.db.query('INSERT INTO hr_webhook_messages (tenant_id, webhook_id, message_id, payload) VALUES ($1, $2, $3, $4::jsonb)', [
        hook.tenant.id,
        hook.id,
        `orphan_${index}`,
        JSON.stringify(event),
      ]);
    }
    const listed = await applied(ctx.app, hook);
    assert.equal(listed.length, 2);
    assert.equal(attributesOf(await person(ctx.app, hook, 'E6'))?.city, 'Paris', 'applied in order');
  });

  it('keeps an applied message 30 days, then the purge deletes it', async () => {
    const hook = await givenHook(ctx);
    const insert = (id: string, receivedDaysAgo: number, appliedDaysAgo: number | null) =>
      ctx.db.query(
        `INSERT INTO hr_webhook_messages (tenant_id, webhook_id, message_id, payload, received_at, applied_at, result)
         VALUES ($1, $2, $3, '{}'::jsonb, now() - make_interval(days => $4), now() - make_interval(days => $5), '{"events": []}'::jsonb)`,
        [hook.tenant.id, hook.id, id, receivedDaysAgo, appliedDaysAgo],
      );
    await insert('old', 40, 31);
    await insert('recent', 2, 1);
    await purgeAppliedHrMessages(ctx.db);
    const left = (await messages(ctx.app, hook)).map((message) => message.messageId).sort();
    assert.deepEqual(left, ['recent']);
  });
});

/** Waits (up to `timeoutMs`) until every message of the tenant was applied; a batch of 1,000 takes a while on PGlite. */
async function appliedWithin(app: FastifyInstance, hook: HrHook, timeoutMs: number): Promise<Json[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listed = await messages(app, hook);
    if (listed.every((message) => message.appliedAt !== null)) return listed;
    if (Date.now() > deadline) assert.fail(`messages still waiting: ${listed.map((message) => message.messageId).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const employeeIds = (count: number) => Array.from({ length: count }, (_, n) => `J${String(n).padStart(4, '0')}`);

/**
 * `db`, but its `failAt`-th INSERT INTO actors fails once, as a lost connection fails a statement
 * (SQLSTATE 08006); `inserts` counts them all.
 */
class FailingOnce implements Database {
  readonly engine: Database['engine'];
  inserts = 0;

  constructor(
    private readonly db: Database,
    private readonly failAt: number,
  ) {
    this.engine = db.engine;
  }

  private client(inner: SqlClient): SqlClient {
    return {
      query: async <Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> => {
        if (/^\s*INSERT INTO actors\b/.test(text) && ++this.inserts === this.failAt) {
          throw Object.assign(new Error('Connection terminated unexpectedly'), { code: '08006' });
        }
        return inner.query<Row>(text, values);
      },
      transaction: (work) => inner.transaction((tx) => work(this.client(tx))),
      script: (text) => inner.script(text),
    };
  }

  query<Row>(text: string, values?: readonly unknown[]): Promise<QueryResult<Row>> {
    return this.client(this.db).query<Row>(text, values);
  }
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.client(this.db).transaction(work);
  }
  script(text: string): Promise<void> {
    return this.db.script(text);
  }
  connections(): ConnectionUse {
    return this.db.connections();
  }
  close(): Promise<void> {
    return this.db.close();
  }
}

describeEachBackend('HR webhook batches, applied in pieces', (ctx) => {
  it('a batch of 1,000 joiners lets another tenant’s read and the readiness check through while it is applied; every joiner is there, in order', async (t) => {
    const hook = await givenHook(ctx);
    const other = await ctx.given.tenant();
    const ids = employeeIds(1000);
    const batch = await post(ctx.app, hook, { type: 'people.batch', data: { events: ids.map((id) => joiner(id)) } }, { id: 'msg_batch' });
    assert.equal(batch.statusCode, 202, batch.body);
    // Received after the batch: applied after it, whatever the pieces.
    const moved = await post(
      ctx.app,
      hook,
      { type: 'person.moved', data: { attributes: { employeeId: 'J0000', city: 'Oslo' } } },
      { id: 'msg_after' },
    );
    assert.equal(moved.statusCode, 202, moved.body);

    // The attack's reads, sent while the batch is applied: they answer before it is done.
    const sentAt = Date.now();
    const [read, ready] = await Promise.all([
      ctx.app.inject({ method: 'GET', url: '/api/actors', headers: other.headers }),
      ctx.app.inject({ method: 'GET', url: '/health/ready' }),
    ]);
    const answeredAt = Date.now();
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json(), []);
    assert.equal(ready.statusCode, 200, ready.body);

    const listed = await appliedWithin(ctx.app, hook, 180_000);
    const byId = new Map(listed.map((message) => [message.messageId, message]));
    const batchAppliedAt = Date.parse(String(byId.get('msg_batch')?.appliedAt));
    t.diagnostic(`the reads answered in ${answeredAt - sentAt} ms; the batch's last piece began ${batchAppliedAt - answeredAt} ms later`);
    assert.ok(
      answeredAt < batchAppliedAt,
      `the reads answered (${new Date(answeredAt).toISOString()}) before the batch was applied (${byId.get('msg_batch')?.appliedAt})`,
    );
    assert.ok(Date.parse(String(byId.get('msg_after')?.appliedAt)) >= batchAppliedAt, 'the later message after the batch');
    const events = ((byId.get('msg_batch') ?? assert.fail('no batch')).result as { events: Json[] }).events;
    assert.equal(events.length, 1000);
    assert.deepEqual(
      events.map((event) => [event.outcome, event.actorId]),
      ids.map((id) => ['created', `account|${HR}|${id}`]),
      'each joiner created once, in the order sent',
    );
    const people = await ctx.app.inject({ method: 'GET', url: '/api/actors?limit=1000', headers: hook.tenant.headers });
    assert.equal(people.statusCode, 200, people.body);
    assert.equal(people.json().length, 1000);
    assert.equal(attributesOf(await person(ctx.app, hook, 'J0000'))?.city, 'Oslo');
  });

  it('a piece that fails for a reason that may pass is rolled back alone and applied again; the pieces before it are applied once', async () => {
    const backend = BACKENDS.find((candidate) => candidate.name === ctx.backend) ?? assert.fail(ctx.backend);
    const { db, dispose } = await backend.openMigrated();
    // The 150th person written fails: in the second piece of 100, half-way.
    const failing = new FailingOnce(db, 150);
    const app = await buildApp(testConfig(), failing, { logger: false });
    try {
      const hook = await givenHook({ app, db: failing, given: new Given(app, failing) });
      const ids = employeeIds(250);
      const batch = await post(app, hook, { type: 'people.batch', data: { events: ids.map((id) => joiner(id)) } });
      assert.equal(batch.statusCode, 202, batch.body);
      const [message] = await appliedWithin(app, hook, 60_000);
      assert.ok(failing.inserts >= 150, 'the failure happened');
      const events = (message.result as { events: Json[] }).events;
      assert.deepEqual(
        events.map((event) => [event.outcome, event.actorId]),
        ids.map((id) => ['created', `account|${HR}|${id}`]),
      );
      // Piece 1 (100), piece 2 until it failed (50), piece 2 again and piece 3 (150): the first piece was not applied again.
      assert.equal(failing.inserts, 300);
      const audit = await app.inject({ method: 'GET', url: '/api/audit?limit=1000', headers: hook.admin });
      const actions = (audit.json() as Array<{ action: string }>).map((entry) => entry.action);
      assert.equal(actions.filter((action) => action === 'actor.created').length, 250);
      assert.equal(actions.filter((action) => action === 'actor.updated').length, 0);
    } finally {
      await app.close();
      await dispose();
    }
  });
});
