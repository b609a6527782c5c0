import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import {
  ADL,
  at,
  C1,
  completedPairs,
  EVENTS,
  givenReportTenant,
  JOBS,
  type Json,
  json,
  modelRecords,
  ORGANISATION,
  PEOPLE,
  peopleInScope,
  rate,
  REGISTRY,
  report,
  scopedKey,
  selectedPeople,
  subtree,
  countsRead,
} from './report-fixtures.js';

/**
 * The reports of an API key limited to an organisation subtree (docs/learning.md, "Scoped
 * credentials"): the people outside are never counted, the entries above or beside it never
 * listed, an entry outside named is the 404 of an entry that does not exist. The expected numbers
 * come from the fixture's model, the scope applied here as the documentation states it.
 */

const records = modelRecords(EVENTS);
const registered = REGISTRY.map((a) => a.id);
const positionOf = (id: string) => PEOPLE.find((p) => p.id === id)?.position ?? '';

/** The people a report of a key limited to `scope` counts with these filters. */
const reached = (scope: string, filters: { organisationId?: string; jobId?: string }) =>
  selectedPeople(filters).filter((id) => peopleInScope(scope).has(id));

/** completion-by-unit's answer for a key limited to `scope`, computed from the model. */
function expectedUnits(scope: string, query: { organisationId?: string; jobId?: string }, activities: string[]) {
  const people = reached(scope, query);
  const pairs = completedPairs(people, activities, records);
  const countIn = (units: Set<string>) => {
    const inside = people.filter((id) => units.has(positionOf(id)));
    const completed = [...pairs].filter((pair) => inside.includes(pair.split(' ')[0])).length;
    return { people: inside.length, completed, rate: rate(completed, inside.length, activities.length) };
  };
  const shown = subtree(query.organisationId ?? scope);
  return {
    activities: activities.length,
    counts: countsRead(query),
    units: ORGANISATION.filter((entry) => shown.has(entry.id)).map((entry) => ({
      id: entry.id,
      parentId: entry.parentId ?? null,
      direct: countIn(new Set([entry.id])),
      subtree: countIn(subtree(entry.id)),
      attributes: entry.attributes,
    })),
  };
}

