import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { it } from 'node:test';
import { MAX_ID_LENGTH } from '../../src/modules/organisation/org-unit-rules.js';
import { MAX_ACCOUNT_PART_BYTES } from '../../src/kernel/limits.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { randomText } from '../support/long-text.js';

/**
 * Long values in imports (issue 24): one long value in one row of a users import once failed the
 * whole import with a 500. A name is stored whole at any length; a unique attribute's value is
 * held to an account name's limit (src/kernel/limits.ts) and one byte more is that row's
 * `value_too_long` error while the other rows import, from JSON and from CSV alike. Organisation
 * and job ids keep their limit in characters, which fits the index in any characters.
 */

type Json = Record<string, any>;

const importUsers = (ctx: TestContext, tenant: GivenTenant, payload: string, type: string) =>
  ctx.app.inject({ method: 'POST', url: '/api/import/users', headers: { ...tenant.headers, 'content-type': type }, payload });

/** `count` random four-byte characters: an id of MAX_ID_LENGTH of them is the longest id in bytes. */
const pictographs = (count: number) => Array.from({ length: count }, () => String.fromCodePoint(0x1f300 + randomInt(0x300))).join('');

/** A CSV field, quoted. */
const csvField = (text: string) => `"${text.replaceAll('"', '""')}"`;

