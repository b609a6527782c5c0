import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { KeptCounts } from '../../src/modules/learning/reports/kept-counts.service.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { ADL, agentOf, HOME, type Json, json, report } from './report-fixtures.js';

/**
 * The counts the reports keep (docs/learning.md, "Counts kept as the writes happen") always equal
 * a recount: random sequences of writes through the API (statements, voiding, people moved,
 * deactivated and brought back, the organisation, the jobs and the registry replaced, the settings
 * written), one after the other and at once, each followed by the recount (`KeptCounts.verify`,
 * what `learnbase reports verify` runs) and by the reports read both ways, kept and recounted.
 */

const ENTRIES = ['ROOT', 'A', 'A1', 'B', 'B1'];
const JOB_IDS = ['J1', 'J2', 'J3'];
const PEOPLE = Array.from({ length: 12 }, (_, i) => `P${i + 1}`);
const ACTIVITIES = ['https://example.com/k1', 'https://example.com/k2', 'https://example.com/k3', 'https://example.com/k4'];
const REGISTRATIONS = ['', '11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];
const VERBS = ['initialized', 'completed', 'passed', 'failed', 'experienced'];

/** A small generator of its own (mulberry32), so a failing sequence is replayed by its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  return { next, pick, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

const organisation = (r: Random) => {
  // ROOT > A > A1 and ROOT > B > B1, some dropped or moved: people placed in a dropped entry stay placed in an entry no longer there.
  const entries = [
    { id: 'ROOT', attributes: {} },
    { id: 'A', parentId: 'ROOT', attributes: {} },
    { id: 'A1', parentId: r.chance(0.3) ? 'B' : 'A', attributes: {} },
    { id: 'B', parentId: 'ROOT', attributes: {} },
    { id: 'B1', parentId: 'B', attributes: {} },
  ];
  return entries.filter((entry) => entry.id === 'ROOT' || entry.id === 'A' || entry.id === 'B' || r.chance(0.8));
};
const jobs = (r: Random) => JOB_IDS.filter((id) => id === 'J1' || r.chance(0.8)).map((id) => ({ id, name: `Job ${id}` }));

const person = (r: Random, id: string) => ({
  name: `Person ${id}`,
  attributes: {
    employeeId: id,
    ...(r.chance(0.85) ? { positionNumber: r.pick([...ENTRIES, 'GHOST']) } : {}),
    ...(r.chance(0.8) ? { jobCode: r.pick([...JOB_IDS, 'NOJOB']) } : {}),
  },
});

interface World {
  ctx: TestContext;
  tenant: GivenTenant;
  counts: KeptCounts;
  stored: string[];
  assignments: string[];
}

const DUE = ['2026-03-05T00:00:00Z', '2026-03-09T12:00:00Z', '2027-06-01T00:00:00Z', undefined];

/** An assignment of some of the first three activities (registered from the start) to people chosen one of the four ways. */
const assignment = (r: Random) => {
  const kind = r.pick(['actorIds', 'criteria', 'organisationId', 'jobId'] as const);
  const people =
    kind === 'actorIds'
      ? {
          actorIds: PEOPLE.filter(() => r.chance(0.4))
            .map((id) => `account|${HOME}|${id}`)
            .concat(`account|${HOME}|P1`)
            .filter((id, i, all) => all.indexOf(id) === i),
        }
      : kind === 'criteria'
        ? { criteria: { field: 'attributes.jobCode', op: 'eq', value: r.pick(JOB_IDS) } }
        : kind === 'organisationId'
          ? { organisationId: r.pick(['ROOT', 'A', 'B']) }
          : { jobId: 'J1' };
  const due = r.pick(DUE);
  return {
    name: `Assignment ${kind}`,
    activityIds: ACTIVITIES.slice(0, 3).filter((_, i) => i === 0 || r.chance(0.5)),
    people,
    ...(due === undefined ? {} : { dueAt: due }),
  };
};

const send = (world: World, method: 'PUT' | 'POST', url: string, payload: unknown) =>
  world.ctx.app.inject({ method, url, headers: world.tenant.headers, payload: payload as object });

const statement = (r: Random) => {
  const verb = r.pick(VERBS);
  const registration = r.pick(REGISTRATIONS);
  return {
    id: randomUUID(),
    actor: r.chance(0.1) ? { mbox: 'mailto:stranger@example.com' } : agentOf(r.pick(PEOPLE)),
    verb: { id: `${ADL}${verb}` },
    object: { id: r.pick(ACTIVITIES) },
    timestamp: new Date(Date.UTC(2026, 2, 1) + Math.floor(r.next() * 1e9)).toISOString(),
    ...(verb === 'failed' ? { result: { success: false } } : r.chance(0.2) ? { result: { success: true, completion: true } } : {}),
    ...(registration === '' ? {} : { context: { registration } }),
  };
};

/** One random write through the API, named for the message of a failure. */
async function write(world: World, r: Random): Promise<string> {
  const roll = r.next();
  if (roll < 0.4) {
    const batch = Array.from({ length: 1 + Math.floor(r.next() * 6) }, () => statement(r));
    json(await world.ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: world.tenant.xapi, payload: batch }));
    world.stored.push(...batch.map((s) => s.id));
    return `statements ${batch.map((s) => `${s.actor.account?.name ?? 'stranger'}:${s.verb.id.slice(ADL.length)}:${s.object.id.slice(-2)}`).join(',')}`;
  }
  if (roll < 0.48 && world.stored.length > 0) {
    const target = world.stored.splice(Math.floor(r.next() * world.stored.length), 1)[0];
    const voiding = { actor: agentOf('P1'), verb: { id: `${ADL}voided` }, object: { objectType: 'StatementRef', id: target } };
    json(await world.ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: world.tenant.xapi, payload: [voiding] }));
    return `voided ${target}`;
  }
  if (roll < 0.6) {
    const some = PEOPLE.filter(() => r.chance(0.3));
    json(await send(world, 'POST', '/api/import/users', { users: some.map((id) => person(r, id)) }));
    return `people moved ${some.join(',')}`;
  }
  if (roll < 0.65) {
    // A sync of everyone but one: that one deactivated (the guard allows a tenth); a later import brings them back.
    const left = r.pick(PEOPLE);
    const res = await send(world, 'POST', '/api/import/users', {
      mode: 'sync',
      users: PEOPLE.filter((id) => id !== left).map((id) => person(r, id)),
    });
    assert.ok(res.statusCode === 200 || res.statusCode === 400, res.body);
    return `sync without ${left} (${res.statusCode})`;
  }
  if (roll < 0.72) {
    const entries = organisation(r);
    assert.equal((await send(world, 'PUT', '/api/import/organisation', entries)).statusCode, 204);
    return `organisation ${entries.map((e) => `${e.id}<${e.parentId ?? ''}`).join(',')}`;
  }
  if (roll < 0.76) {
    const list = jobs(r);
    assert.equal(
      (
        await send(
          world,
          'PUT',
          '/api/import/jobs',
          list.map(({ id, name }) => ({ id, name, competencies: [] })),
        )
      ).statusCode,
      204,
    );
    return `jobs ${list.map((job) => job.id).join(',')}`;
  }
  if (roll < 0.9) {
    const body = assignment(r);
    const replaced = world.assignments.length > 0 && r.chance(0.4) ? r.pick(world.assignments) : undefined;
    if (replaced !== undefined && r.chance(0.3)) {
      const res = await world.ctx.app.inject({
        method: 'DELETE',
        url: `/api/assignments/item?id=${replaced}`,
        headers: world.tenant.headers,
      });
      assert.equal(res.statusCode, 204, res.body);
      world.assignments.splice(world.assignments.indexOf(replaced), 1);
      return `assignment ${replaced} deleted`;
    }
    const res = await world.ctx.app.inject({
      method: replaced === undefined ? 'POST' : 'PUT',
      url: replaced === undefined ? '/api/assignments' : `/api/assignments/item?id=${replaced}`,
      headers: world.tenant.headers,
      payload: body,
    });
    assert.ok(res.statusCode === 200 || res.statusCode === 201, res.body);
    if (replaced === undefined) world.assignments.push(res.json().id);
    return `assignment ${replaced ?? res.json().id} ${replaced === undefined ? 'created' : 'replaced'}: ${JSON.stringify(body)}`;
  }
  if (roll < 0.97) {
    const registry = ACTIVITIES.filter((id, i) => i < 2 || r.chance(0.6)).map((id) => ({
      id,
      definition: {},
      ...(r.chance(0.4) ? { requiresSuccess: true } : { requiresSuccess: false }),
    }));
    json(await send(world, 'PUT', '/api/activities', registry));
    return `registry ${registry.map((a) => `${a.id.slice(-2)}${a.requiresSuccess ? '!' : ''}`).join(',')}`;
  }
  // The settings: the job from the attribute, or none (then nobody has a job).
  const jobAttribute = r.chance(0.7) ? 'jobCode' : null;
  json(await send(world, 'PUT', '/api/settings', settings(jobAttribute)));
  return `settings jobAttribute=${jobAttribute}`;
}

