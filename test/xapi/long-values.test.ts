import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { MAX_ACCOUNT_PART_BYTES, MAX_DOCUMENT_ID_BYTES, MAX_IFI_BYTES, MAX_IRI_BYTES } from '../../src/kernel/limits.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { randomText, utf8Bytes } from '../support/long-text.js';

/**
 * Identifiers the LRS indexes are held to the lengths of src/kernel/limits.ts (issue 24: a
 * longer one failed the index with SQLSTATE 54000, a 500). At its limit, in random multi-byte
 * characters that do not compress, with every other part of the same index at its own limit, a
 * value is stored and read back; one byte more is a 400 naming the field, and nothing of the
 * request is stored. Names are free text of any length.
 */

type Json = Record<string, unknown>;

const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';

/** The longest values each field may hold, made afresh (random) on every call. */
const longest = {
  iri: (prefix = 'http://example.com/a/') => randomText(MAX_IRI_BYTES, prefix),
  mbox: () => `mailto:${randomText((MAX_IFI_BYTES - 8) / 2)}@${randomText((MAX_IFI_BYTES - 8) / 2)}`,
  openid: () => randomText(MAX_IFI_BYTES, 'http://id.example.com/'),
  account: () => ({ homePage: randomText(MAX_ACCOUNT_PART_BYTES, 'http://hr.example.com/'), name: randomText(MAX_ACCOUNT_PART_BYTES) }),
  documentId: () => randomText(MAX_DOCUMENT_ID_BYTES),
};

/** One byte over: the longest value and one ASCII character more. */
const over = (text: string) => `${text}x`;

function statement(overrides: Json = {}): Json {
  const n = randomUUID().slice(0, 8);
  return {
    id: randomUUID(),
    actor: { mbox: `mailto:learner-${n}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
    object: { id: `http://example.com/activities/${n}` },
    ...overrides,
  };
}

function client(ctx: TestContext, tenant: GivenTenant) {
  return {
    post: (payload: unknown) =>
      ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: payload as never }),
    get: (path: string, query: Record<string, string>) =>
      ctx.app.inject({ method: 'GET', url: `${path}?${new URLSearchParams(query)}`, headers: tenant.xapi }),
    document: (method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, query: Record<string, string>, payload?: string) =>
      ctx.app.inject({
        method,
        url: `${path}?${new URLSearchParams(query)}`,
        headers: { ...tenant.xapi, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'if-none-match': '*' }) },
        payload,
      }),
  };
}

/** A 400 whose message names `property` (and whose details say it, when they name one). */
function assertNames(res: { statusCode: number; body: string; json(): any }, property: string, code?: string) {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json();
  if (code) assert.equal(body.code, code);
  // agent.ts quotes the agent's own path: 'statement.actor'.mbox.
  assert.ok(body.message.replaceAll("'", '').includes(property), `"${body.message}" names ${property}`);
  assert.match(body.message, /must be at most \d+ bytes of UTF-8/);
  if (body.details?.property !== undefined) assert.equal(body.details.property, property);
}

