import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { it } from 'node:test';
import { compileCriteria, type Criteria } from '../../src/modules/actors/search/actor-search-compiler.js';
import { SqlValues } from '../../src/platform/database/sql-filters.js';
import { MAX_ACCOUNT_PART_BYTES, MAX_IFI_BYTES } from '../../src/kernel/limits.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { randomText } from '../support/long-text.js';

/**
 * `PUT /api/actors/agents` with long values (issue 24): a name is free text of any length (its
 * index holds a prefix, migration 0022) and search still finds it by eq and in through that
 * index; an identifier (mbox, openid, account homePage and name, a unique attribute's value) is
 * held to src/kernel/limits.ts, a 400 naming it one byte over, nothing stored.
 */

type Headers = Record<string, string>;
type Actor = Record<string, any>;

const SERVICE_DOMAIN = 'lrs.example.com';
const ATTRIBUTES = `http://${SERVICE_DOMAIN}/api/ext/agent/attributes`;

const upsert = (ctx: TestContext, headers: Headers, payload: unknown) =>
  ctx.app.inject({ method: 'PUT', url: '/api/actors/agents', headers, payload: payload as object });
const search = (ctx: TestContext, headers: Headers, criteria: unknown) =>
  ctx.app.inject({ method: 'POST', url: '/api/actors/search', headers, payload: { criteria } });
const storedActors = async (ctx: TestContext, tenant: GivenTenant) =>
  (
    await ctx.db.query<{ agent_key: string }>(
      'SELECT agent_key FROM actors WHERE tenant_id = $1 AND attributes IS NOT NULL OR tenant_id = $1 AND name IS NOT NULL',
      [tenant.id],
    )
  ).rows;

/**
 * `count` random CJK ideographs, three bytes each: 1,000 of them (the longest value a search takes)
 * are 3,000 bytes, past what a B-tree entry holds.
 */
const ideographs = (count: number) => Array.from({ length: count }, () => String.fromCodePoint(0x4e00 + randomInt(0x5000))).join('');