const settings = (jobAttribute: string | null) => ({
  uniqueAttributes: ['employeeId'],
  accountHomePage: HOME,
  organisationAttribute: 'positionNumber',
  ...(jobAttribute === null ? {} : { jobAttribute }),
});

async function givenWorld(ctx: TestContext, r: Random): Promise<World> {
  const tenant = await ctx.given.tenant();
  const counts = new KeptCounts({ sql: ctx.db, baseDomain: ctx.config.baseDomain, log: ctx.app.log, inlinePeople: 20_000 });
  const world: World = { ctx, tenant, counts, stored: [], assignments: [] };
  json(await send(world, 'PUT', '/api/settings', settings('jobCode')));
  assert.equal((await send(world, 'PUT', '/api/import/organisation', organisation(r))).statusCode, 204);
  assert.equal(
    (
      await send(
        world,
        'PUT',
        '/api/import/jobs',
        JOB_IDS.map((id) => ({ id, name: id, competencies: [] })),
      )
    ).statusCode,
    204,
  );
  json(await send(world, 'POST', '/api/import/users', { users: PEOPLE.map((id) => person(r, id)) }));
  json(
    await send(
      world,
      'PUT',
      '/api/activities',
      ACTIVITIES.slice(0, 3).map((id) => ({ id, definition: {} })),
    ),
  );
  return world;
}