describeEachBackend('long values in imports', (ctx) => {
  const home = (tenant: GivenTenant) => `http://${tenant.name}.${ctx.config.baseDomain}`;

  const rows = () => {
    const atLimit = randomText(MAX_ACCOUNT_PART_BYTES);
    return {
      atLimit,
      users: [
        { name: 'Ada', attributes: { email: 'ada@example.com' } },
        { name: randomText(50_000), attributes: { email: 'long-name@example.com' } },
        { name: 'Over', attributes: { email: `${randomText(MAX_ACCOUNT_PART_BYTES)}x` } },
        { name: 'At the limit', attributes: { email: atLimit, note: randomText(20_000, '', /[\s@|%",]/) } },
      ],
    };
  };

  /** What the import should answer and store for `rows()`, however it was sent. */
  async function assertImported(
    tenant: GivenTenant,
    sent: ReturnType<typeof rows>,
    res: { statusCode: number; body: string; json(): any },
  ) {
    assert.equal(res.statusCode, 200, res.body);
    const summary = res.json();
    assert.deepEqual(
      { rows: summary.rows, new: summary.new, existing: summary.existing, skipped: summary.skipped },
      { rows: 4, new: 3, existing: 0, skipped: 1 },
    );
    assert.deepEqual(
      summary.errors.map((error: Json) => [error.row, error.type]),
      [[3, 'value_too_long']],
    );
    assert.match(summary.errors[0].message, /unique attribute "email" must be at most 500 bytes of UTF-8 \(it has 501\)/);

    const { rows: actors } = await ctx.db.query<{ agent_key: string; name: string; attributes: Json }>(
      'SELECT agent_key, name, attributes FROM actors WHERE tenant_id = $1 AND attributes IS NOT NULL ORDER BY name',
      [tenant.id],
    );
    const expected = [sent.users[0], sent.users[1], sent.users[3]].sort((a, b) => (a.name < b.name ? -1 : 1));
    assert.deepEqual(
      actors.map((actor) => [actor.agent_key, actor.name, actor.attributes]),
      expected.map((user) => [`account|${home(tenant)}|${user.attributes.email}`, user.name, user.attributes]),
    );
  }

  it('imports every JSON row but the one whose unique value is too long, and that row is its error', async () => {
    const tenant = await ctx.given.tenant();
    const sent = rows();
    await assertImported(tenant, sent, await importUsers(ctx, tenant, JSON.stringify({ users: sent.users }), 'application/json'));

    // The value at the limit identifies its user: the next import updates it.
    const again = await importUsers(
      ctx,
      tenant,
      JSON.stringify({ users: [{ name: 'Renamed', attributes: { email: sent.atLimit } }] }),
      'application/json',
    );
    assert.deepEqual([again.json().new, again.json().existing], [0, 1]);
  });

  it('imports every CSV row but the one whose unique value is too long, and that row is its error', async () => {
    const tenant = await ctx.given.tenant();
    const sent = rows();
    const csv = [
      'name,email,note',
      ...sent.users.map((user: Json) => [user.name, user.attributes.email, user.attributes.note ?? ''].map(csvField).join(',')),
    ].join('\n');
    // CSV cannot tell an empty cell from an absent attribute: the rows without a note have none.
    await assertImported(tenant, sent, await importUsers(ctx, tenant, `${csv}\n`, 'text/csv; charset=utf-8'));
  });

  it('stores organisation entries and jobs whose ids are at their limit in four-byte characters, and refuses one character more', async () => {
    const tenant = await ctx.given.tenant();
    const put = (what: 'organisation' | 'jobs', body: unknown) =>
      ctx.app.inject({ method: 'PUT', url: `/api/import/${what}`, headers: tenant.headers, payload: body as object });
    const parent = pictographs(MAX_ID_LENGTH);
    const child = pictographs(MAX_ID_LENGTH);
    assert.equal((await put('organisation', [{ id: child, parentId: parent }, { id: parent }])).statusCode, 204);
    const stored = await ctx.db.query<{ id: string; parent_id: string | null }>(
      'SELECT id, parent_id FROM organisation_entries WHERE tenant_id = $1 ORDER BY position',
      [tenant.id],
    );
    assert.deepEqual(stored.rows, [
      { id: child, parent_id: parent },
      { id: parent, parent_id: null },
    ]);
    assert.equal((await put('jobs', [{ id: child, name: pictographs(1000) }])).statusCode, 204);

    const tooLong = `${parent}x`;
    const refused = await put('organisation', [{ id: tooLong }]);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().details.problems[0].problem, /`id` must be at most 255 characters/);
    const job = await put('jobs', [{ id: tooLong, name: 'J' }]);
    assert.equal(job.statusCode, 400);
    assert.match(job.json().details.problems[0].problem, /`id` must be at most 255 characters/);
  });
});

describeEachBackend('long values in the import settings', (ctx) => {
  const put = (tenant: GivenTenant, payload: unknown) =>
    ctx.app.inject({ method: 'PUT', url: '/api/settings', headers: tenant.headers, payload: payload as object });

  it('refuses an accountHomePage over an account homePage’s limit (400 naming it), and keeps one at the limit', async () => {
    const tenant = await ctx.given.tenant();
    const prefix = 'https://people.example.com/';
    const over = await put(tenant, { accountHomePage: randomText(MAX_ACCOUNT_PART_BYTES + 1, prefix, /[\s@|%#?/\\]/) });
    assert.equal(over.statusCode, 400, over.body);
    assert.equal(over.json().code, 'settings.invalid');
    assert.equal(over.json().details.field, 'accountHomePage');
    const atLimit = `${prefix}${'p'.repeat(MAX_ACCOUNT_PART_BYTES - prefix.length)}`;
    const kept = await put(tenant, { accountHomePage: atLimit });
    assert.equal(kept.statusCode, 200, kept.body);
    const imported = await importUsers(
      ctx,
      tenant,
      JSON.stringify({ users: [{ name: 'Ada', attributes: { email: 'ada@example.com' } }] }),
      'application/json',
    );
    assert.equal(imported.statusCode, 200, imported.body);
    assert.equal(imported.json().new, 1, imported.body);
  });

  it('refuses to make an attribute unique while a user’s value of it is too long to identify anyone (409), changing nothing', async () => {
    const tenant = await ctx.given.tenant();
    const bio = randomText(3_000, '', /[\s@|%",]/);
    const imported = await importUsers(
      ctx,
      tenant,
      JSON.stringify({
        users: [
          { name: 'Ada', attributes: { email: 'ada@example.com', bio } },
          { name: 'Bo', attributes: { email: 'bo@example.com', bio: 'short' } },
        ],
      }),
      'application/json',
    );
    assert.equal(imported.statusCode, 200, imported.body);
    const refused = await put(tenant, { uniqueAttributes: ['email', 'bio'] });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().code, 'settings.value_too_long');
    assert.equal(refused.json().details.values[0].attribute, 'bio');
    const settings = await ctx.app.inject({ method: 'GET', url: '/api/settings', headers: tenant.headers });
    assert.deepEqual(settings.json().uniqueAttributes, ['email'], 'nothing changed');
  });
});
