import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { issueApiKey } from '../../src/modules/auth/api-keys/api-key.service.js';
import { createAdmin } from '../../src/modules/auth/admins/admin.service.js';
import { createClient } from '../../src/modules/auth/oauth/clients/client.service.js';
import { issueCode } from '../../src/modules/auth/oauth/code.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { REDIRECT_URI, redeemCode } from '../auth/oauth-token-fixtures.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import {
  actorIdOf,
  COURSE_A,
  COURSE_D,
  countOf,
  expectedActivity,
  expectedPerson,
  type Fact,
  FUTURE_DUE,
  givenLearningTenant,
  HR,
  type Headers,
  type Json,
  ORGANISATION,
  requests,
  statementOf,
  user,
} from './assignment-fixtures.js';

/**
 * Assignments and scoped credentials (docs/learning.md, "Scoped credentials and assignments"): who
 * each scope reaches is computed here from the fixture's positions (ORGANISATION's parents), never
 * read back from the server.
 */

/** The fixture's people: their position (none: undefined) and job. */
const PEOPLE: Record<string, { position?: string; job: string }> = {
  E1: { position: 'CTO', job: 'J-ENG' },
  E2: { position: 'DEV1', job: 'J-ENG' },
  E3: { position: 'DEV1', job: 'J-ACC' },
  E4: { position: 'CFO', job: 'J-ENG' },
  E5: { position: 'CFO', job: 'J-ACC' },
  E6: { position: 'CEO', job: 'J-ENG' },
  E7: { job: 'J-ENG' },
};

const attributesOf = (person: { position?: string; job: string }) => ({
  jobCode: person.job,
  ...(person.position === undefined ? {} : { positionNumber: person.position }),
});

/** The entry and every entry below it, from ORGANISATION's parents. */
function subtree(entry: string): Set<string> {
  const ids = new Set([entry]);
  for (let grown = true; grown; ) {
    grown = false;
    for (const row of ORGANISATION as Array<{ id: string; parentId?: string }>) {
      if (row.parentId !== undefined && ids.has(row.parentId) && !ids.has(row.id)) {
        ids.add(row.id);
        grown = true;
      }
    }
  }
  return ids;
}

/** The employee ids among `people` (of PEOPLE, or a map like it) whose position lies in `entry`'s subtree. */
const inside = (entry: string, people: Record<string, { position?: string }> = PEOPLE) => {
  const entries = subtree(entry);
  return Object.keys(people)
    .filter((id) => people[id]!.position !== undefined && entries.has(people[id]!.position!))
    .sort();
};
const withJob = (job: string) =>
  Object.keys(PEOPLE)
    .filter((id) => PEOPLE[id]!.job === job)
    .sort();
const both = (a: string[], b: string[]) => a.filter((id) => b.includes(id));

/** Statements with fixed timestamps: E2 completed A, E3 and E4 attempted it. */
const FACTS: Fact[] = [
  { person: 'E2', verb: 'completed', activity: COURSE_A, at: '2026-02-01T10:00:00Z' },
  { person: 'E3', verb: 'attempted', activity: COURSE_A, at: '2026-02-02T10:00:00Z' },
  { person: 'E4', verb: 'attempted', activity: COURSE_A, at: '2026-02-03T10:00:00Z' },
];
const ACTIVITIES = [COURSE_A, COURSE_D];

/** The counts of these people's statuses over ACTIVITIES due at FUTURE_DUE, from FACTS alone. */
const countsOf = (people: string[]) =>
  countOf(
    people.map((person) =>
      expectedPerson(ACTIVITIES.map((activity) => expectedActivity(FACTS, person, activity, false, FUTURE_DUE).status)),
    ),
  );

const body = (name: string, people: Json) => ({ name, activityIds: ACTIVITIES, people, dueAt: FUTURE_DUE });