describeEachBackend('long identifiers in xAPI', (ctx) => {
  describe('POST /xapi/statements', () => {
    const fields: Array<[string, (value: string) => Json, () => string]> = [
      ['statement.actor.mbox', (mbox) => ({ actor: { mbox } }), longest.mbox],
      ['statement.actor.openid', (openid) => ({ actor: { openid } }), longest.openid],
      [
        'statement.actor.account.name',
        (name) => ({ actor: { account: { homePage: 'http://hr.example.com', name } } }),
        () => longest.account().name,
      ],
      [
        'statement.actor.account.homePage',
        (homePage) => ({ actor: { account: { homePage, name: 'e1' } } }),
        () => longest.account().homePage,
      ],
      [
        'statement.actor.member[1].mbox',
        (mbox) => ({ actor: { objectType: 'Group', member: [{ mbox: 'mailto:a@example.com' }, { mbox }] } }),
        longest.mbox,
      ],
      ['statement.verb.id', (id) => ({ verb: { id } }), () => longest.iri('http://example.com/verbs/')],
      ['statement.object.id', (id) => ({ object: { id } }), longest.iri],
      ['statement.context.contextActivities.parent[0].id', (id) => ({ context: { contextActivities: { parent: [{ id }] } } }), longest.iri],
      ['statement.object.mbox', (mbox) => ({ object: { objectType: 'Agent', mbox } }), longest.mbox],
    ];

    for (const [field, place, make] of fields) {
      const property = field.slice('statement.'.length);
      it(`stores ${field} at its limit and refuses it one byte over, storing nothing of the batch`, async () => {
        const tenant = await ctx.given.tenant();
        const { post, get } = client(ctx, tenant);
        const value = make();
        assert.ok(utf8Bytes(value) >= MAX_ACCOUNT_PART_BYTES && utf8Bytes(value) < value.length * 4, 'the value is long and multi-byte');

        const fits = statement(place(value));
        const res = await post(fits);
        assert.equal(res.statusCode, 200, res.body);
        const read = await get('/xapi/statements', { statementId: fits.id as string, format: 'exact' });
        assert.equal(read.statusCode, 200);
        for (const key of ['actor', 'verb', 'object', 'context'] as const) assert.deepEqual(read.json()[key], fits[key]);

        const alone = statement(place(over(value)));
        assertNames(await post(alone), `statement.${property}`);
        const neighbour = statement();
        assertNames(await post([neighbour, statement(place(over(value)))]), `statements[1].${property}`);
        for (const id of [alone.id, neighbour.id])
          assert.equal((await get('/xapi/statements', { statementId: id as string })).statusCode, 404);
      });
    }

    it('stores a statement whose every indexed part is at its limit, its completion record and its parent link included', async () => {
      const tenant = await ctx.given.tenant();
      const { post, get } = client(ctx, tenant);
      const actor = { account: longest.account() };
      const sent = [
        statement({
          actor,
          verb: { id: COMPLETED },
          object: { id: longest.iri() },
          context: { registration: randomUUID(), contextActivities: { parent: [{ id: longest.iri() }], grouping: { id: longest.iri() } } },
        }),
        statement({ actor, verb: { id: longest.iri('http://example.com/verbs/') }, object: { objectType: 'Agent', mbox: longest.mbox() } }),
        statement({ actor: { openid: longest.openid() }, object: { objectType: 'StatementRef', id: randomUUID() } }),
      ];
      const res = await post(sent);
      assert.equal(res.statusCode, 200, res.body);
      for (const item of sent) {
        const read = await get('/xapi/statements', { statementId: item.id as string, format: 'exact' });
        assert.deepEqual(read.json().object, item.object);
      }
      // Found by each long key.
      const first = sent[0] as { object: { id: string }; context: { contextActivities: { parent: Array<{ id: string }> } } };
      const byAgent = await get('/xapi/statements', { agent: JSON.stringify(actor), activity: first.object.id });
      assert.deepEqual(
        byAgent.json().statements.map((item: Json) => item.id),
        [sent[0].id],
      );
      const byParent = await get('/xapi/statements', {
        activity: first.context.contextActivities.parent[0].id,
        related_activities: 'true',
      });
      assert.deepEqual(
        byParent.json().statements.map((item: Json) => item.id),
        [sent[0].id],
      );
      const byVerb = await get('/xapi/statements', { verb: (sent[1].verb as Json).id as string });
      assert.deepEqual(
        byVerb.json().statements.map((item: Json) => item.id),
        [sent[1].id],
      );

      const completions = await ctx.app.inject({
        method: 'GET',
        url: `/api/actors/completions?${new URLSearchParams({ agent: JSON.stringify(actor) })}`,
        headers: tenant.headers,
      });
      assert.equal(completions.statusCode, 200, completions.body);
      assert.deepEqual(
        completions.json().map((record: Json) => [record.activityId, record.status]),
        [[first.object.id, 'completed']],
      );
      const agents = await get('/xapi/agents', { agent: JSON.stringify(actor) });
      assert.equal(agents.statusCode, 200);
    });

    it('stores an actor name of any length and reads it back', async () => {
      const tenant = await ctx.given.tenant();
      const { post, get } = client(ctx, tenant);
      const name = randomText(20_000);
      const sent = statement({ actor: { objectType: 'Agent', name, mbox: 'mailto:long-name@example.com' } });
      const res = await post(sent);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await get('/xapi/statements', { statementId: sent.id as string })).json().actor.name, name);
      const person = await get('/xapi/agents', { agent: JSON.stringify({ mbox: 'mailto:long-name@example.com' }) });
      assert.deepEqual(person.json().name, [name]);
    });
  });

  describe('query parameters compared with the indexes', () => {
    it('answers no match for a long activity or verb, and 400 naming the agent parameter for a long agent', async () => {
      const tenant = await ctx.given.tenant();
      const { post, get } = client(ctx, tenant);
      assert.equal((await post(statement())).statusCode, 200);
      const huge = randomText(5000, 'http://example.com/');
      const queries: Array<Record<string, string>> = [{ activity: huge }, { verb: huge }, { activity: huge, related_activities: 'true' }];
      for (const query of queries) {
        const res = await get('/xapi/statements', query);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json().statements, []);
      }
      // xAPI answers an Activity it knows nothing about with its id alone.
      const activity = await get('/xapi/activities', { activityId: huge });
      assert.equal(activity.statusCode, 200, activity.body);
      assert.equal(activity.json().id, huge);
      const agent = JSON.stringify({ mbox: `mailto:${randomText(5000)}@example.com` });
      assertNames(await get('/xapi/statements', { agent }), 'agent.mbox', 'xapi.invalid_agent');
      assertNames(await get('/xapi/agents', { agent }), 'agent.mbox', 'xapi.invalid_agent');
      const actorId = `account|http://hr.example.com|${randomText(5000)}`;
      assertNames(
        await get('/xapi/activities/state', { activityId: 'http://example.com/a', actorId }),
        'actorId.account.name',
        'xapi.invalid_agent',
      );
    });
  });

  describe('the document resources', () => {
    it('stores a state whose activityId, agent, registration and stateId are all at their limits, and reads it back', async () => {
      const tenant = await ctx.given.tenant();
      const { document } = client(ctx, tenant);
      const query = {
        activityId: longest.iri(),
        agent: JSON.stringify({ account: longest.account() }),
        registration: randomUUID(),
        stateId: longest.documentId(),
      };
      assert.equal((await document('PUT', '/xapi/activities/state', query, '{"page":1}')).statusCode, 204);
      const read = await document('GET', '/xapi/activities/state', query);
      assert.equal(read.statusCode, 200);
      assert.deepEqual(read.json(), { page: 1 });
      const { stateId: _stateId, ...scope } = query;
      assert.deepEqual((await document('GET', '/xapi/activities/state', scope)).json(), [query.stateId]);
    });

    it('stores activity and agent profiles at their limits and reads them back', async () => {
      const tenant = await ctx.given.tenant();
      const { document } = client(ctx, tenant);
      const activityProfile = { activityId: longest.iri(), profileId: longest.documentId() };
      const agentProfile = { agent: JSON.stringify({ account: longest.account() }), profileId: longest.documentId() };
      for (const [path, query] of [
        ['/xapi/activities/profile', activityProfile],
        ['/xapi/agents/profile', agentProfile],
      ] as const) {
        assert.equal((await document('PUT', path, query, '{"p":1}')).statusCode, 204);
        assert.deepEqual((await document('GET', path, query)).json(), { p: 1 });
      }
    });

    it('refuses each addressing parameter one byte over its limit, on every method, and stores nothing', async () => {
      const tenant = await ctx.given.tenant();
      const { document } = client(ctx, tenant);
      const state = { activityId: 'http://example.com/a', agent: JSON.stringify({ mbox: 'mailto:a@example.com' }), stateId: 's' };
      const cases: Array<[string, string, Record<string, string>]> = [
        ['stateId', '/xapi/activities/state', { ...state, stateId: over(longest.documentId()) }],
        ['activityId', '/xapi/activities/state', { ...state, activityId: over(longest.iri()) }],
        [
          'agent.account.name',
          '/xapi/activities/state',
          { ...state, agent: JSON.stringify({ account: { ...longest.account(), name: over(longest.account().name) } }) },
        ],
        ['profileId', '/xapi/activities/profile', { activityId: 'http://example.com/a', profileId: over(longest.documentId()) }],
        ['activityId', '/xapi/activities/profile', { activityId: over(longest.iri()), profileId: 'p' }],
        ['profileId', '/xapi/agents/profile', { agent: state.agent, profileId: over(longest.documentId()) }],
        ['agent.openid', '/xapi/agents/profile', { agent: JSON.stringify({ openid: over(longest.openid()) }), profileId: 'p' }],
      ];
      for (const [property, path, query] of cases) {
        for (const method of ['PUT', 'POST', 'GET', 'DELETE'] as const) {
          const res = await document(method, path, query, method === 'PUT' || method === 'POST' ? '{"a":1}' : undefined);
          assertNames(res, property);
        }
      }
      const stored = await ctx.db.query('SELECT 1 FROM xapi_documents WHERE tenant_id = $1', [tenant.id]);
      assert.equal(stored.rows.length, 0);
    });
  });
});