/** The kept counts equal a recount, and every report answers the same kept and recounted. */
async function assertKeptEqualsRecount(world: World, step: string, fold = false): Promise<void> {
  const tenant = { id: world.tenant.id, name: world.tenant.name };
  // The assignments' class deltas folded now and then, as the background does: the same counts.
  if (fold) await world.counts.fold(tenant.id);
  const verified = await world.counts.verify(tenant);
  assert.deepEqual(
    {
      people: verified.people,
      units: verified.units,
      members: verified.members,
      classes: verified.classes,
      compliance: verified.compliance,
    },
    { people: [], units: [], members: [], classes: [], compliance: [] },
    `after ${step}`,
  );
  assert.equal(verified.rebuilding, false, step);
  const queries: Array<Record<string, string>> = [{}, { organisationId: 'A' }, { jobId: 'J1' }, { organisationId: 'ROOT', jobId: 'J2' }];
  const reports = async () => {
    const answers: Json[] = [];
    for (const query of queries) {
      for (const path of ['completion-by-unit', 'completion-by-job', 'assignment-compliance']) {
        const res = await report(world.ctx, world.tenant, path, query);
        // An entry a move dropped answers 404 both ways.
        answers.push(res.statusCode === 404 ? { status: 404 } : json(res));
      }
    }
    for (const id of world.assignments) {
      answers.push(json(await report(world.ctx, world.tenant, 'assignment-compliance', { assignmentId: id })));
      for (const url of [
        `/api/assignments/item?id=${id}`,
        `/api/assignments/people?id=${id}&limit=1000`,
        `/api/assignments/people?id=${id}&status=overdue,inProgress`,
      ]) {
        answers.push(json(await world.ctx.app.inject({ method: 'GET', url, headers: world.tenant.headers })));
      }
    }
    return answers;
  };
  const kept = await reports();
  assert.ok(
    kept.every((body) => typeof body.counts !== 'string' || body.counts === 'kept'),
    step,
  );
  // The same reports while a rebuild is asked for: recounted from the records.
  await world.ctx.db.query('INSERT INTO learning_count_rebuilds (tenant_id) VALUES ($1)', [world.tenant.id]);
  const recounted = await reports();
  await world.ctx.db.query('DELETE FROM learning_count_rebuilds WHERE tenant_id = $1', [world.tenant.id]);
  assert.ok(
    recounted.every((body) => typeof body.counts !== 'string' || body.counts === 'recounted'),
    step,
  );
  // A report's `counts` says how it was read; an assignment's is its people by status, compared.
  const figures = (answers: Json[]) => answers.map(({ counts, ...rest }) => (typeof counts === 'string' ? rest : { counts, ...rest }));
  assert.deepEqual(figures(kept), figures(recounted), `after ${step}`);
}

