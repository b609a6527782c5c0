import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Headers = Record<string, string>;

const importUsers = (ctx: TestContext, headers: Headers, body: unknown) =>
  ctx.app.inject({
    method: 'POST',
    url: '/api/import/users',
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

const putSettings = (ctx: TestContext, tenant: GivenTenant, settings: object) =>
  ctx.app.inject({ method: 'PUT', url: '/api/settings', headers: tenant.headers, payload: settings });

/** What the tenant stores: its actors (key, name, attributes) and its identifiers, in key order. */
async function stored(ctx: TestContext, tenantId: string) {
  const actors = await ctx.db.query<{ agent_key: string; name: string | null; attributes: Record<string, string> | null; ifi: object }>(
    `SELECT agent_key, name, attributes, ifi FROM actors WHERE tenant_id = $1 ORDER BY agent_key`,
    [tenantId],
  );
  const identifiers = await ctx.db.query<{ attribute: string; value: string; agent_key: string }>(
    `SELECT attribute, value, agent_key FROM actor_identifiers WHERE tenant_id = $1 ORDER BY attribute, value`,
    [tenantId],
  );
  const runs = await ctx.db.query<{ verify: boolean; summary: Record<string, number> }>(
    `SELECT verify, summary FROM import_runs WHERE tenant_id = $1 AND kind = 'users' ORDER BY finished_at`,
    [tenantId],
  );
  return { actors: actors.rows, identifiers: identifiers.rows, runs: runs.rows };
}

const messages = (list: Array<{ type: string; row: number; value: string }>) =>
  list.map((message) => [message.row, message.type, message.value]);

describeEachBackend('POST /api/import/users', (ctx) => {
  const home = (tenant: GivenTenant) => `http://${tenant.name}.${ctx.config.baseDomain}`;

  it('creates new users as account agents and answers the summary', async () => {
    const tenant = await ctx.given.tenant();
    const res = await importUsers(ctx, tenant.headers, {
      users: [
        { name: 'Ada Lovelace', attributes: { email: 'ada@example.com', city: 'London' } },
        { name: 'Alan Turing', attributes: { email: 'alan@example.com' } },
      ],
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { rows: 2, new: 2, existing: 0, skipped: 0, errorCount: 0, warningCount: 0, errors: [], warnings: [] });
    const { actors, identifiers, runs } = await stored(ctx, tenant.id);
    assert.deepEqual(actors, [
      {
        agent_key: `account|${home(tenant)}|ada@example.com`,
        name: 'Ada Lovelace',
        attributes: { email: 'ada@example.com', city: 'London' },
        ifi: { account: { homePage: home(tenant), name: 'ada@example.com' } },
      },
      {
        agent_key: `account|${home(tenant)}|alan@example.com`,
        name: 'Alan Turing',
        attributes: { email: 'alan@example.com' },
        ifi: { account: { homePage: home(tenant), name: 'alan@example.com' } },
      },
    ]);
    assert.deepEqual(
      identifiers.map((row) => row.value),
      ['ada@example.com', 'alan@example.com'],
    );
    assert.deepEqual(runs, [{ verify: false, summary: { rows: 2, new: 2, existing: 0, skipped: 0, errorCount: 0, warningCount: 0 } }]);
  });

  it('updates the user a unique attribute matches: name and attributes replaced, a changed unique value re-pointed', async () => {
    const tenant = await ctx.given.tenant();
    await putSettings(ctx, tenant, { uniqueAttributes: ['employeeId', 'email'], accountHomePage: 'https://people.example.com' });
    await importUsers(ctx, tenant.headers, {
      users: [{ name: 'Ada', attributes: { employeeId: 'E1', email: 'ada@old', city: 'London' } }],
    });
    const res = await importUsers(ctx, tenant.headers, {
      users: [{ name: 'Ada King', attributes: { employeeId: 'E1', email: 'ada@new' } }],
    });
    assert.deepEqual(res.json(), { rows: 1, new: 0, existing: 1, skipped: 0, errorCount: 0, warningCount: 0, errors: [], warnings: [] });
    // The old value is free again: it names a new person now.
    const freed = await importUsers(ctx, tenant.headers, { users: [{ name: 'Newcomer', attributes: { email: 'ada@old' } }] });
    assert.deepEqual([freed.json().new, freed.json().existing], [1, 0]);
    const { actors, identifiers } = await stored(ctx, tenant.id);
    const ada = 'account|https://people.example.com|E1';
    const newcomer = 'account|https://people.example.com|ada@old';
    assert.deepEqual(
      actors.map((actor) => [actor.agent_key, actor.name, actor.attributes]),
      [
        [ada, 'Ada King', { employeeId: 'E1', email: 'ada@new' }],
        [newcomer, 'Newcomer', { email: 'ada@old' }],
      ],
    );
    assert.deepEqual(
      identifiers.map((row) => [row.attribute, row.value, row.agent_key]),
      [
        ['email', 'ada@new', ada],
        ['email', 'ada@old', newcomer],
        ['employeeId', 'E1', ada],
      ],
    );
  });

  it('skips every kind of bad row with its error, imports the rest', async () => {
    const tenant = await ctx.given.tenant();
    await putSettings(ctx, tenant, { uniqueAttributes: ['employeeId', 'email'] });
    await importUsers(ctx, tenant.headers, {
      users: [
        { name: 'One', attributes: { employeeId: 'E1', email: 'one@x' } },
        { name: 'Two', attributes: { email: 'two@x' } },
      ],
    });
    // "One" changes its employeeId: its account name stays E1, which no unique value names any more.
    await importUsers(ctx, tenant.headers, { users: [{ name: 'One', attributes: { employeeId: 'E1b', email: 'one@x' } }] });
    const body =
      '{"users":[' +
      [
        '"not an object"',
        '{"attributes":{"email":"a@x"}}',
        '{"name":"","attributes":{"email":"b@x"}}',
        '{"name":"C","attributes":["c@x"]}',
        '{"name":"D","attributes":{"email":"d@x","age":42}}',
        '{"name":"E\\u0000","attributes":{"email":"e@x"}}',
        '{"name":"F","attributes":{"email":"f@x","note":"\\ud800"}}',
        '{"name":"G","attributes":{"city":"Oslo"}}',
        '{"name":"H","attributes":{"email":"h@x"}}',
        '{"name":"H again","attributes":{"email":"h@x"}}',
        '{"name":"Both","attributes":{"employeeId":"E1b","email":"two@x"}}',
        '{"name":"Two by email","attributes":{"email":"two@x"}}',
        '{"name":"Two by email again","attributes":{"email":"two@x","employeeId":"E9"}}',
        '{"name":"Not one","attributes":{"employeeId":"E1"}}',
      ].join(',') +
      ']}';
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(res.statusCode, 200);
    const summary = res.json();
    assert.deepEqual(messages(summary.errors), [
      [1, 'invalid_row', 'not an object'],
      [2, 'missing_name', ''],
      [3, 'missing_name', ''],
      [4, 'invalid_attributes', '["c@x"]'],
      [5, 'invalid_attribute_value', '42'],
      [6, 'invalid_text', 'E\\u0000'],
      [7, 'invalid_text', '\\ud800'],
      [8, 'missing_unique_attribute', 'employeeId,email'],
      [10, 'duplicate_unique_value', 'h@x'],
      [11, 'ambiguous_match', 'two@x'],
      // Row 11 sent two@x first: the later rows with it are errors even though row 11 itself failed.
      [12, 'duplicate_unique_value', 'two@x'],
      [13, 'duplicate_unique_value', 'two@x'],
      [14, 'account_taken', 'E1'],
    ]);
    for (const error of summary.errors) assert.equal(typeof error.message, 'string');
    assert.deepEqual([summary.rows, summary.new, summary.existing, summary.skipped, summary.errorCount], [14, 1, 0, 13, 13]);
    const { actors } = await stored(ctx, tenant.id);
    assert.deepEqual(actors.map((actor) => actor.name).sort(), ['H', 'One', 'Two']);
  });

  it('refuses a second row updating the user an earlier row updates (duplicate_user)', async () => {
    const tenant = await ctx.given.tenant();
    await putSettings(ctx, tenant, { uniqueAttributes: ['employeeId', 'email'] });
    await importUsers(ctx, tenant.headers, { users: [{ name: 'Ada', attributes: { employeeId: 'E1', email: 'ada@x' } }] });
    const res = await importUsers(ctx, tenant.headers, {
      users: [
        { name: 'Ada 1', attributes: { employeeId: 'E1' } },
        { name: 'Ada 2', attributes: { email: 'ada@x' } },
      ],
    });
    assert.deepEqual(messages(res.json().errors), [[2, 'duplicate_user', 'ada@x']]);
    assert.deepEqual(
      (await stored(ctx, tenant.id)).actors.map((actor) => actor.name),
      ['Ada 1'],
    );
  });

  it('resolves rows beyond one lookup batch (5,000) against the store as it was: a late row meeting an early row’s user is duplicate_user', async () => {
    const tenant = await ctx.given.tenant();
    await putSettings(ctx, tenant, { uniqueAttributes: ['employeeId', 'email'] });
    await importUsers(ctx, tenant.headers, { users: [{ name: 'Ada', attributes: { employeeId: 'E1', email: 'ada@x' } }] });
    const filler = Array.from({ length: 5_100 }, (_, n) => ({ name: `Filler ${n}`, attributes: { employeeId: `F${n}` } }));
    // Row 1 changes Ada's email; row 5,102 still names her by the old one: one person, two rows.
    const users = [
      { name: 'Ada 1', attributes: { employeeId: 'E1', email: 'ada@new' } },
      ...filler,
      { name: 'Ada 2', attributes: { email: 'ada@x' } },
    ];
    const res = await importUsers(ctx, tenant.headers, { users });
    assert.equal(res.statusCode, 200);
    const summary = res.json();
    assert.deepEqual([summary.new, summary.existing, summary.skipped], [5_100, 1, 1]);
    assert.deepEqual(messages(summary.errors), [[5_102, 'duplicate_user', 'ada@x']]);
    const { identifiers } = await stored(ctx, tenant.id);
    const ada = identifiers.filter((identifier) => identifier.attribute === 'email');
    assert.deepEqual(
      ada.map((identifier) => identifier.value),
      ['ada@new'],
    );
  });
  it('warns of empty values, unknown fields and links to no organisation entry or job, and imports the row', async () => {
    const tenant = await ctx.given.tenant();
    await putSettings(ctx, tenant, { organisationAttribute: 'position', jobAttribute: 'jobCode' });
    // Inserted directly: the organisation and jobs imports are another module's.
    await ctx.db.query(`INSERT INTO organisation_entries (tenant_id, id, attributes, position) VALUES ($1, 'P1', '{}', 0)`, [tenant.id]);
    await ctx.db.query(`INSERT INTO jobs (tenant_id, id, name, position) VALUES ($1, 'J1', 'Engineer', 0)`, [tenant.id]);
    const res = await importUsers(ctx, tenant.headers, {
      users: [
        { name: 'A', attributes: { email: 'a@x', position: 'P1', jobCode: 'J1', city: '' }, role: 'admin' },
        { name: 'B', attributes: { email: 'b@x', position: 'P404', jobCode: 'J404' } },
        { name: 'Skipped', attributes: { city: '' } },
      ],
    });
    const summary = res.json();
    assert.deepEqual(messages(summary.warnings), [
      [1, 'unknown_field', 'role'],
      [1, 'empty_attribute_value', 'city'],
      [2, 'unknown_organisation', 'P404'],
      [2, 'unknown_job', 'J404'],
    ]);
    assert.deepEqual([summary.new, summary.skipped, summary.warningCount], [2, 1, 4]);
    assert.deepEqual((await stored(ctx, tenant.id)).actors[0].attributes, { email: 'a@x', position: 'P1', jobCode: 'J1', city: '' });
  });

  it('with verify: true answers the same summary and writes nothing but the history row', async () => {
    const tenant = await ctx.given.tenant();
    await importUsers(ctx, tenant.headers, { users: [{ name: 'Old', attributes: { email: 'old@x' } }] });
    const users = [
      { name: 'Old renamed', attributes: { email: 'old@x' } },
      { name: 'New', attributes: { email: 'new@x' } },
      { name: 'Bad', attributes: {} },
    ];
    const before = await stored(ctx, tenant.id);
    const verified = await importUsers(ctx, tenant.headers, { users, verify: true });
    assert.equal(verified.statusCode, 200);
    const after = await stored(ctx, tenant.id);
    assert.deepEqual(after.actors, before.actors);
    assert.deepEqual(after.identifiers, before.identifiers);
    assert.equal(after.runs.length, 2);
    assert.equal(after.runs[1].verify, true);
    const imported = await importUsers(ctx, tenant.headers, { users, verify: false });
    assert.deepEqual(verified.json(), imported.json());
    assert.deepEqual([imported.json().new, imported.json().existing, imported.json().skipped], [1, 1, 1]);
    assert.equal((await stored(ctx, tenant.id)).actors.length, 2);
  });

  it('stores nothing of a request that fails mid-way: the actors written before the failure are rolled back', async () => {
    const tenant = await ctx.given.tenant();
    // A trigger that fails the identifiers' INSERT, the last write of the import, for one value.
    await ctx.db.query(`CREATE FUNCTION fail_on_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.value = 'boom@x' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`);
    await ctx.db.query(`CREATE TRIGGER fail_on_boom BEFORE INSERT ON actor_identifiers FOR EACH ROW EXECUTE FUNCTION fail_on_boom()`);
    try {
      const res = await importUsers(ctx, tenant.headers, {
        users: [
          { name: 'A', attributes: { email: 'a@x' } },
          { name: 'Boom', attributes: { email: 'boom@x' } },
        ],
      });
      assert.equal(res.statusCode, 500);
    } finally {
      await ctx.db.query(`DROP TRIGGER fail_on_boom ON actor_identifiers`);
      await ctx.db.query(`DROP FUNCTION fail_on_boom()`);
    }
    const { actors, identifiers, runs } = await stored(ctx, tenant.id);
    assert.deepEqual([actors.length, identifiers.length, runs.length], [0, 0, 0]);
  });

  it('refuses a body bad as a whole with 400 naming it, storing nothing', async () => {
    const tenant = await ctx.given.tenant();
    const cases: Array<[string, string]> = [
      ['{"users": [', 'request.invalid_json'],
      ['[]', 'imports.invalid_body'],
      ['{}', 'imports.invalid_body'],
      ['{"users": {"name": "A"}}', 'imports.invalid_body'],
      ['{"users": "A"}', 'imports.invalid_body'],
      ['{"users": [], "verify": "yes"}', 'imports.invalid_body'],
      ['{"users": [{"name":"A","attributes":{"email":"a@x"}}], "verify": "true"}', 'imports.invalid_body'],
    ];
    for (const [payload, code] of cases) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/import/users',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        payload,
      });
      assert.equal(res.statusCode, 400, payload);
      assert.equal(res.json().code, code, payload);
    }
    const named = await importUsers(ctx, tenant.headers, { users: [], verify: 1 });
    assert.equal(named.json().details.field, 'verify');
    const { actors, runs } = await stored(ctx, tenant.id);
    assert.deepEqual([actors.length, runs.length], [0, 0]);
  });

  it('keeps tenants apart: another tenant’s users are neither seen nor matched', async () => {
    const mine = await ctx.given.tenant();
    const other = await ctx.given.tenant();
    await importUsers(ctx, other.headers, { users: [{ name: 'Theirs', attributes: { email: 'same@x' } }] });
    const res = await importUsers(ctx, mine.headers, { users: [{ name: 'Mine', attributes: { email: 'same@x' } }] });
    assert.deepEqual([res.json().new, res.json().existing], [1, 0]);
    assert.deepEqual(
      (await stored(ctx, mine.id)).actors.map((actor) => actor.name),
      ['Mine'],
    );
    assert.deepEqual(
      (await stored(ctx, other.id)).actors.map((actor) => actor.name),
      ['Theirs'],
    );
    const crossed = await importUsers(ctx, { ...mine.headers, 'x-svc-tenant': other.name }, { users: [] });
    assert.equal(crossed.statusCode, 401);
  });

  it('imports the same users from CSV (text/csv) with the same summary and the same actors as from JSON', async () => {
    const fromJson = await ctx.given.tenant();
    const fromCsv = await ctx.given.tenant();
    const json = await importUsers(ctx, fromJson.headers, {
      users: [
        { name: 'Lovelace, Ada', attributes: { email: 'ada@example.com', city: 'Zürich' } },
        { name: 'Alan "Prof" Turing', attributes: { email: 'alan@example.com' } },
        { name: '', attributes: { email: 'nameless@example.com' } },
      ],
    });
    const csvText =
      '\uFEFFname,email,city\r\n"Lovelace, Ada",ada@example.com,Zürich\r\n"Alan ""Prof"" Turing",alan@example.com,\r\n,nameless@example.com,\r\n';
    const send = (query: string, payload: string, type = 'text/csv; charset=utf-8') =>
      ctx.app.inject({ method: 'POST', url: `/api/import/users${query}`, headers: { ...fromCsv.headers, 'content-type': type }, payload });
    const verified = await send('?verify=true', csvText);
    assert.equal(verified.statusCode, 200, verified.body);
    assert.deepEqual(verified.json(), json.json());
    assert.equal((await stored(ctx, fromCsv.id)).actors.length, 0, 'verify=true in the query writes nothing');
    const csv = await send('', csvText);
    assert.deepEqual(csv.json(), json.json());
    assert.equal(csv.json().skipped, 1);
    const strip = (actors: Array<{ name: string | null; attributes: Record<string, string> | null }>) =>
      actors.map(({ name, attributes }) => ({ name, attributes }));
    assert.deepEqual(strip((await stored(ctx, fromCsv.id)).actors), strip((await stored(ctx, fromJson.id)).actors));

    const unreadable = await send('', 'name,email\n"Ada,ada@example.com\n');
    assert.equal(unreadable.statusCode, 400);
    assert.equal(unreadable.json().code, 'imports.invalid_csv');
    const noName = await send('', 'email\nada@example.com\n');
    assert.equal(noName.statusCode, 400);
    assert.match(noName.json().message, /"name" column/);
    const badVerify = await send('?verify=yes', csvText);
    assert.equal(badVerify.statusCode, 400);
    assert.equal(badVerify.json().details.field, 'verify');
    assert.equal((await stored(ctx, fromCsv.id)).runs.length, 2, 'refused CSV bodies are not imports');
  });

  it('answers 401 without a credential', async () => {
    const tenant = await ctx.given.tenant();
    const res = await importUsers(ctx, { 'x-svc-tenant': tenant.name }, { users: [{ name: 'A', attributes: { email: 'a@x' } }] });
    assert.equal(res.statusCode, 401);
    assert.equal((await stored(ctx, tenant.id)).actors.length, 0);
  });

  it('creates each person once when four imports of the same 200 users run at once', async () => {
    const tenant = await ctx.given.tenant();
    const users = Array.from({ length: 200 }, (_, index) => ({
      name: `User ${index}`,
      attributes: { email: `user${index}@x`, n: String(index) },
    }));
    const results = await Promise.all(Array.from({ length: 4 }, () => importUsers(ctx, tenant.headers, { users })));
    assert.deepEqual(
      results.map((res) => res.statusCode),
      [200, 200, 200, 200],
    );
    const summaries = results.map((res) => res.json());
    assert.equal(
      summaries.reduce((sum, summary) => sum + summary.new, 0),
      200,
    );
    assert.equal(
      summaries.reduce((sum, summary) => sum + summary.existing, 0),
      600,
    );
    const { actors, identifiers } = await stored(ctx, tenant.id);
    assert.equal(actors.length, 200);
    assert.equal(identifiers.length, 200);
    assert.equal(new Set(actors.map((actor) => actor.attributes?.email)).size, 200);
  });
});

describeEachBackend(
  'POST /api/import/users above the import limit',
  (ctx) => {
    it('refuses a body larger than the import limit with 413, importing nothing', async () => {
      const tenant = await ctx.given.tenant();
      const users = Array.from({ length: 100 }, (_, index) => ({ name: `User ${index}`, attributes: { email: `user${index}@x` } }));
      const res = await importUsers(ctx, tenant.headers, { users });
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().code, 'request.too_large');
      const { actors, runs } = await stored(ctx, tenant.id);
      assert.deepEqual([actors.length, runs.length], [0, 0]);
      // The document limit does not apply: a body above it and below the import limit is taken.
      const small = await importUsers(ctx, tenant.headers, { users: users.slice(0, 20) });
      assert.equal(small.statusCode, 200);
    });
  },
  { importLimitBytes: 2_000, documentLimitBytes: 500 },
);