describeEachBackend('Learning assignments and scoped credentials', (ctx: TestContext) => {
  const r = requests(ctx);

  interface World {
    tenant: GivenTenant;
    /** Headers of an API key limited to `entry`. */
    key(entry: string): Promise<Headers>;
    /** Headers of a Bearer token of an admin limited to `entry`. */
    admin(entry: string): Promise<Headers>;
  }

  /** The learning tenant with PEOPLE imported and FACTS stated, by its unscoped key. */
  async function givenWorld(): Promise<World> {
    const tenant = await givenLearningTenant(ctx);
    await r.importUsers(
      tenant,
      Object.entries(PEOPLE).map(([id, person]) => user(id, attributesOf(person))),
    );
    await r.statements(tenant, FACTS.map(statementOf));
    const record = (await new TenancyService(ctx.db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
    return {
      tenant,
      async key(entry) {
        const { key, secret } = await issueApiKey(ctx.db, record, entry);
        return { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`, 'x-svc-tenant': tenant.name };
      },
      async admin(entry) {
        const admin = await createAdmin(ctx.db, record, `scoped-${randomBytes(4).toString('hex')}@example.com`, 'an admin password', entry);
        const client = await createClient(ctx.db, record, [REDIRECT_URI]);
        const code = await issueCode(ctx.db, {
          tenantId: tenant.id,
          clientId: client.clientId,
          adminId: admin.id,
          redirectUri: REDIRECT_URI,
        });
        const res = await redeemCode(ctx.app, client, code);
        assert.equal(res.statusCode, 200, res.body);
        return { authorization: `Bearer ${res.json().access_token}`, 'x-svc-tenant': tenant.name };
      },
    };
  }

  const send = async (method: string, url: string, headers: Headers, payload: unknown, status: number): Promise<Json> => {
    const res = await r.call(method, url, headers, payload);
    assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
    return res.statusCode === 204 ? {} : res.json();
  };
  const post = (headers: Headers, payload: unknown, status = 201) => send('POST', '/api/assignments', headers, payload, status);
  const item = (headers: Headers, id: string, status = 200) => send('GET', `/api/assignments/item?id=${id}`, headers, undefined, status);
  const people = (headers: Headers, id: string, query = '', status = 200) =>
    send('GET', `/api/assignments/people?id=${id}${query}`, headers, undefined, status);
  const list = (headers: Headers, query = '') => send('GET', `/api/assignments${query}`, headers, undefined, 200);
  const actorIdsOf = async (headers: Headers, id: string) =>
    ((await people(headers, id, '&limit=1000')).people as Json[]).map((person) => person.actorId as string);
  const total = async (tenant: GivenTenant) => (await list(tenant.headers)).total as number;

  it('limits a scoped POST to its entry: the members are the selection within its subtree, counted by status', async () => {
    const world = await givenWorld();
    const cto = await world.key('CTO');
    const cases: Array<[Json, string[]]> = [
      [{ jobId: 'J-ENG' }, both(withJob('J-ENG'), inside('CTO'))],
      [{ criteria: {} }, inside('CTO')],
      [{ organisationId: 'DEV1' }, inside('DEV1')],
      [{ organisationId: 'CTO' }, inside('CTO')],
      [{ actorIds: [actorIdOf('E3'), actorIdOf('E1')] }, ['E1', 'E3']],
    ];
    assert.deepEqual(inside('CTO'), ['E1', 'E2', 'E3']);
    for (const [selection, expected] of cases) {
      const created = await post(cto, body('Scoped', selection));
      assert.deepEqual(created.scope, { organisationId: 'CTO' }, JSON.stringify(selection));
      assert.equal(created.members, expected.length, JSON.stringify(selection));
      assert.deepEqual(created.counts, countsOf(expected), JSON.stringify(selection));
      assert.equal(created.formerMembers, 0);
      // What is stored, not only what the scoped key reads: the unscoped key finds the same people.
      assert.deepEqual(await actorIdsOf(world.tenant.headers, created.id), expected.map(actorIdOf));
      const seenWhole = await item(world.tenant.headers, created.id);
      assert.equal(seenWhole.members, expected.length);
      assert.deepEqual(seenWhole.scope, { organisationId: 'CTO' });
    }
    // A scoped admin's is limited as a scoped key's.
    const admin = await world.admin('DEV1');
    const byAdmin = await post(admin, body('By a DEV1 admin', { jobId: 'J-ENG' }));
    assert.deepEqual(byAdmin.scope, { organisationId: 'DEV1' });
    assert.deepEqual(await actorIdsOf(world.tenant.headers, byAdmin.id), both(withJob('J-ENG'), inside('DEV1')).map(actorIdOf));
  });

  it('refuses actor ids it does not reach (404 actors.not_found, whatever the reason) and entries outside its subtree (403); nothing is stored', async () => {
    const world = await givenWorld();
    const cto = await world.key('CTO');
    // Outside the subtree, without a position, not stored at all: one answer, naming the first.
    for (const outsider of ['E4', 'E7', 'E99']) {
      const refused = await post(cto, body('Refused', { actorIds: [actorIdOf('E1'), actorIdOf(outsider)] }), 404);
      assert.equal(refused.code, 'actors.not_found');
      assert.equal(refused.details.actorId, actorIdOf(outsider));
    }
    for (const entry of ['CEO', 'CFO']) {
      const refused = await post(cto, body('Refused', { organisationId: entry }), 403);
      assert.equal(refused.code, 'auth.out_of_scope');
    }
    // An entry the structure does not have is the 400 it is for anyone: the structure is open to it.
    assert.equal((await post(cto, body('Refused', { organisationId: 'NOPE' }), 400)).code, 'assignments.unknown_organisation');
    assert.equal(await total(world.tenant), 0, 'nothing stored');
    // The unscoped key: an unknown actor is still the 400 naming it; anyone stored may be assigned.
    assert.equal(
      (await post(world.tenant.headers, body('Unscoped', { actorIds: [actorIdOf('E99')] }), 400)).code,
      'assignments.unknown_actors',
    );
    const whole = await post(world.tenant.headers, body('Unscoped', { actorIds: [actorIdOf('E4'), actorIdOf('E7')] }));
    assert.equal(whole.members, 2);
    assert.equal(whole.scope, undefined);
  });

  it('keeps a stored scope whoever refreshes the members: a person imported inside joins, one outside does not', async () => {
    const world = await givenWorld();
    const cto = await world.key('CTO');
    const engineers = await post(cto, body('CTO engineers', { jobId: 'J-ENG' }));
    const everyone = await post(world.tenant.headers, body('All engineers', { jobId: 'J-ENG' }));
    const later: Record<string, { position?: string; job: string }> = {
      E8: { position: 'DEV1', job: 'J-ENG' },
      E9: { position: 'CFO', job: 'J-ENG' },
      E10: { job: 'J-ENG' },
    };
    // An unscoped import writes them.
    await r.importUsers(
      world.tenant,
      Object.entries(later).map(([id, person]) => user(id, attributesOf(person))),
    );
    const all = { ...PEOPLE, ...later };
    const jEng = Object.keys(all).filter((id) => all[id]!.job === 'J-ENG');
    const expected = () => both(jEng, inside('CTO', all)).sort();
    assert.deepEqual(expected(), ['E1', 'E2', 'E8']);
    assert.deepEqual(await actorIdsOf(world.tenant.headers, engineers.id), expected().map(actorIdOf));
    assert.deepEqual(await actorIdsOf(world.tenant.headers, everyone.id), jEng.sort().map(actorIdOf));

    // An unscoped agent write moves E9 into DEV1 (joins) and E2 out to the CFO (leaves, keeping A).
    for (const [id, position] of [
      ['E9', 'DEV1'],
      ['E2', 'CFO'],
    ] as const) {
      const moved = await r.upsertAgent(world.tenant, {
        account: { homePage: HR, name: id },
        extensions: { 'http://localhost/api/ext/agent/attributes': { employeeId: id, positionNumber: position, jobCode: 'J-ENG' } },
      });
      assert.equal(moved.statusCode, 200, moved.body);
      all[id] = { position, job: 'J-ENG' };
    }
    assert.deepEqual(expected(), ['E1', 'E8', 'E9']);
    const now = await people(world.tenant.headers, engineers.id, '&limit=1000');
    assert.deepEqual(
      (now.people as Json[]).filter((person) => person.leftAt === undefined).map((person) => person.actorId),
      expected().map(actorIdOf),
    );
    // E2 completed A before leaving: a former member, kept.
    assert.deepEqual(
      (now.people as Json[]).filter((person) => person.leftAt !== undefined).map((person) => person.actorId),
      [actorIdOf('E2')],
    );

    // A change of everyone (the structure imported again, by the unscoped key) keeps the scope too.
    await r.importOrganisation(world.tenant, ORGANISATION);
    const after = await item(world.tenant.headers, engineers.id);
    assert.equal(after.members, expected().length);
    assert.equal(after.formerMembers, 1);
  });

  it('lists, reads and counts only what it sees and reaches; another assignment is 404', async () => {
    const world = await givenWorld();
    const cto = await world.key('CTO');
    const admin = await world.admin('CTO');
    const unscoped = world.tenant.headers;
    // Whole-tenant assignments: one holding people of the subtree, one holding none of them, one mixed and static.
    const wholeEng = await post(unscoped, body('All engineers', { jobId: 'J-ENG' }));
    const cfo = await post(unscoped, body('CFO office', { organisationId: 'CFO' }));
    const mixed = await post(unscoped, body('Mixed', { actorIds: [actorIdOf('E5'), actorIdOf('E3'), actorIdOf('E4')] }));
    // The scoped key's own, limited to CTO; and one of a DEV1 key (inside CTO's subtree), holding no one.
    const own = await post(cto, body('Own', { organisationId: 'DEV1' }));
    const dev1 = await world.key('DEV1');
    const empty = await post(dev1, body('Nobody of DEV1', { criteria: { field: 'attributes.jobCode', op: 'eq', value: 'J-NONE' } }));
    assert.equal(empty.members, 0);

    for (const headers of [cto, admin]) {
      const listed = await list(headers);
      // Newest first: the DEV1 key's (seen by its scope), its own, the mixed and the engineers (seen by their people).
      assert.deepEqual(
        (listed.assignments as Json[]).map((assignment) => assignment.name),
        ['Nobody of DEV1', 'Own', 'Mixed', 'All engineers'],
      );
      assert.equal(listed.total, 4);
      const byId = new Map((listed.assignments as Json[]).map((assignment) => [assignment.id, assignment]));
      assert.equal(byId.get(wholeEng.id)!.members, both(withJob('J-ENG'), inside('CTO')).length);
      assert.equal(byId.get(wholeEng.id)!.scope, undefined);
      assert.equal(byId.get(mixed.id)!.members, 1);
      assert.deepEqual(byId.get(own.id)!.scope, { organisationId: 'CTO' });
      assert.deepEqual(byId.get(empty.id)!.scope, { organisationId: 'DEV1' });
      // A page: the same total.
      const page = await list(headers, '?limit=1&skip=1');
      assert.deepEqual(
        (page.assignments as Json[]).map((assignment) => assignment.name),
        ['Own'],
      );
      assert.equal(page.total, 4);

      const eng = await item(headers, wholeEng.id);
      const engInside = both(withJob('J-ENG'), inside('CTO'));
      assert.equal(eng.members, engInside.length);
      assert.deepEqual(eng.counts, countsOf(engInside));
      assert.deepEqual(eng.people, { jobId: 'J-ENG' });
      const mixedItem = await item(headers, mixed.id);
      assert.deepEqual(mixedItem.people, { actorIds: [actorIdOf('E3')] });
      assert.deepEqual(mixedItem.counts, countsOf(['E3']));

      const engPeople = await people(headers, wholeEng.id);
      assert.deepEqual(
        (engPeople.people as Json[]).map((person) => person.actorId),
        engInside.map(actorIdOf),
      );
      assert.equal(engPeople.total, engInside.length);
      const started = await people(headers, mixed.id, '&status=inProgress,assigned');
      assert.deepEqual(started.total, 1);

      // The CFO's office holds no one it reaches, and is no scope of its subtree: as if it did not exist.
      for (const url of [`/api/assignments/item?id=${cfo.id}`, `/api/assignments/people?id=${cfo.id}`]) {
        const res = await r.call('GET', url, headers);
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json().code, 'assignments.not_found');
      }
    }
    // The DEV1 key sees the CTO key's own (its people are DEV1's) but not what only E1 (CTO) holds.
    const dev1List = await list(dev1);
    assert.deepEqual(
      (dev1List.assignments as Json[]).map((assignment) => assignment.name),
      ['Nobody of DEV1', 'Own', 'Mixed', 'All engineers'],
    );
    const e1Only = await post(unscoped, body('E1 only', { actorIds: [actorIdOf('E1')] }));
    await item(dev1, e1Only.id, 404);
    assert.equal((await list(dev1)).total, 4);
    assert.equal((await list(cto)).total, 5);

    // The unscoped key: everything, counted whole.
    const whole = await list(unscoped);
    assert.equal(whole.total, 6);
    const engWhole = await item(unscoped, wholeEng.id);
    assert.equal(engWhole.members, withJob('J-ENG').length);
    assert.deepEqual(engWhole.counts, countsOf(withJob('J-ENG')));
    assert.deepEqual((await item(unscoped, mixed.id)).people.actorIds, ['E5', 'E3', 'E4'].map(actorIdOf));
  });

  it('counts former members it reaches only, and sees an assignment through one', async () => {
    const world = await givenWorld();
    const cto = await world.key('CTO');
    // E2 (DEV1) completed A; E4 (CFO) only attempted it. Both leave the engineers.
    const engineers = await post(
      world.tenant.headers,
      body('Engineers of DEV1 and the CFO', { criteria: { field: 'attributes.jobCode', op: 'eq', value: 'J-ENG' } }),
    );
    for (const id of ['E2', 'E4']) {
      const moved = await r.upsertAgent(world.tenant, {
        account: { homePage: HR, name: id },
        extensions: { 'http://localhost/api/ext/agent/attributes': { employeeId: id, ...attributesOf({ ...PEOPLE[id]!, job: 'J-ACC' }) } },
      });
      assert.equal(moved.statusCode, 200, moved.body);
    }
    const whole = await item(world.tenant.headers, engineers.id);
    assert.equal(whole.formerMembers, 1, 'E2 keeps A; E4 had done nothing');
    const scoped = await item(cto, engineers.id);
    assert.equal(scoped.formerMembers, 1);
    assert.equal(scoped.members, 1, 'E1');
    const former = await people(cto, engineers.id);
    assert.deepEqual(
      (former.people as Json[]).map((person) => [person.actorId, person.leftAt !== undefined]),
      [
        [actorIdOf('E1'), false],
        [actorIdOf('E2'), true],
      ],
    );
    // A DEV1 key reaches E2 only, a former member: it still sees the assignment, and E2 alone in it.
    const dev1 = await world.key('DEV1');
    const seen = await item(dev1, engineers.id);
    assert.equal(seen.members, 0);
    assert.equal(seen.formerMembers, 1);
    assert.equal((await list(dev1)).total, 1);
  });

  it('changes only the assignments of its subtree: a whole-tenant one it sees is 403, one it does not see 404; nothing changes', async () => {
    const world = await givenWorld();
    const cto = await world.key('CTO');
    const dev1 = await world.key('DEV1');
    const unscoped = world.tenant.headers;
    const wholeEng = await post(unscoped, body('All engineers', { jobId: 'J-ENG' }));
    const cfo = await post(unscoped, body('CFO office', { organisationId: 'CFO' }));
    const own = await post(cto, body('Own', { jobId: 'J-ENG' }));
    const replacement = body('Replaced', { organisationId: 'DEV1' });

    for (const [headers, id, status, code] of [
      [cto, wholeEng.id, 403, 'auth.out_of_scope'],
      [cto, cfo.id, 404, 'assignments.not_found'],
      // The DEV1 key sees the CTO key's (E2 is its), and may not change it: CTO is above DEV1.
      [dev1, own.id, 403, 'auth.out_of_scope'],
    ] as const) {
      assert.equal((await send('PUT', `/api/assignments/item?id=${id}`, headers, replacement, status)).code, code);
      assert.equal((await send('DELETE', `/api/assignments/item?id=${id}`, headers, undefined, status)).code, code);
    }
    const untouched = await item(unscoped, wholeEng.id);
    assert.equal(untouched.name, 'All engineers');
    assert.equal(untouched.members, withJob('J-ENG').length);
    assert.equal((await item(unscoped, own.id)).name, 'Own');
    assert.equal(await total(world.tenant), 3);

    // Its own: replaced under the same rules as POST.
    assert.equal(
      (await send('PUT', `/api/assignments/item?id=${own.id}`, cto, body('Refused', { organisationId: 'CFO' }), 403)).code,
      'auth.out_of_scope',
    );
    assert.equal(
      (await send('PUT', `/api/assignments/item?id=${own.id}`, cto, body('Refused', { actorIds: [actorIdOf('E5')] }), 404)).code,
      'actors.not_found',
    );
    assert.equal((await item(unscoped, own.id)).name, 'Own', 'nothing changed');
    const replaced = await send('PUT', `/api/assignments/item?id=${own.id}`, cto, body('Replaced', { criteria: {} }), 200);
    assert.equal(replaced.name, 'Replaced');
    assert.deepEqual(replaced.scope, { organisationId: 'CTO' });
    assert.deepEqual(await actorIdsOf(unscoped, own.id), inside('CTO').map(actorIdOf));

    // A DEV1 key replaces its own; a CTO key may replace it too, and it stays DEV1's: limited to
    // DEV1's people, still the DEV1 key's to change.
    const dev1Own = await post(dev1, body('DEV1 own', { criteria: {} }));
    assert.deepEqual(await actorIdsOf(unscoped, dev1Own.id), inside('DEV1').map(actorIdOf));
    const byCto = await send('PUT', `/api/assignments/item?id=${dev1Own.id}`, cto, body('Changed by the CTO', { criteria: {} }), 200);
    assert.deepEqual(byCto.scope, { organisationId: 'DEV1' });
    assert.deepEqual(await actorIdsOf(unscoped, dev1Own.id), inside('DEV1').map(actorIdOf));
    assert.equal(
      (await send('PUT', `/api/assignments/item?id=${dev1Own.id}`, dev1, body('DEV1 again', { criteria: {} }), 200)).name,
      'DEV1 again',
    );

    // An unscoped PUT keeps the stored scope: everyone selected, the CTO's people taken.
    const kept = await send(
      'PUT',
      `/api/assignments/item?id=${own.id}`,
      unscoped,
      body('By the unscoped key', { organisationId: 'CEO' }),
      200,
    );
    assert.deepEqual(kept.scope, { organisationId: 'CTO' });
    assert.equal(kept.members, inside('CTO').length);

    // Deleting its own.
    await send('DELETE', `/api/assignments/item?id=${own.id}`, cto, undefined, 204);
    await item(unscoped, own.id, 404);
    // The unscoped key deletes anything.
    await send('DELETE', `/api/assignments/item?id=${cfo.id}`, unscoped, undefined, 204);
  });

  it('fails closed when its entry leaves the structure: the scoped assignment takes no one', async () => {
    const world = await givenWorld();
    const dev1 = await world.key('DEV1');
    const own = await post(dev1, body('DEV1', { criteria: {} }));
    assert.equal(own.members, inside('DEV1').length);
    await r.importOrganisation(
      world.tenant,
      ORGANISATION.filter((entry) => entry.id !== 'DEV1'),
    );
    const after = await item(world.tenant.headers, own.id);
    assert.equal(after.members, 0);
    assert.deepEqual(after.scope, { organisationId: 'DEV1' });
    // And the key itself reaches nobody: the list is empty.
    assert.deepEqual(await list(dev1), { assignments: [], total: 0 });
  });

  it('refuses another tenant’s scoped key everywhere (401)', async () => {
    const world = await givenWorld();
    const other = await givenWorld();
    const mine = await post(world.tenant.headers, body('Mine', { criteria: {} }));
    const foreign = { ...(await other.key('CTO')), 'x-svc-tenant': world.tenant.name };
    for (const [method, url] of [
      ['POST', '/api/assignments'],
      ['GET', '/api/assignments'],
      ['GET', `/api/assignments/item?id=${mine.id}`],
      ['PUT', `/api/assignments/item?id=${mine.id}`],
      ['DELETE', `/api/assignments/item?id=${mine.id}`],
      ['GET', `/api/assignments/people?id=${mine.id}`],
    ] as const) {
      const res = await r.call(method, url, foreign, method === 'POST' || method === 'PUT' ? body('x', { criteria: {} }) : undefined);
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
    assert.equal((await item(world.tenant.headers, mine.id)).members, Object.keys(PEOPLE).length);
  });
});
