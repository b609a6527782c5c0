import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Headers = Record<string, string>;
type Actor = Record<string, any>;

const SERVICE_DOMAIN = 'lrs.example.com';
const ATTRIBUTES = `http://${SERVICE_DOMAIN}/api/ext/agent/attributes`;

const upsert = (ctx: TestContext, headers: Headers, payload: unknown, method: 'PUT' | 'POST' = 'PUT') =>
  ctx.app.inject({ method, url: '/api/actors/agents', headers, payload: payload as object });
const listActors = async (ctx: TestContext, tenant: GivenTenant): Promise<Actor[]> => {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/actors?limit=1000', headers: tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  // A statement's authority (the API key's agent) is an actor too: not the one these tests write.
  return (res.json() as Actor[]).filter((actor) => actor.account?.name !== tenant.key);
};
const audit = async (ctx: TestContext, tenant: GivenTenant, query = ''): Promise<Actor[]> => {
  const res = await ctx.app.inject({ method: 'GET', url: `/api/audit${query}`, headers: tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
const withAttributes = (agent: Actor, attributes: Record<string, string>, key = ATTRIBUTES) => ({
  ...agent,
  extensions: { [key]: attributes },
});

describeEachBackend(
  'PUT /api/actors/agents',
  (ctx) => {
    const home = (tenant: GivenTenant) => `http://${tenant.name}.${ctx.config.baseDomain}`;

    it('creates (201) and then updates (200) an agent by each kind of identifier, answering the stored actor', async () => {
      const tenant = await ctx.given.tenant();
      const identifiers = [
        { mbox: 'mailto:ada@example.com' },
        { mbox_sha1sum: 'ab'.repeat(20) },
        { openid: 'http://id.example.com/ada' },
        { account: { homePage: 'http://hr.example.com', name: 'E1' } },
      ];
      for (const ifi of identifiers) {
        const created = await upsert(ctx, tenant.headers, { objectType: 'Agent', name: 'Ada', ...ifi });
        assert.equal(created.statusCode, 201, created.body);
        assert.deepEqual(created.json(), { objectType: 'Agent', name: 'Ada', ...ifi });
        const updated = await upsert(ctx, tenant.headers, { name: 'Ada Lovelace', ...ifi });
        assert.equal(updated.statusCode, 200, updated.body);
        assert.deepEqual(updated.json(), { objectType: 'Agent', name: 'Ada Lovelace', ...ifi });
      }
      const actors = await listActors(ctx, tenant);
      assert.equal(actors.length, 4);
      assert.ok(actors.every((actor) => actor.name === 'Ada Lovelace'));
      // The sha1sum is stored in its canonical (lower-case) form: sending it in capitals is the same agent.
      const again = await upsert(ctx, tenant.headers, { mbox_sha1sum: 'AB'.repeat(20) });
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().name, 'Ada Lovelace', 'a name not sent stays');
    });

    it('stores the attributes under the service domain’s key, keeps them when not sent, replaces them when sent', async () => {
      const tenant = await ctx.given.tenant();
      const agent = { mbox: 'mailto:bob@example.com' };
      const created = await upsert(
        ctx,
        tenant.headers,
        withAttributes(agent, { email: 'bob@example.com', city: 'Oslo' }, 'https://old.example.net/api/ext/agent/attributes'),
      );
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(created.json().extensions, { [ATTRIBUTES]: { email: 'bob@example.com', city: 'Oslo' } });
      const renamed = await upsert(ctx, tenant.headers, { ...agent, name: 'Bob', extensions: { 'http://example.com/ignored': { a: 1 } } });
      assert.equal(renamed.statusCode, 200);
      assert.deepEqual(renamed.json().extensions, { [ATTRIBUTES]: { email: 'bob@example.com', city: 'Oslo' } });
      const replaced = await upsert(ctx, tenant.headers, withAttributes(agent, { email: 'bob@example.com' }));
      assert.deepEqual(replaced.json(), {
        objectType: 'Agent',
        name: 'Bob',
        ...agent,
        extensions: { [ATTRIBUTES]: { email: 'bob@example.com' } },
      });
      assert.deepEqual(await listActors(ctx, tenant), [replaced.json()]);
    });

    it('matches an existing actor by a unique attribute and answers that actor’s identifier, enriched as GET /api/actors shows it', async () => {
      const tenant = await ctx.given.tenant();
      assert.equal(
        (await ctx.app.inject({ method: 'PUT', url: '/api/settings', headers: tenant.headers, payload: { jobAttribute: 'jobCode' } }))
          .statusCode,
        200,
      );
      assert.equal(
        (
          await ctx.app.inject({
            method: 'PUT',
            url: '/api/import/jobs',
            headers: tenant.headers,
            payload: [{ id: 'J1', name: 'Engineer', competencies: [] }],
          })
        ).statusCode,
        204,
      );
      const imported = await ctx.app.inject({
        method: 'POST',
        url: '/api/import/users',
        headers: tenant.headers,
        payload: { users: [{ name: 'Ada', attributes: { email: 'ada@x' } }] },
      });
      assert.equal(imported.json().new, 1, imported.body);
      const account = { homePage: home(tenant), name: 'ada@x' };

      const matched = await upsert(ctx, tenant.headers, {
        name: 'Ada L.',
        mbox: 'mailto:someone-else@example.com',
        extensions: { [ATTRIBUTES]: { email: 'ada@x', jobCode: 'J1' } },
      });
      assert.equal(matched.statusCode, 200, matched.body);
      const ext = (name: string) => `http://${SERVICE_DOMAIN}/api/ext/agent/${name}`;
      assert.deepEqual(matched.json(), {
        objectType: 'Agent',
        name: 'Ada L.',
        account,
        extensions: {
          [ext('attributes')]: { email: 'ada@x', jobCode: 'J1' },
          [ext('job')]: { id: 'J1', name: 'Engineer', competencies: [], attributes: {} },
        },
      });
      assert.deepEqual(await listActors(ctx, tenant), [matched.json()], 'one actor, the sent mbox not stored');

      // The identifiers follow the attributes: a changed email frees the old one.
      assert.equal((await upsert(ctx, tenant.headers, withAttributes({ account }, { email: 'ada.new@x' }))).statusCode, 200);
      const byNew = await upsert(ctx, tenant.headers, withAttributes({ mbox: 'mailto:third@example.com' }, { email: 'ada.new@x' }));
      assert.equal(byNew.statusCode, 200);
      assert.deepEqual(byNew.json().account, account);
      const byOld = await upsert(ctx, tenant.headers, withAttributes({ mbox: 'mailto:fourth@example.com' }, { email: 'ada@x' }));
      assert.equal(byOld.statusCode, 201, 'the old value identifies nobody any more');
      assert.equal(byOld.json().mbox, 'mailto:fourth@example.com');

      // The user import now meets the upserted person through the same identifiers.
      const reimport = await ctx.app.inject({
        method: 'POST',
        url: '/api/import/users',
        headers: tenant.headers,
        payload: { users: [{ name: 'Ada', attributes: { email: 'ada.new@x' } }] },
      });
      assert.deepEqual([reimport.json().new, reimport.json().existing], [0, 1]);

      const entries = await audit(ctx, tenant, '?action=actor.updated');
      const first = entries.at(-1)!;
      assert.deepEqual(
        [first.actorId, first.actor, first.details],
        [`account|${account.homePage}|ada@x`, { account }, { name: 'Ada L.', matchedBy: 'attributes.email' }],
      );
    });

    it('refuses with 409 an agent whose identifier and attributes match two different actors, changing nothing', async () => {
      const tenant = await ctx.given.tenant();
      assert.equal(
        (
          await ctx.app.inject({
            method: 'PUT',
            url: '/api/settings',
            headers: tenant.headers,
            payload: { uniqueAttributes: ['email', 'employeeId'] },
          })
        ).statusCode,
        200,
      );
      const ada = { mbox: 'mailto:ada@example.com' };
      assert.equal((await upsert(ctx, tenant.headers, withAttributes(ada, { email: 'ada@x', employeeId: 'E1' }))).statusCode, 201);
      assert.equal(
        (await upsert(ctx, tenant.headers, withAttributes({ mbox: 'mailto:bob@example.com' }, { email: 'bob@x', employeeId: 'E2' })))
          .statusCode,
        201,
      );
      const before = await listActors(ctx, tenant);

      const twoValues = await upsert(
        ctx,
        tenant.headers,
        withAttributes({ mbox: 'mailto:new@example.com' }, { email: 'ada@x', employeeId: 'E2' }),
      );
      assert.equal(twoValues.statusCode, 409, twoValues.body);
      assert.equal(twoValues.json().code, 'actors.ambiguous_match');
      assert.match(twoValues.json().message, /The attribute "email" matches one actor and the attribute "employeeId" another/);
      const keyAndValue = await upsert(ctx, tenant.headers, withAttributes(ada, { email: 'bob@x' }));
      assert.equal(keyAndValue.statusCode, 409);
      assert.match(keyAndValue.json().message, /The identifier \(mbox\) matches one actor and the attribute "email" another/);
      assert.deepEqual(keyAndValue.json().details.matches, [
        { matchedBy: 'mbox', actorId: 'mbox|mailto:ada@example.com' },
        { matchedBy: 'attributes.email', actorId: 'mbox|mailto:bob@example.com' },
      ]);
      assert.deepEqual(await listActors(ctx, tenant), before);
      assert.equal((await audit(ctx, tenant)).length, 2, 'no entry for a refused write');
    });

    it('refuses every invalid agent with 400 actors.invalid_agent naming the problem', async () => {
      const tenant = await ctx.given.tenant();
      const cases: Array<[unknown, RegExp]> = [
        [{ name: 'Nobody' }, /exactly one inverse functional identifier.*it has 0/],
        [
          { mbox: 'mailto:a@example.com', account: { homePage: 'http://hr.example.com', name: 'E1' } },
          /exactly one inverse functional identifier.*it has 2/,
        ],
        [{ mbox: 'a@example.com' }, /'agent'\.mbox must be a "mailto:" IRI of an e-mail address/],
        [{ account: { name: 'E1' } }, /'agent'\.account\.homePage must be an absolute IRL/],
        [{ account: { homePage: 'http://hr.example.com' } }, /'agent'\.account\.name must be a non-empty string/],
        [withAttributes({ mbox: 'mailto:a@example.com' }, { age: 42 } as never), /The value of attribute "age" must be a string/],
        [withAttributes({ mbox: 'mailto:a@example.com' }, ['x'] as never), /must be an object of attribute names to string values/],
        [{ mbox: 'mailto:a@example.com', name: ['Ada'] }, /'agent'\.name must be a string/],
        [
          { objectType: 'Group', mbox: 'mailto:team@example.com', member: [] },
          /objectType must be "Agent": groups are recorded from the statements/,
        ],
        [{ mbox: 'mailto:a@example.com', role: 'admin' }, /property "role", which an agent does not have/],
        [{ mbox: 'mailto:a@example.com', name: 'A\u0000' }, /'agent'\.name must not contain U\+0000/],
        [[{ mbox: 'mailto:a@example.com' }], /must be a JSON object/],
      ];
      for (const [body, message] of cases) {
        const res = await upsert(ctx, tenant.headers, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().code, 'actors.invalid_agent', res.body);
        assert.match(res.json().message, message, JSON.stringify(body));
      }
      const loneSurrogate = await ctx.app.inject({
        method: 'PUT',
        url: '/api/actors/agents',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        payload: '{"mbox":"mailto:a@example.com","extensions":{"http://x/api/ext/agent/attributes":{"city":"\\ud800"}}}',
      });
      assert.equal(loneSurrogate.statusCode, 400);
      assert.match(loneSurrogate.json().message, /lone surrogate/);
      assert.deepEqual(await listActors(ctx, tenant), []);
    });

    it('refuses to write an agent under a group’s identifier (409)', async () => {
      const tenant = await ctx.given.tenant();
      const team = { objectType: 'Group', name: 'Team', mbox: 'mailto:team@example.com', member: [{ mbox: 'mailto:a@example.com' }] };
      const statement = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: tenant.xapi,
        payload: { actor: team, verb: { id: 'http://adlnet.gov/expapi/verbs/attended' }, object: { id: 'http://example.com/meeting' } },
      });
      assert.equal(statement.statusCode, 200, statement.body);
      const res = await upsert(ctx, tenant.headers, { mbox: 'mailto:team@example.com', name: 'Not a team' });
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().code, 'actors.not_an_agent');
    });

    it('stores the svc-account-source header with each write in the audit log, and refuses a too long one', async () => {
      const tenant = await ctx.given.tenant();
      const agent = { name: 'Cy', account: { homePage: 'http://hr.example.com', name: 'E9' } };
      assert.equal((await upsert(ctx, { ...tenant.headers, 'svc-account-source': ' hr-sync ' }, agent)).statusCode, 201);
      assert.equal((await upsert(ctx, { ...tenant.headers, 'svc-account-source': 'crm' }, { ...agent, name: 'Cyd' })).statusCode, 200);
      const entries = await audit(ctx, tenant);
      assert.deepEqual(
        entries.map((entry) => [entry.action, entry.source, entry.actorId, entry.details]),
        [
          ['actor.updated', 'crm', 'account|http://hr.example.com|E9', { name: 'Cyd', matchedBy: 'account' }],
          ['actor.created', 'hr-sync', 'account|http://hr.example.com|E9', { name: 'Cy' }],
        ],
      );
      assert.deepEqual(entries[0].principal, { kind: 'api_key', id: tenant.key });
      assert.equal((await audit(ctx, tenant, '?source=hr-sync')).length, 1);

      const tooLong = await upsert(ctx, { ...tenant.headers, 'svc-account-source': 'x'.repeat(201) }, { ...agent, name: 'Never' });
      assert.equal(tooLong.statusCode, 400);
      assert.equal(tooLong.json().code, 'audit.invalid_source');
      assert.equal((await listActors(ctx, tenant))[0].name, 'Cyd');
      assert.equal((await audit(ctx, tenant)).length, 2);
    });

    it('makes exactly one actor of ten concurrent upserts of one person', async () => {
      const tenant = await ctx.given.tenant();
      // The same unique attribute under ten different identifiers: the first creates, the others match it.
      const byAttribute = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          upsert(ctx, tenant.headers, withAttributes({ mbox: `mailto:p${index}@example.com` }, { email: 'same@x' })),
        ),
      );
      assert.deepEqual(
        byAttribute.map((res) => res.statusCode).sort(),
        [200, 200, 200, 200, 200, 200, 200, 200, 200, 201],
        byAttribute.map((res) => res.body).join('\n'),
      );
      assert.equal(new Set(byAttribute.map((res) => res.json().mbox)).size, 1, 'every answer is the one actor');
      // The same identifier ten times.
      const byKey = await Promise.all(
        Array.from({ length: 10 }, (_, index) => upsert(ctx, tenant.headers, { mbox: 'mailto:one@example.com', name: `One ${index}` })),
      );
      assert.deepEqual(byKey.map((res) => res.statusCode).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
      assert.equal((await listActors(ctx, tenant)).length, 2);
      assert.equal((await audit(ctx, tenant, '?action=actor.created')).length, 2);
    });

    it('answers POST as PUT', async () => {
      const tenant = await ctx.given.tenant();
      const agent = { name: 'Dee', account: { homePage: 'http://hr.example.com', name: 'E4' } };
      const created = await upsert(ctx, tenant.headers, agent, 'POST');
      assert.equal(created.statusCode, 201, created.body);
      const updated = await upsert(ctx, tenant.headers, withAttributes(agent, { email: 'dee@x' }), 'POST');
      assert.equal(updated.statusCode, 200);
      assert.deepEqual(updated.json(), { objectType: 'Agent', ...agent, extensions: { [ATTRIBUTES]: { email: 'dee@x' } } });
      assert.equal((await upsert(ctx, tenant.headers, { name: 'x' }, 'POST')).statusCode, 400);
    });

    it('refuses an actor credential (403): writing agents is for tenant-wide principals', async () => {
      const tenant = await ctx.given.tenant();
      const account = { homePage: 'http://hr.example.com', name: 'E7' };
      assert.equal((await upsert(ctx, tenant.headers, { account })).statusCode, 201);
      const credential = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/basic',
        headers: tenant.headers,
        payload: { username: `u-${tenant.name}`, password: 'a-long-random-password', data: { actor: { account } } },
      });
      assert.equal(credential.statusCode, 201, credential.body);
      const learner = {
        authorization: `Basic ${Buffer.from(`u-${tenant.name}:a-long-random-password`).toString('base64')}`,
        'x-svc-tenant': tenant.name,
      };
      const res = await upsert(ctx, learner, { account, name: 'Me' });
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().code, 'auth.forbidden');
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: learner })).statusCode, 403);
    });

    it('keeps tenants apart: another tenant’s key is refused, and never matches this tenant’s actors', async () => {
      const a = await ctx.given.tenant();
      const b = await ctx.given.tenant();
      const ada = withAttributes({ mbox: 'mailto:ada@example.com', name: 'Ada' }, { email: 'ada@x' });
      assert.equal((await upsert(ctx, a.headers, ada)).statusCode, 201);
      const crossed = await upsert(ctx, { ...b.headers, 'x-svc-tenant': a.name }, { ...ada, name: 'Stolen' });
      assert.equal(crossed.statusCode, 401);
      assert.equal((await upsert(ctx, { 'x-svc-tenant': a.name }, ada)).statusCode, 401, 'no credential');
      // B's own write of the same person (same identifier, same unique value) is B's own new actor.
      const inB = await upsert(ctx, b.headers, withAttributes({ mbox: 'mailto:other@example.com', name: 'Ada in B' }, { email: 'ada@x' }));
      assert.equal(inB.statusCode, 201);
      const matchedInB = await upsert(ctx, b.headers, { ...ada, name: 'Ada B' });
      assert.equal(matchedInB.statusCode, 200, 'the email matches B’s actor, not A’s');
      assert.equal(matchedInB.json().mbox, 'mailto:other@example.com');
      assert.deepEqual(
        (await listActors(ctx, a)).map((actor) => [actor.name, actor.mbox]),
        [['Ada', 'mailto:ada@example.com']],
      );
      assert.equal((await listActors(ctx, b)).length, 1);
      assert.equal((await audit(ctx, a)).length, 1);
    });
  },
  { serviceDomain: SERVICE_DOMAIN },
);
