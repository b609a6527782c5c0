import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LocalNotifyBus } from '../../src/platform/database/notify-bus.js';
import { setAdminScope } from '../../src/modules/auth/admins/admin.service.js';
import { TokenService } from '../../src/modules/auth/oauth/token.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { tokenRequest } from '../auth/oauth-token-fixtures.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { COURSE, NAMED, ORGANISATION, PEOPLE, WALKER, basic, givenWorld, named, peopleIn, type World } from './people-fixtures.js';

type Json = Record<string, any>;
type Headers = Record<string, string>;

/** Names of actors as the API answers them, sorted. */
const names = (actors: Json[]) => actors.map((actor) => actor.name as string).sort();
const sorted = (list: string[]) => [...list].sort();

describeEachBackend('Scoped administration: an admin or API key limited to an organisation subtree', (ctx: TestContext) => {
  const get = (url: string, headers: Headers) => ctx.app.inject({ method: 'GET', url, headers });
  const send = (method: 'PUT' | 'POST' | 'DELETE', url: string, headers: Headers, payload?: unknown) =>
    ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  let shared: Promise<{ world: World; key: Headers; admin: Headers }> | undefined;
  /** One world per backend for the reads, with a key and an admin limited to CTO's subtree. */
  const given = () =>
    (shared ??= (async () => {
      const world = await givenWorld(ctx);
      return { world, key: await world.scopedKey('CTO'), admin: (await world.admin('CTO')).headers };
    })());

  const INSIDE = sorted(peopleIn('CTO').map((someone) => someone.name));
  const OUTSIDE = PEOPLE.map((someone) => someone.name).filter((name) => !INSIDE.includes(name));

  it('lists only the people of its subtree, with a total that counts no one else (GET /api/actors)', async () => {
    const { world, key, admin } = await given();
    assert.equal(INSIDE.length, 27);
    for (const headers of [key, admin]) {
      const all = await get('/api/actors?limit=1000', headers);
      assert.equal(all.statusCode, 200, all.body);
      assert.deepEqual(names(all.json()), INSIDE);
      assert.equal(all.headers['x-total-count'], String(INSIDE.length));
      // A page: the same total, and a link to the next.
      const page = await get('/api/actors?limit=5&skip=5', headers);
      assert.equal(page.json().length, 5);
      assert.equal(page.headers['x-total-count'], String(INSIDE.length));
      assert.match(String(page.headers.link), /kind=people&limit=5&skip=10>; rel="next"/);
      // The statements' authorities are nobody's people; `all` is the subtree's people again.
      const authorities = await get('/api/actors?kind=authorities', headers);
      assert.deepEqual(authorities.json(), []);
      assert.equal(authorities.headers['x-total-count'], '0');
      assert.equal((await get('/api/actors?kind=all&limit=1000', headers)).headers['x-total-count'], String(INSIDE.length));
    }
    // The unscoped key: everyone, and the agent statements named.
    const everyone = await get('/api/actors?limit=1000', world.tenant.headers);
    assert.deepEqual(names(everyone.json()), sorted([...PEOPLE.map((someone) => someone.name), WALKER.name]));
  });

  it('searches only its subtree: matches outside it are neither answered nor counted (POST /api/actors/search)', async () => {
    const { key, admin } = await given();
    for (const headers of [key, admin]) {
      const search = async (criteria: unknown) => {
        const res = await send('POST', '/api/actors/search?limit=1000', headers, { criteria });
        assert.equal(res.statusCode, 200, res.body);
        return res.json() as { actors: Json[]; total: number };
      };
      const everyone = await search({});
      assert.deepEqual(names(everyone.actors), INSIDE);
      assert.equal(everyone.total, INSIDE.length);
      assert.deepEqual(await search({ field: 'name', op: 'in', value: ['Fay', 'Carla', 'Walker'] }), { actors: [], total: 0 });
      const shifts = await search({ field: 'attributes.shift', op: 'exists' });
      assert.equal(shifts.total, peopleIn('CTO').filter((someone) => someone.attributes.shift).length);
      const underCeo = await search({ field: 'organisation.ancestors.id', op: 'eq', value: 'CEO' });
      assert.equal(underCeo.total, INSIDE.length);
      const engineers = await search({
        or: [
          { field: 'organisation.id', op: 'eq', value: 'ENG' },
          { field: 'organisation.ancestors.id', op: 'eq', value: 'ENG' },
        ],
      });
      assert.deepEqual(names(engineers.actors), sorted(peopleIn('ENG').map((someone) => someone.name)));
    }
  });

  it('describes only its subtree’s attributes: counts and enums over its people (GET /api/actors/attributes)', async () => {
    const { world, key } = await given();
    const catalogue = async (headers: Headers) => {
      const res = await get('/api/actors/attributes', headers);
      assert.equal(res.statusCode, 200, res.body);
      return Object.fromEntries((res.json().attributes as Json[]).map((entry) => [entry.name, entry]));
    };
    const scoped = await catalogue(key);
    const inside = peopleIn('CTO');
    assert.deepEqual(Object.keys(scoped).sort(), ['email', 'position', 'shift']);
    assert.equal(scoped.email.count, inside.length);
    assert.equal(scoped.position.count, inside.length);
    const shifts = inside.filter((someone) => someone.attributes.shift);
    assert.equal(scoped.shift.count, shifts.length);
    assert.deepEqual(scoped.shift.schema, { type: 'string', enum: [...new Set(shifts.map((someone) => someone.attributes.shift))].sort() });
    // The whole tenant's: Fay's budget, and the accountants' night shift.
    const whole = await catalogue(world.tenant.headers);
    assert.equal(whole.budget.count, 1);
    assert.deepEqual(whole.shift.schema.enum, ['early', 'late', 'night']);
    assert.equal(whole.email.count, PEOPLE.length);
  });

  it('reads the completion records of its people only: anyone else, known or not, is 404 (GET /api/actors/completions)', async () => {
    const { world, key, admin } = await given();
    for (const headers of [key, admin]) {
      const dan = await get(`/api/actors/completions?${new URLSearchParams({ actorId: world.actorId('Dan') })}`, headers);
      assert.equal(dan.statusCode, 200, dan.body);
      assert.deepEqual(
        (dan.json() as Json[]).map((record) => [record.activityId, record.status]),
        [[COURSE, 'completed']],
      );
      const outsiders = [
        ...OUTSIDE.filter((name) => NAMED.some((someone) => someone.name === name)).map((name) => world.actorId(name)),
        `mbox|${WALKER.mbox}`,
        'mbox|mailto:nobody@example.com',
      ];
      for (const actorId of outsiders) {
        const res = await get(`/api/actors/completions?${new URLSearchParams({ actorId })}`, headers);
        assert.equal(res.statusCode, 404, `${actorId}: ${res.body}`);
        assert.equal(res.json().code, 'actors.not_found');
      }
      const byAgent = await get(`/api/actors/completions?${new URLSearchParams({ agent: JSON.stringify(world.agent('Fay')) })}`, headers);
      assert.equal(byAgent.statusCode, 404, byAgent.body);
    }
    // The unscoped key reads Fay's.
    const fay = await get(`/api/actors/completions?${new URLSearchParams({ actorId: world.actorId('Fay') })}`, world.tenant.headers);
    assert.equal(fay.json().length, 1);
  });

  it('reads the notifications its people received only, and makes them for its people only (GET/POST /api/notifications)', async () => {
    const { world, key, admin } = await given();
    for (const headers of [key, admin]) {
      const res = await get('/api/notifications?limit=1000', headers);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(sorted((res.json() as Json[]).map((notification) => notification.object.n)), INSIDE);
      // Filtered to an outsider: nothing (as for an actor that has none).
      const fay = await get(`/api/notifications?${new URLSearchParams({ actorId: world.actorId('Fay') })}`, headers);
      assert.deepEqual(fay.json(), []);
      const matching = await get(`/api/notifications?${new URLSearchParams({ query: '^(Fay|Otto)$' })}`, headers);
      assert.deepEqual(
        (matching.json() as Json[]).map((notification) => notification.object.n),
        ['Otto'],
      );
    }
    const note = (name: string) => ({
      actor: world.agent(name),
      activity: { id: COURSE },
      channel: 'sms',
      object: { n: `scoped ${name}` },
    });
    const count = async () =>
      Number(
        (await ctx.db.query<{ n: string }>('SELECT count(*) AS n FROM notifications WHERE tenant_id = $1', [world.tenant.id])).rows[0]!.n,
      );
    const before = await count();
    for (const body of [note('Fay'), [note('Otto'), note('Abe')], { ...note('Otto'), actor: { mbox: 'mailto:nobody@example.com' } }]) {
      const refused = await send('POST', '/api/notifications', key, body);
      assert.equal(refused.statusCode, 404, refused.body);
      assert.equal(refused.json().code, 'actors.not_found');
    }
    assert.equal(await count(), before, 'nothing stored');
    const made = await send('POST', '/api/notifications', key, note('Otto'));
    assert.equal(made.statusCode, 201, made.body);
    assert.equal(await count(), before + 1);
    // An unknown actor from the unscoped key is still the 400 naming it.
    const unknown = await send('POST', '/api/notifications', world.tenant.headers, {
      ...note('Otto'),
      actor: { mbox: 'mailto:nobody@example.com' },
    });
    assert.equal(unknown.statusCode, 400, unknown.body);
  });

  it('reads the audit entries about its people only; entries about no one are hidden (GET /api/audit)', async () => {
    const { world, key } = await given();
    // Entries about Dan (inside) and Fay (outside), and one about no one (an API key made by an admin).
    const upsert = async (name: string) => {
      const res = await send('PUT', '/api/actors/agents', world.tenant.headers, { ...world.agent(name), name });
      assert.equal(res.statusCode, 200, res.body);
    };
    await upsert('Dan');
    await upsert('Fay');
    const admin = await world.admin();
    assert.equal((await send('POST', '/api/api-keys', admin.headers)).statusCode, 201);
    const entries = async (headers: Headers, query = '') => {
      const res = await get(`/api/audit?limit=1000${query}`, headers);
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as Json[];
    };
    const whole = await entries(world.tenant.headers);
    assert.ok(whole.some((entry) => entry.action === 'api_key.created'));
    assert.ok(whole.some((entry) => entry.actorId === world.actorId('Fay')));
    const insideIds = new Set(peopleIn('CTO').map((someone) => world.actorId(someone.name)));
    const expected = whole.filter((entry) => entry.actorId !== undefined && insideIds.has(entry.actorId));
    assert.ok(expected.some((entry) => entry.actorId === world.actorId('Dan')));
    assert.deepEqual(await entries(key), expected);
    assert.deepEqual(await entries(key, `&${new URLSearchParams({ actorId: world.actorId('Fay') })}`), []);
    assert.deepEqual(await entries(key, '&action=api_key.created'), []);
  });

  it('sees only the import runs it made itself (GET /api/import/history)', async () => {
    const { world } = await given();
    const key = await world.scopedKey('CTO');
    const run = await send('POST', '/api/import/users', key, { users: [], verify: true });
    assert.equal(run.statusCode, 200, run.body);
    const mine = await get('/api/import/history', key);
    assert.equal(mine.statusCode, 200, mine.body);
    const keyId = Buffer.from(key.authorization.slice('Basic '.length), 'base64').toString().split(':')[0];
    assert.deepEqual(
      (mine.json() as Json[]).map((item) => [item.principal.id, item.verify]),
      [[keyId, true]],
    );
    const all = (await get('/api/import/history', world.tenant.headers)).json() as Json[];
    assert.deepEqual(
      all.map((item) => item.kind),
      ['users', 'users', 'organisation'],
    );
  });

  it('creates and revokes learner credentials of its people only: anyone else is 404 and nothing changes (/api/auth/basic)', async () => {
    const { world, key } = await given();
    const create = (name: string) =>
      send('POST', '/api/auth/basic', key, {
        username: `s-${name}-${Date.now()}`,
        password: 'a long password',
        data: { actor: world.agent(name) },
      });
    const fay = await create('Fay');
    assert.equal(fay.statusCode, 404, fay.body);
    assert.equal(fay.json().code, 'auth.actor_not_found');
    const walker = await send('POST', '/api/auth/basic', key, {
      username: `s-walker-${Date.now()}`,
      password: 'a long password',
      data: { actor: WALKER },
    });
    assert.equal(walker.statusCode, 404, walker.body);
    const dan = await create('Dan');
    assert.equal(dan.statusCode, 201, dan.body);

    // Carla's credential (made by the unscoped key): the scoped key cannot revoke it, and it still works.
    const carla = await world.learner('Carla');
    const carlaName = Buffer.from(carla.authorization.slice('Basic '.length), 'base64').toString().split(':')[0];
    const refused = await send('DELETE', `/api/auth/basic/${carlaName}`, key);
    assert.equal(refused.statusCode, 404, refused.body);
    assert.equal(refused.json().code, 'auth.credential_not_found');
    assert.equal((await get('/api/me', carla)).statusCode, 200);
    assert.equal((await send('DELETE', `/api/auth/basic/${dan.json().username}`, key)).statusCode, 204);
    assert.equal(
      (await get('/api/me', { authorization: basic(dan.json().username, 'a long password'), 'x-svc-tenant': world.tenant.name }))
        .statusCode,
      401,
    );
  });

  it('closes the LRS to a scoped key or admin: every /xapi/ route is 403 auth.out_of_scope', async () => {
    const { world, key, admin } = await given();
    const agent = JSON.stringify(world.agent('Dan'));
    const requests: Array<[string, string, unknown?]> = [
      ['GET', '/xapi/statements'],
      [
        'POST',
        '/xapi/statements',
        { actor: world.agent('Dan'), verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: COURSE } },
      ],
      ['GET', `/xapi/activities/state?${new URLSearchParams({ activityId: COURSE, agent, stateId: 's' })}`],
      ['PUT', `/xapi/activities/state?${new URLSearchParams({ activityId: COURSE, agent, stateId: 's' })}`, { page: 1 }],
      ['GET', `/xapi/agents?${new URLSearchParams({ agent })}`],
      ['GET', `/xapi/agents/profile?${new URLSearchParams({ agent })}`],
      ['GET', `/xapi/activities?${new URLSearchParams({ activityId: COURSE })}`],
      ['GET', `/xapi/activities/profile?${new URLSearchParams({ activityId: COURSE })}`],
    ];
    for (const headers of [key, admin]) {
      for (const [method, url, payload] of requests) {
        const res = await ctx.app.inject({
          method: method as 'GET',
          url,
          headers: { ...headers, 'x-experience-api-version': '2.0.0' },
          ...(payload === undefined ? {} : { payload: payload as object }),
        });
        assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'auth.out_of_scope');
      }
      assert.equal((await get('/xapi/about', { ...headers, 'x-experience-api-version': '2.0.0' })).statusCode, 200);
    }
    assert.equal((await get('/xapi/statements', world.tenant.xapi)).statusCode, 200);
  });

  it('refuses a scoped admin the credential routes (403 auth.out_of_scope); reads what the tenant shares; changes none of it', async () => {
    const { world, admin, key } = await given();
    for (const [method, url, payload] of [
      ['GET', '/api/api-keys'],
      ['POST', '/api/api-keys'],
      ['DELETE', `/api/api-keys/${Buffer.from(key.authorization.slice(6), 'base64').toString().split(':')[0]}`],
      ['GET', '/api/oauth-clients'],
      ['POST', '/api/oauth-clients', { redirectUris: ['https://app.example.com/cb'] }],
      ['POST', `/api/oauth-clients/${world.client.clientId}/secret`],
      ['DELETE', `/api/oauth-clients/${world.client.clientId}`],
    ] as Array<[string, string, unknown?]>) {
      const res = await ctx.app.inject({
        method: method as 'GET',
        url,
        headers: admin,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
      assert.equal(res.json().code, 'auth.out_of_scope');
    }
    // A scoped key is no admin at all.
    assert.equal((await get('/api/api-keys', key)).json().code, 'auth.admin_required');
    for (const headers of [key, admin]) {
      for (const url of ['/api/organisation', '/api/jobs', '/api/activities', '/api/competencies', '/api/settings']) {
        assert.equal((await get(url, headers)).statusCode, 200, url);
      }
      for (const [url, payload] of [
        ['/api/settings', { organisationAttribute: 'position' }],
        ['/api/import/organisation', ORGANISATION],
        ['/api/import/jobs', []],
        ['/api/activities', []],
        ['/api/competencies', []],
      ] as Array<[string, unknown]>) {
        const res = await send('PUT', url, headers, payload);
        assert.equal(res.statusCode, 403, `${url}: ${res.body}`);
        assert.equal(res.json().code, 'auth.out_of_scope');
      }
    }
    const me = await get('/api/me', key);
    assert.deepEqual(me.json().principal.scope, { organisationId: 'CTO' });
    assert.equal((await get('/api/me', world.tenant.headers)).json().principal.scope, undefined);
  });

  it('refuses another tenant’s scoped credential everywhere (401)', async () => {
    const { world } = await given();
    const other = await givenWorld(ctx);
    const foreign = { ...(await other.scopedKey('CTO')), 'x-svc-tenant': world.tenant.name };
    const foreignAdmin = { ...(await other.admin('CTO')).headers, 'x-svc-tenant': world.tenant.name };
    for (const headers of [foreign, foreignAdmin]) {
      for (const url of [
        '/api/actors',
        '/api/actors/attributes',
        `/api/actors/completions?${new URLSearchParams({ actorId: world.actorId('Dan') })}`,
        `/api/actors/reports?${new URLSearchParams({ actorId: world.actorId('Tom') })}`,
        '/api/notifications',
        '/api/audit',
        '/api/import/history',
      ]) {
        assert.equal((await get(url, headers)).statusCode, 401, url);
      }
      assert.equal((await send('POST', '/api/actors/search', headers, { criteria: {} })).statusCode, 401);
    }
  });

  it('writes only people of its subtree, before and after the write; anything else is refused and nothing is written (PUT/POST /api/actors/agents)', async () => {
    const world = await givenWorld(ctx);
    const key = await world.scopedKey('CTO');
    const attributes = (values: Record<string, string>) => ({ 'http://localhost/api/ext/agent/attributes': values });
    const snapshot = async () =>
      (await ctx.db.query('SELECT agent_key, name, attributes FROM actors WHERE tenant_id = $1 ORDER BY agent_key', [world.tenant.id]))
        .rows;
    const audits = async () =>
      Number((await ctx.db.query<{ n: string }>('SELECT count(*) AS n FROM audit_log WHERE tenant_id = $1', [world.tenant.id])).rows[0]!.n);
    const before = await snapshot();
    const audited = await audits();
    const refused: Array<[number, string, unknown]> = [
      // Fay, by her account; by her e-mail (a unique attribute); Walker, whom statements named.
      [404, 'actors.not_found', { ...world.agent('Fay'), name: 'Fay Renamed' }],
      [
        404,
        'actors.not_found',
        { mbox: 'mailto:fay.other@example.com', extensions: attributes({ email: 'fay@example.com', position: 'OPS' }) },
      ],
      [404, 'actors.not_found', { ...WALKER, name: 'Walker Renamed' }],
      // New people placed outside, or nowhere; Dan moved out.
      [403, 'auth.out_of_scope', { mbox: 'mailto:new@example.com', extensions: attributes({ email: 'new@example.com', position: 'CFO' }) }],
      [403, 'auth.out_of_scope', { mbox: 'mailto:new@example.com', name: 'No position' }],
      [403, 'auth.out_of_scope', { ...world.agent('Dan'), extensions: attributes({ email: 'dan@example.com', position: 'ACC' }) }],
    ];
    for (const [status, code, body] of refused) {
      for (const method of ['PUT', 'POST'] as const) {
        const res = await send(method, '/api/actors/agents', key, body);
        assert.equal(res.statusCode, status, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().code, code);
      }
    }
    assert.deepEqual(await snapshot(), before, 'nothing written');
    assert.equal(await audits(), audited, 'nothing audited');

    // Inside, before and after: Dan renamed, moved within the subtree; a new person placed in it.
    const moved = await send('PUT', '/api/actors/agents', key, {
      ...world.agent('Dan'),
      name: 'Daniel',
      extensions: attributes({ email: 'dan@example.com', position: 'OPS' }),
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().name, 'Daniel');
    const created = await send('POST', '/api/actors/agents', key, {
      mbox: 'mailto:newbie@example.com',
      extensions: attributes({ email: 'newbie@example.com', position: 'ENG' }),
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal((await get('/api/actors?limit=1000', key)).headers['x-total-count'], String(peopleIn('CTO').length + 1));
  });

  it('imports users of its subtree only: other rows are skipped as out_of_scope, changing no one outside (POST /api/import/users)', async () => {
    const world = await givenWorld(ctx);
    const key = await world.scopedKey('CTO');
    const row = (name: string, email: string, position?: string) => ({
      name,
      attributes: { email, ...(position === undefined ? {} : { position }) },
    });
    const users = [
      row('Nora', 'nora@example.com', 'ENG'), // new, inside
      row('Dora Updated', 'dora@example.com', 'DEV1'), // Dora, inside, stays inside
      row('Fay Updated', 'fay@example.com', 'CFO'), // Fay, outside
      row('Newcomer', 'newcomer@example.com', 'CFO'), // new, placed outside
      row('Nowhere', 'nowhere@example.com'), // new, placed nowhere
      row('Otto Moved', 'otto@example.com', 'ACC'), // Otto, inside, moved out
      row('Ghost', 'ghost@example.com', 'GHOST'), // new, in no entry of the structure
      row('Adoptee', 'adoptee@example.com', 'OPS'), // the account a statement named: an actor outside every subtree
    ];
    const adoptee = { account: { homePage: world.agent('Dan').account.homePage, name: 'adoptee@example.com' } };
    const stated = await send('POST', '/xapi/statements', world.tenant.xapi, {
      actor: adoptee,
      verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' },
      object: { id: COURSE },
    });
    assert.equal(stated.statusCode, 200, stated.body);
    const before = (await get('/api/actors?limit=1000', world.tenant.headers)).json() as Json[];
    const res = await send('POST', '/api/import/users', key, { users });
    assert.equal(res.statusCode, 200, res.body);
    const summary = res.json();
    assert.deepEqual(
      { rows: summary.rows, new: summary.new, existing: summary.existing, skipped: summary.skipped, errorCount: summary.errorCount },
      { rows: 8, new: 1, existing: 1, skipped: 6, errorCount: 6 },
    );
    assert.deepEqual(
      (summary.errors as Json[]).map((error) => [error.row, error.type, error.value]),
      [
        [3, 'out_of_scope', 'fay@example.com'],
        [4, 'out_of_scope', 'CFO'],
        [5, 'out_of_scope', ''],
        [6, 'out_of_scope', 'ACC'],
        [7, 'out_of_scope', 'GHOST'],
        [8, 'out_of_scope', 'adoptee@example.com'],
      ],
    );
    const after = (await get('/api/actors?limit=1000', world.tenant.headers)).json() as Json[];
    const byName = (list: Json[], name: string) => list.find((actor) => actor.name === name);
    assert.deepEqual(byName(after, 'Fay'), byName(before, 'Fay'), 'Fay unchanged');
    assert.deepEqual(byName(after, 'Otto'), byName(before, 'Otto'), 'Otto unchanged');
    assert.ok(byName(after, 'Nora') && byName(after, 'Dora Updated'));
    for (const name of ['Newcomer', 'Nowhere', 'Ghost', 'Adoptee']) assert.equal(byName(after, name), undefined, name);
    assert.equal(after.length, before.length + 1);

    // The same rules for a CSV body (checked only: verify=true).
    const csv = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users?verify=true',
      headers: { ...key, 'content-type': 'text/csv; charset=utf-8' },
      payload: 'name,email,position\r\nFay,fay@example.com,CFO\r\nNina,nina@example.com,OPS\r\nNobody,nobody@example.com,\r\n',
    });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.deepEqual(
      { new: csv.json().new, skipped: csv.json().skipped, errors: (csv.json().errors as Json[]).map((error) => [error.row, error.type]) },
      {
        new: 1,
        skipped: 2,
        errors: [
          [1, 'out_of_scope'],
          [3, 'out_of_scope'],
        ],
      },
    );
  });

  it('takes a new scope at once: the admin’s tokens are refused, a new sign-in is narrowed (set-scope)', async () => {
    const world = await givenWorld(ctx);
    const admin = await world.admin();
    const everyone = PEOPLE.length + 1;
    assert.equal((await get('/api/actors', admin.headers)).headers['x-total-count'], String(everyone));
    const bus = LocalNotifyBus.of(ctx.db);
    const tokens = new TokenService(ctx.db, new TenancyService(ctx.db, 0, { notifications: bus }), bus, {
      cacheTtlMs: 0,
      refreshLifetimeSeconds: 0,
    });
    const limited = await setAdminScope(ctx.db, tokens, world.record, admin.email, 'ENG');
    assert.equal(limited.scope, 'ENG');
    // The old access token, cached by the app, is refused at once; so is its refresh token.
    const old = await get('/api/actors', admin.headers);
    assert.equal(old.statusCode, 401, old.body);
    const refresh = await tokenRequest(ctx.app, {
      grant_type: 'refresh_token',
      refresh_token: admin.refreshToken,
      client_id: world.client.clientId,
      client_secret: world.client.clientSecret,
    });
    assert.equal(refresh.statusCode, 400, refresh.body);
    const narrowed = { authorization: `Bearer ${(await world.signIn(admin.adminId)).access_token}`, 'x-svc-tenant': world.tenant.name };
    assert.deepEqual(names((await get('/api/actors', narrowed)).json()), sorted(peopleIn('ENG').map((someone) => someone.name)));
    assert.deepEqual((await get('/api/me', narrowed)).json().principal.scope, { organisationId: 'ENG' });
    assert.equal((await get('/api/api-keys', narrowed)).statusCode, 403);

    await setAdminScope(ctx.db, tokens, world.record, admin.email, null);
    assert.equal((await get('/api/actors', narrowed)).statusCode, 401);
    const whole = { authorization: `Bearer ${(await world.signIn(admin.adminId)).access_token}`, 'x-svc-tenant': world.tenant.name };
    assert.equal((await get('/api/actors', whole)).headers['x-total-count'], String(everyone));
    assert.equal((await get('/api/api-keys', whole)).statusCode, 200);
  });

  it('reaches nobody once a re-import drops its entry, though people still name it (fails closed)', async () => {
    const world = await givenWorld(ctx);
    const key = await world.scopedKey('OPS');
    assert.equal((await get('/api/actors', key)).headers['x-total-count'], String(peopleIn('OPS').length));
    const reimported = await send(
      'PUT',
      '/api/import/organisation',
      world.tenant.headers,
      ORGANISATION.filter((entry) => entry.id !== 'OPS'),
    );
    assert.equal(reimported.statusCode, 204, reimported.body);
    const list = await get('/api/actors', key);
    assert.deepEqual(list.json(), []);
    assert.equal(list.headers['x-total-count'], '0');
    assert.deepEqual((await send('POST', '/api/actors/search', key, { criteria: {} })).json(), { actors: [], total: 0 });
    assert.deepEqual((await get('/api/actors/attributes', key)).json(), { attributes: [] });
    assert.deepEqual((await get('/api/notifications', key)).json(), []);
    assert.equal((await get(`/api/actors/completions?${new URLSearchParams({ actorId: world.actorId('Otto') })}`, key)).statusCode, 404);
    const imported = await send('POST', '/api/import/users', key, {
      users: [{ name: 'Otto', attributes: { email: 'otto@example.com', position: 'OPS' } }],
    });
    assert.deepEqual(
      (imported.json().errors as Json[]).map((error) => error.type),
      ['out_of_scope'],
    );
    // The unscoped key still sees Otto, who still names OPS.
    const otto = await get(`/api/actors/completions?${new URLSearchParams({ actorId: world.actorId('Otto') })}`, world.tenant.headers);
    assert.equal(otto.statusCode, 200);
    assert.equal(named('Otto').attributes.position, 'OPS');
  });

  it('reaches nobody while the tenant links no attribute to the structure', async () => {
    const world = await givenWorld(ctx);
    const key = await world.scopedKey('CTO');
    assert.equal((await send('PUT', '/api/settings', world.tenant.headers, {})).statusCode, 200);
    assert.equal((await get('/api/actors', key)).headers['x-total-count'], '0');
    assert.equal((await get(`/api/actors/completions?${new URLSearchParams({ actorId: world.actorId('Dan') })}`, key)).statusCode, 404);
  });
});