describeEachBackend('Kept report counts', (ctx) => {
  it('equal a recount after every write of random sequences of statements, voidings, people, organisation, jobs, registry and settings', async () => {
    for (const seed of [1, 2, 3]) {
      const r = random(seed);
      const world = await givenWorld(ctx, r);
      await assertKeptEqualsRecount(world, `seed ${seed}: the start`);
      const steps: string[] = [];
      for (let i = 0; i < 25; i++) {
        steps.push(await write(world, r));
        await assertKeptEqualsRecount(world, `seed ${seed}: ${steps.join(' | ')}`, i % 3 === 2);
      }
      // Something was counted: the sequence is not one of empty reports.
      const whole = json(await report(ctx, world.tenant, 'completion-by-unit'));
      assert.ok(
        whole.units.some((unit: Json) => unit.subtree.completed > 0),
        JSON.stringify(whole),
      );
    }
  });

  it('equal a recount after writes made at once: statements of the same people, imports moving them, registry and organisation changes', async () => {
    const r = random(42);
    const world = await givenWorld(ctx, r);
    for (let round = 0; round < 4; round++) {
      const writers = Array.from({ length: 8 }, (_, i) => random(round * 100 + i));
      // Each writer's sequence is fixed by its seed; they run beside each other, and beside folds
      // of the assignments' deltas (as the background makes them).
      const folds = (async () => {
        for (let i = 0; i < 3; i++) await world.counts.fold(world.tenant.id);
      })();
      const steps = await Promise.all(writers.map(async (w) => [await write(world, w), await write(world, w), await write(world, w)]));
      await folds;
      await assertKeptEqualsRecount(world, `round ${round}: ${steps.flat().join(' | ')}`);
    }
  });

  it('a tenant whose counts are asked to be rebuilt answers recounted until the rebuild, then kept; a rebuild puts right what was wrong', async () => {
    const r = random(7);
    const world = await givenWorld(ctx, r);
    for (let i = 0; i < 10; i++) await write(world, r);
    const before = json(await report(ctx, world.tenant, 'completion-by-unit'));
    assert.equal(before.counts, 'kept');
    // Counts gone wrong (by hand here): verify names the difference, a rebuild makes them again.
    await ctx.db.query('UPDATE learning_unit_counts SET evidence = evidence + 5 WHERE tenant_id = $1', [world.tenant.id]);
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/assignments',
      headers: world.tenant.headers,
      payload: assignment(r),
    });
    assert.equal(created.statusCode, 201, created.body);
    world.assignments.push(created.json().id);
    const counted = json(
      await ctx.app.inject({ method: 'GET', url: `/api/assignments/item?id=${created.json().id}`, headers: world.tenant.headers }),
    );
    await ctx.db.query('INSERT INTO learning_assignment_classes (tenant_id, assignment_id, open_idle) VALUES ($1, $2, 3)', [
      world.tenant.id,
      created.json().id,
    ]);
    const wrong = await world.counts.verify({ id: world.tenant.id, name: world.tenant.name });
    assert.ok(wrong.units.length > 0, JSON.stringify(wrong));
    assert.match(wrong.units[0].kept ?? '', /^people=\d+ evidence=\d+$/);
    assert.deepEqual(
      wrong.classes.map((row) => row.assignmentId),
      [created.json().id],
    );
    assert.match(wrong.classes[0].kept, /open_idle=\d+/);
    await world.counts.rebuild({ id: world.tenant.id, name: world.tenant.name });
    await assertKeptEqualsRecount(world, 'the rebuild');
    assert.deepEqual(json(await report(ctx, world.tenant, 'completion-by-unit')), before);
    assert.deepEqual(
      json(await ctx.app.inject({ method: 'GET', url: `/api/assignments/item?id=${created.json().id}`, headers: world.tenant.headers })),
      counted,
    );
  });
});

describeEachBackend(
  'Kept report counts rebuilt in the background',
  (ctx) => {
    it('a change of more people than a request re-derives asks for a rebuild: recounted meanwhile, kept again once the rebuild ran', async () => {
      const r = random(9);
      const world = await givenWorld(ctx, r);
      for (let i = 0; i < 8; i++) await write(world, r);
      // LEARNBASE_KEPT_COUNTS_INLINE_PEOPLE is 0 here: every change of people asks for a rebuild.
      const { rows } = await ctx.db.query<{ n: string | number }>(
        'SELECT count(*) AS n FROM learning_count_rebuilds WHERE tenant_id = $1',
        [world.tenant.id],
      );
      const deadline = Date.now() + 20_000;
      let body = json(await report(ctx, world.tenant, 'completion-by-unit'));
      while (body.counts !== 'kept' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        body = json(await report(ctx, world.tenant, 'completion-by-unit'));
      }
      assert.equal(body.counts, 'kept', `the background rebuild ran (${rows[0].n} request after the writes)`);
      await assertKeptEqualsRecount(world, 'the background rebuild');
      // A statement written while a rebuild is asked for is counted by the rebuild.
      await ctx.db.query('INSERT INTO learning_count_rebuilds (tenant_id) VALUES ($1) ON CONFLICT DO NOTHING', [world.tenant.id]);
      json(
        await ctx.app.inject({
          method: 'POST',
          url: '/xapi/statements',
          headers: world.tenant.xapi,
          payload: [{ actor: agentOf('P1'), verb: { id: `${ADL}completed` }, object: { id: ACTIVITIES[0] } }],
        }),
      );
      await world.counts.rebuild({ id: world.tenant.id, name: world.tenant.name });
      await assertKeptEqualsRecount(world, 'a statement during a rebuild');
    });
  },
  { keptCountsInlinePeople: 0 },
);
