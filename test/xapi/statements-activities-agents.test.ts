import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Json = Record<string, unknown>;

const statement = (actor: Json, object: Json): Json => ({
  actor,
  verb: { id: 'http://adlnet.gov/expapi/verbs/attended' },
  object,
});

describeEachBackend('xAPI activities and agents resources', (ctx) => {
  const store = async (tenant: GivenTenant, payload: unknown) => {
    const res = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: payload as never });
    assert.equal(res.statusCode, 200, res.body);
  };
  const get = (tenant: GivenTenant, url: string, query: Record<string, string>) =>
    ctx.app.inject({ method: 'GET', url: `${url}?${new URLSearchParams(query)}`, headers: tenant.xapi });

  describe('GET /xapi/activities', () => {
    it('answers the activity with the definition statements gave it', async () => {
      const tenant = await ctx.given.tenant();
      const object = {
        objectType: 'Activity',
        id: `http://example.com/meetings/${randomUUID()}`,
        definition: { name: { 'en-US': 'example meeting' }, type: 'http://adlnet.gov/expapi/activities/meeting' },
      };
      await store(tenant, statement({ mbox: 'mailto:a@example.com' }, object));
      const res = await get(tenant, '/xapi/activities', { activityId: object.id });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), object);
    });

    it('merges the languages of two statements and lets a later definition refine an earlier one', async () => {
      const tenant = await ctx.given.tenant();
      const id = `http://example.com/meetings/${randomUUID()}`;
      await store(
        tenant,
        statement(
          { mbox: 'mailto:a@example.com' },
          { id, definition: { name: { 'en-US': 'example meeting' }, moreInfo: 'http://example.com/1' } },
        ),
      );
      await store(
        tenant,
        statement({ mbox: 'mailto:a@example.com' }, { id, definition: { name: { 'fr-FR': 'réunion' }, moreInfo: 'http://example.com/2' } }),
      );
      const { definition } = (await get(tenant, '/xapi/activities', { activityId: id })).json();
      assert.deepEqual(definition.name, { 'en-US': 'example meeting', 'fr-FR': 'réunion' });
      assert.equal(definition.moreInfo, 'http://example.com/2');
    });

    it('learns definitions from context activities and within one batch', async () => {
      const tenant = await ctx.given.tenant();
      const parent = `http://example.com/courses/${randomUUID()}`;
      await store(tenant, [
        {
          ...statement({ mbox: 'mailto:a@example.com' }, { id: 'http://example.com/lesson' }),
          context: { contextActivities: { parent: { id: parent, definition: { name: { en: 'Course' } } } } },
        },
        statement({ mbox: 'mailto:a@example.com' }, { id: parent, definition: { name: { de: 'Kurs' } } }),
      ]);
      assert.deepEqual((await get(tenant, '/xapi/activities', { activityId: parent })).json().definition, {
        name: { en: 'Course', de: 'Kurs' },
      });
    });

    it('answers an activity no statement defined with its id alone', async () => {
      const tenant = await ctx.given.tenant();
      const id = `http://example.com/never/${randomUUID()}`;
      const res = await get(tenant, '/xapi/activities', { activityId: id });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { objectType: 'Activity', id });
    });

    it('answers 400 without activityId, with one that is not an IRI, or with another parameter', async () => {
      const tenant = await ctx.given.tenant();
      assert.equal((await get(tenant, '/xapi/activities', {})).statusCode, 400);
      assert.equal((await get(tenant, '/xapi/activities', { activityId: 'true' })).statusCode, 400);
      assert.equal((await get(tenant, '/xapi/activities', { activityId: 'http://example.com/a', foo: '1' })).statusCode, 400);
    });

    it('keeps definitions to their tenant', async () => {
      const a = await ctx.given.tenant();
      const b = await ctx.given.tenant();
      const id = `http://example.com/private/${randomUUID()}`;
      await store(a, statement({ mbox: 'mailto:a@example.com' }, { id, definition: { name: { en: 'Secret' } } }));
      assert.deepEqual((await get(b, '/xapi/activities', { activityId: id })).json(), { objectType: 'Activity', id });
    });
  });

  describe('GET /xapi/agents', () => {
    it('answers a Person with every name statements gave the agent', async () => {
      const tenant = await ctx.given.tenant();
      const mbox = `mailto:${randomUUID()}@example.com`;
      await store(tenant, statement({ mbox, name: 'Ann' }, { id: 'http://example.com/a' }));
      await store(tenant, statement({ mbox: 'mailto:other@example.com' }, { objectType: 'Agent', mbox, name: 'Ann Smith' }));
      const res = await get(tenant, '/xapi/agents', { agent: JSON.stringify({ mbox }) });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { objectType: 'Person', name: ['Ann', 'Ann Smith'], mbox: [mbox] });
    });

    it('answers a Person with just the identifier for an agent it never saw, in every IFI form', async () => {
      const tenant = await ctx.given.tenant();
      const account = { homePage: 'http://example.com', name: randomUUID() };
      assert.deepEqual((await get(tenant, '/xapi/agents', { agent: JSON.stringify({ account }) })).json(), {
        objectType: 'Person',
        account: [account],
      });
      const sha = 'a'.repeat(40);
      assert.deepEqual((await get(tenant, '/xapi/agents', { agent: JSON.stringify({ mbox_sha1sum: sha }) })).json(), {
        objectType: 'Person',
        mbox_sha1sum: [sha],
      });
      assert.deepEqual((await get(tenant, '/xapi/agents', { agent: JSON.stringify({ openid: 'http://example.com/me' }) })).json(), {
        objectType: 'Person',
        openid: ['http://example.com/me'],
      });
    });

    it('answers 400 without agent, with an invalid agent or with a Group', async () => {
      const tenant = await ctx.given.tenant();
      assert.equal((await get(tenant, '/xapi/agents', {})).statusCode, 400);
      assert.equal((await get(tenant, '/xapi/agents', { agent: '{"name":"no ifi"}' })).statusCode, 400);
      assert.equal((await get(tenant, '/xapi/agents', { agent: 'mailto:a@example.com' })).statusCode, 400);
      const group = JSON.stringify({ objectType: 'Group', mbox: 'mailto:g@example.com' });
      assert.equal((await get(tenant, '/xapi/agents', { agent: group })).statusCode, 400);
    });

    it('keeps names to their tenant and needs a credential', async () => {
      const a = await ctx.given.tenant();
      const b = await ctx.given.tenant();
      const mbox = `mailto:${randomUUID()}@example.com`;
      await store(a, statement({ mbox, name: 'Private' }, { id: 'http://example.com/a' }));
      assert.deepEqual((await get(b, '/xapi/agents', { agent: JSON.stringify({ mbox }) })).json(), { objectType: 'Person', mbox: [mbox] });
      const anonymous = await ctx.app.inject({
        method: 'GET',
        url: `/xapi/agents?agent=${encodeURIComponent(JSON.stringify({ mbox }))}`,
        headers: { 'x-experience-api-version': '2.0.0', 'x-svc-tenant': a.name },
      });
      assert.equal(anonymous.statusCode, 401);
    });
  });
});