describeEachBackend('Reports of a credential limited to an organisation subtree', (ctx) => {
  let tenant: GivenTenant;
  let keyA: Record<string, string>;
  const asA = (path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    report(ctx, tenant, path, query, { ...keyA, ...headers });

  it('completion-by-unit: only the entries of its subtree, counting only its people (the root above it is not listed)', async () => {
    tenant = await givenReportTenant(ctx);
    keyA = await scopedKey(ctx, tenant, 'A');
    for (const query of [{}, { organisationId: 'A1' }, { jobId: 'J1' }, { organisationId: 'A', jobId: 'J2' }] as Array<
      Record<string, string>
    >) {
      assert.deepEqual(json(await asA('completion-by-unit', query)), expectedUnits('A', query, registered), JSON.stringify(query));
    }
    // By hand: A holds E3 directly, A1 holds E1 and E2; C1 by E1, C2 by E2: 2 of 9 pairs.
    const whole = json(await asA('completion-by-unit'));
    assert.deepEqual(
      whole.units.map((u: Json) => [u.id, u.direct.people, u.subtree.people, u.subtree.completed]),
      [
        ['A', 1, 3, 2],
        ['A1', 2, 2, 2],
      ],
    );
    // The whole-tenant key still sees every entry, the root's roll-up holding E4 and E5 too.
    assert.equal(json(await report(ctx, tenant, 'completion-by-unit')).units[0].subtree.people, 5);
  });

  it('completion-by-job and completion-by-activity: every job and activity, counted over its people only', async () => {
    for (const query of [{}, { jobId: 'J1' }, { organisationId: 'A1' }, { tag: 'mandatory' }] as Array<Record<string, string>>) {
      const activities = query.tag ? [REGISTRY[0].id, REGISTRY[1].id] : registered;
      const people = reached('A', query);
      const pairs = completedPairs(people, activities, records);
      const jobs = JOBS.filter((job) => query.jobId === undefined || job.id === query.jobId).map((job) => {
        const holders = people.filter((id) => PEOPLE.find((p) => p.id === id)?.job === job.id);
        const completed = [...pairs].filter((pair) => holders.includes(pair.split(' ')[0])).length;
        return { id: job.id, name: job.name, people: holders.length, completed, rate: rate(completed, holders.length, activities.length) };
      });
      assert.deepEqual(
        json(await asA('completion-by-job', query)),
        { activities: activities.length, counts: countsRead(query), jobs },
        JSON.stringify(query),
      );

      const byActivity = json(await asA('completion-by-activity', query));
      assert.equal(byActivity.people, people.length, JSON.stringify(query));
      for (const item of byActivity.activities as Json[]) {
        const mine = records.filter((r) => r.activity === item.id && people.includes(r.who));
        assert.equal(item.attempted, new Set(mine.map((r) => r.who)).size, `${item.id} ${JSON.stringify(query)}`);
        assert.equal(item.completed, [...pairs].filter((pair) => pair.endsWith(` ${item.id}`)).length, item.id);
      }
    }
    // By hand: E4 (under B) completed C1 twice and E5 (ROOT) C3: none of it shows for A's key.
    const c1 = json(await asA('completion-by-activity', { activityId: C1 })).activities[0];
    assert.deepEqual([c1.attempted, c1.completed, c1.scores], [2, 1, 1]);
  });

  it('answers 404 for an organisationId outside its subtree, as for one that does not exist', async () => {
    for (const path of ['completion-by-unit', 'completion-by-job', 'completion-by-activity', 'activity-over-time']) {
      const range: Record<string, string> = path === 'activity-over-time' ? { from: '2026-03-01', to: '2026-03-02' } : {};
      const nope = await asA(path, { ...range, organisationId: 'NOPE' });
      for (const outside of ['ROOT', 'B', 'EMPTY']) {
        const res = await asA(path, { ...range, organisationId: outside });
        assert.equal(res.statusCode, 404, `${path} ${outside}`);
        assert.deepEqual(res.json(), {
          ...nope.json(),
          message: nope.json().message.replace('NOPE', outside),
          details: { organisationId: outside },
        });
      }
      // The whole-tenant key reads them.
      assert.equal((await report(ctx, tenant, path, { ...range, organisationId: 'B' })).statusCode, 200, path);
    }
  });

  it('activity-over-time: only its people’s statements, with or without a filter (no stranger, no one outside)', async () => {
    const live = EVENTS.filter((e) => !e.voided);
    const dayOf = (e: (typeof EVENTS)[number]) => new Date(at(e)).toISOString().slice(0, 10);
    for (const query of [{}, { activityId: C1 }, { jobId: 'J1' }, { organisationId: 'A1' }] as Array<Record<string, string>>) {
      const people = new Set(reached('A', query));
      const counted = live.filter((e) => people.has(e.who) && (query.activityId === undefined || e.activity === query.activityId));
      const verbs = [...new Set(counted.map((e) => `${ADL}${e.verb}`))].sort();
      const body = json(await asA('activity-over-time', { from: '2026-03-01', to: '2026-03-10', ...query }));
      assert.deepEqual(body.verbs, verbs, JSON.stringify(query));
      assert.deepEqual(
        body.intervals.map((i: Json) => [i.start, i.statements, i.activeLearners, i.verbs]),
        body.intervals.map((i: Json) => {
          const inside = counted.filter((e) => dayOf(e) === i.start);
          return [
            i.start,
            inside.length,
            new Set(inside.map((e) => e.who)).size,
            Object.fromEntries(verbs.map((verb) => [verb, inside.filter((e) => `${ADL}${e.verb}` === verb).length])),
          ];
        }),
        JSON.stringify(query),
      );
    }
    // By hand, 2026-03-02: E1's two statements; the whole-tenant key also counts E7's and the stranger's.
    const day = { from: '2026-03-02', to: '2026-03-02' };
    assert.deepEqual(
      json(await asA('activity-over-time', day)).intervals.map((i: Json) => [i.statements, i.activeLearners]),
      [[2, 1]],
    );
    assert.deepEqual(
      json(await report(ctx, tenant, 'activity-over-time', day)).intervals.map((i: Json) => [i.statements, i.activeLearners]),
      [[4, 3]],
    );
    // By week too.
    const week = json(await asA('activity-over-time', { from: '2026-03-02', to: '2026-03-08', interval: 'week' }));
    const inWeek = live.filter((e) => peopleInScope('A').has(e.who) && dayOf(e) >= '2026-03-02' && dayOf(e) <= '2026-03-08');
    assert.deepEqual(
      week.intervals.map((i: Json) => [i.start, i.statements, i.activeLearners]),
      [['2026-03-02', inWeek.length, new Set(inWeek.map((e) => e.who)).size]],
    );
  });

  it('answers CSV narrowed the same way', async () => {
    const csv = await asA('completion-by-unit', { activityId: C1 }, { accept: 'text/csv' });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
    const expected = expectedUnits('A', {}, [C1]);
    const cell = (value: number | null) => (value === null ? '' : String(value));
    assert.deepEqual(csv.body.split('\r\n'), [
      'id,parentId,direct.people,direct.completed,direct.rate,subtree.people,subtree.completed,subtree.rate,attributes.title',
      ...expected.units.map((u) =>
        [
          u.id,
          u.parentId,
          u.direct.people,
          u.direct.completed,
          cell(u.direct.rate),
          u.subtree.people,
          u.subtree.completed,
          cell(u.subtree.rate),
          u.id === 'A' ? `"'=HYPERLINK(""x"")"` : '"Team, one"',
        ].join(','),
      ),
      '',
    ]);
    const jobs = await asA('completion-by-job', { activityId: C1 }, { accept: 'text/csv' });
    const engineers = reached('A', { jobId: 'J1' });
    const accountants = reached('A', { jobId: 'J2' });
    const done = (people: string[]) => completedPairs(people, [C1], records).size;
    assert.equal(
      jobs.body,
      [
        'id,name,people,completed,rate',
        `J1,Engineer,${engineers.length},${done(engineers)},${cell(rate(done(engineers), engineers.length, 1))}`,
        `J2,Accountant,${accountants.length},${done(accountants)},${cell(rate(done(accountants), accountants.length, 1))}`,
        'J3,Idle,0,0,',
        '',
      ].join('\r\n'),
    );
  });

  it('reaches nobody when its entry is one without people, and every key sees only its own subtree', async () => {
    const empty = await scopedKey(ctx, tenant, 'EMPTY');
    assert.deepEqual(json(await report(ctx, tenant, 'completion-by-unit', {}, empty)), expectedUnits('EMPTY', {}, registered));
    assert.equal(json(await report(ctx, tenant, 'completion-by-activity', {}, empty)).people, 0);
    const b = await scopedKey(ctx, tenant, 'B');
    assert.deepEqual(json(await report(ctx, tenant, 'completion-by-unit', {}, b)), expectedUnits('B', {}, registered));
    assert.equal((await report(ctx, tenant, 'completion-by-unit', { organisationId: 'A' }, b)).statusCode, 404);
  });
});