describeEachBackend(
  'long values in the actor store',
  (ctx) => {
    it('stores a name of any length, answers it whole, and finds it by eq and in but not by a name sharing its first 200 characters', async () => {
      const tenant = await ctx.given.tenant();
      const shared = ideographs(400);
      const names = { a: `${shared}${ideographs(600)}`, b: `${shared}${ideographs(600)}`, huge: randomText(50_000) };
      for (const [n, name] of Object.entries(names)) {
        const res = await upsert(ctx, tenant.headers, { name, mbox: `mailto:${n}@example.com` });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().name, name);
      }
      const found = async (criteria: unknown) => {
        const res = await search(ctx, tenant.headers, criteria);
        assert.equal(res.statusCode, 200, res.body);
        return (res.json().actors as Actor[]).map((actor) => actor.mbox).sort();
      };
      assert.deepEqual(await found({ field: 'name', op: 'eq', value: names.a }), ['mailto:a@example.com']);
      assert.deepEqual(await found({ field: 'name', op: 'in', value: [names.b, `${shared}x`] }), ['mailto:b@example.com']);
      assert.deepEqual(await found({ not: { field: 'name', op: 'eq', value: names.a } }), [
        'mailto:b@example.com',
        'mailto:huge@example.com',
      ]);
      assert.deepEqual(await found({ field: 'name', op: 'startsWith', value: shared }), ['mailto:a@example.com', 'mailto:b@example.com']);

      // A statement's actor name is shown (and indexed) when nothing else named the actor.
      const spoken = ideographs(1000);
      const statement = {
        actor: { name: spoken, mbox: 'mailto:c@example.com' },
        verb: { id: 'http://example.com/v' },
        object: { id: 'http://example.com/o' },
      };
      assert.equal(
        (await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: statement })).statusCode,
        200,
      );
      assert.deepEqual(await found({ field: 'name', op: 'eq', value: spoken }), ['mailto:c@example.com']);
    });

    it('finds names by eq and in through the prefix index', async () => {
      const tenant = await ctx.given.tenant();
      const plan = async (criteria: Criteria) => {
        const parameters = new SqlValues([tenant.id]);
        const condition = compileCriteria(criteria, { tenantParameter: '$1', organisationAttribute: null, jobAttribute: null }, parameters);
        return ctx.db.transaction(async (tx) => {
          // Few rows here: a sequential scan would win on cost; what matters is that the index can serve the condition.
          await tx.script('SET LOCAL enable_seqscan = off');
          const { rows } = await tx.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN SELECT a.agent_key FROM actors a WHERE a.tenant_id = $1 AND ${condition}`,
            parameters.values,
          );
          return rows.map((row) => row['QUERY PLAN']).join('\n');
        });
      };
      assert.match(await plan({ field: 'name', op: 'eq', value: 'Ada' }), /actors__tenant_id_shown_name_prefix/);
      assert.match(await plan({ field: 'name', op: 'in', value: ['Ada', 'Bob'] }), /actors__tenant_id_shown_name_prefix/);
    });

    it('refuses each identifier one byte over its limit with 400 naming it, and stores an agent at every limit', async () => {
      const tenant = await ctx.given.tenant();
      const longest = {
        mbox: `mailto:${randomText((MAX_IFI_BYTES - 8) / 2)}@${randomText((MAX_IFI_BYTES - 8) / 2)}`,
        openid: randomText(MAX_IFI_BYTES, 'http://id.example.com/'),
        homePage: randomText(MAX_ACCOUNT_PART_BYTES, 'http://hr.example.com/'),
        name: randomText(MAX_ACCOUNT_PART_BYTES),
      };
      const cases: Array<[string, Actor]> = [
        ['mbox', { mbox: `${longest.mbox}x` }],
        ['openid', { openid: `${longest.openid}x` }],
        ['account.homePage', { account: { homePage: `${longest.homePage}x`, name: 'e1' } }],
        ['account.name', { account: { homePage: 'http://hr.example.com', name: `${longest.name}x` } }],
      ];
      for (const [property, agent] of cases) {
        const res = await upsert(ctx, tenant.headers, { name: 'Ada', ...agent });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().code, 'actors.invalid_agent');
        assert.equal(res.json().details.property, property);
        assert.match(res.json().message, new RegExp(`${property.replace('.', '\\.')} must be at most \\d+ bytes of UTF-8`));
      }
      assert.deepEqual(await storedActors(ctx, tenant), []);

      for (const agent of [
        { mbox: longest.mbox },
        { openid: longest.openid },
        { account: { homePage: longest.homePage, name: longest.name } },
      ]) {
        const res = await upsert(ctx, tenant.headers, { name: 'Ada', ...agent });
        assert.equal(res.statusCode, 201, res.body);
        assert.deepEqual(res.json(), { objectType: 'Agent', name: 'Ada', ...agent });
      }
    });

    it('refuses a unique attribute value one byte over an account name’s limit, storing nothing, and matches by one at the limit', async () => {
      const tenant = await ctx.given.tenant();
      const value = randomText(MAX_ACCOUNT_PART_BYTES);
      const refused = await upsert(ctx, tenant.headers, {
        mbox: 'mailto:ada@example.com',
        extensions: { [ATTRIBUTES]: { email: `${value}x`, note: randomText(10_000) } },
      });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.equal(refused.json().code, 'actors.invalid_agent');
      assert.equal(refused.json().details.property, `extensions[${JSON.stringify(ATTRIBUTES)}]["email"]`);
      assert.match(refused.json().message, /unique attribute "email" must be at most 500 bytes of UTF-8/);
      assert.deepEqual(await storedActors(ctx, tenant), []);

      // A long value of an attribute that is not unique is stored as it is.
      const note = randomText(10_000);
      const created = await upsert(ctx, tenant.headers, {
        mbox: 'mailto:ada@example.com',
        extensions: { [ATTRIBUTES]: { email: value, note } },
      });
      assert.equal(created.statusCode, 201, created.body);
      const matched = await upsert(ctx, tenant.headers, {
        name: 'Ada',
        mbox: 'mailto:other@example.com',
        extensions: { [ATTRIBUTES]: { email: value } },
      });
      assert.equal(matched.statusCode, 200, matched.body);
      assert.equal(matched.json().mbox, 'mailto:ada@example.com');
    });
  },
  { serviceDomain: SERVICE_DOMAIN },
);
