import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { writeBatchRows } from '../../src/platform/process-metrics.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Json = Record<string, unknown>;

const COMPLETED = { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } };
const VOIDED = { id: 'http://adlnet.gov/expapi/verbs/voided', display: { 'en-US': 'voided' } };

/** A completed statement of a fresh learner about a fresh activity. */
function statement(overrides: Json = {}): Json {
  const n = randomUUID().slice(0, 8);
  return {
    id: randomUUID(),
    actor: { objectType: 'Agent', mbox: `mailto:batch-${n}@example.com`, name: `Learner ${n}` },
    verb: COMPLETED,
    object: { objectType: 'Activity', id: `http://example.com/activities/batch-${n}`, definition: { name: { 'en-US': `Activity ${n}` } } },
    result: { completion: true, success: true },
    ...overrides,
  };
}

/** How many statement transactions the writer committed, and the requests they held. */
async function batches(): Promise<{ count: number; sum: number }> {
  const { values } = await writeBatchRows.get();
  const of = (name: string) => values.find((value) => value.metricName === name && value.labels.writes === 'statements')?.value ?? 0;
  return { count: of('learnbase_db_write_batch_rows_count'), sum: of('learnbase_db_write_batch_rows_sum') };
}

describeEachBackend('statement writes of concurrent requests share a transaction (issue 27, item 2)', (ctx: TestContext) => {
  const post = (tenant: GivenTenant, body: unknown) =>
    ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: body as object });
  const get = (tenant: GivenTenant, query: string) =>
    ctx.app.inject({ method: 'GET', url: `/xapi/statements?${query}`, headers: tenant.xapi });

  it('stores each of 40 concurrent single-statement POSTs, in fewer transactions than requests, with their records', async () => {
    const tenant = await ctx.given.tenant();
    const sent = Array.from({ length: 40 }, () => statement());
    const before = await batches();
    const answers = await Promise.all(sent.map((one) => post(tenant, one)));
    const after = await batches();
    for (const [i, res] of answers.entries()) {
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), [sent[i].id]);
    }
    assert.ok(after.sum - before.sum >= 40, 'every request went through the writer');
    assert.ok(after.count - before.count < 40, `shared transactions: ${after.count - before.count} for 40 requests`);

    for (const one of sent) {
      const read = await get(tenant, `statementId=${one.id}`);
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(read.json().actor, one.actor);
    }
    const records = await ctx.app.inject({
      method: 'GET',
      url: `/api/actors/completions?${new URLSearchParams({ agent: JSON.stringify({ mbox: (sent[7].actor as Json).mbox }) })}`,
      headers: tenant.headers,
    });
    assert.equal(records.statusCode, 200, records.body);
    assert.deepEqual(
      records.json().map((record: Json) => record.activityId),
      [(sent[7].object as Json).id],
    );
    const activity = await ctx.app.inject({
      method: 'GET',
      url: `/xapi/activities?activityId=${encodeURIComponent((sent[3].object as Json).id as string)}`,
      headers: tenant.xapi,
    });
    assert.equal(activity.statusCode, 200, activity.body);
    assert.deepEqual(activity.json().definition, (sent[3].object as Json).definition);
  });

  it('decides concurrent POSTs of one id as one by one would: the same statement is accepted, a different one is 409', async () => {
    const tenant = await ctx.given.tenant();
    const id = randomUUID();
    const one = statement({ id });
    const other = { ...one, result: { completion: false } };
    const bodies = Array.from({ length: 20 }, (_, i) => (i % 3 === 2 ? other : one));
    const answers = await Promise.all(bodies.map((body) => post(tenant, body)));
    const stored = (await get(tenant, `statementId=${id}`)).json();
    const winner = (stored.result as Json).completion === true ? one : other;
    for (const [i, res] of answers.entries()) {
      if (bodies[i] === winner) assert.equal(res.statusCode, 200, res.body);
      else {
        assert.equal(res.statusCode, 409, res.body);
        assert.match(res.json().message, new RegExp(id));
      }
    }
    const listed = await get(tenant, `agent=${encodeURIComponent(JSON.stringify({ mbox: (one.actor as Json).mbox }))}`);
    assert.equal(listed.json().statements.length, 1, 'stored once');
  });

  it('refuses a request of several statements whole when one conflicts, while the others of its transaction are stored', async () => {
    const tenant = await ctx.given.tenant();
    const taken = statement();
    assert.equal((await post(tenant, taken)).statusCode, 200);
    const fresh = statement();
    const conflicting = [fresh, { ...taken, result: { completion: false } }];
    const bystanders = Array.from({ length: 6 }, () => statement());
    const answers = await Promise.all([post(tenant, conflicting), ...bystanders.map((one) => post(tenant, one))]);
    assert.equal(answers[0].statusCode, 409, answers[0].body);
    assert.equal((await get(tenant, `statementId=${fresh.id}`)).statusCode, 404, 'nothing of the refused request is stored');
    for (const [i, one] of bystanders.entries()) {
      assert.equal(answers[i + 1].statusCode, 200, answers[i + 1].body);
      assert.equal((await get(tenant, `statementId=${one.id}`)).statusCode, 200);
    }
  });

  it('voids a statement sent concurrently with its voiding statement, and takes it out of the records', async () => {
    const tenant = await ctx.given.tenant();
    const target = statement();
    const voiding = statement({
      actor: target.actor,
      verb: VOIDED,
      object: { objectType: 'StatementRef', id: target.id },
      result: undefined,
    });
    const answers = await Promise.all([post(tenant, target), post(tenant, voiding), post(tenant, statement())]);
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      [200, 200, 200],
    );
    assert.equal((await get(tenant, `statementId=${target.id}`)).statusCode, 404);
    assert.equal((await get(tenant, `voidedStatementId=${target.id}`)).statusCode, 200);
    const records = await ctx.app.inject({
      method: 'GET',
      url: `/api/actors/completions?${new URLSearchParams({ agent: JSON.stringify({ mbox: (target.actor as Json).mbox }) })}`,
      headers: tenant.headers,
    });
    assert.deepEqual(records.json(), [], 'the voided statement makes no record');
  });

  it('keeps the concurrent writes of two tenants apart, PUTs included', async () => {
    const [a, b] = await Promise.all([ctx.given.tenant(), ctx.given.tenant()]);
    const sent = Array.from({ length: 20 }, (_, i) => ({ tenant: i % 2 === 0 ? a : b, body: statement(), put: i % 4 === 1 }));
    const answers = await Promise.all(
      sent.map(({ tenant, body, put }) =>
        put
          ? ctx.app.inject({ method: 'PUT', url: `/xapi/statements?statementId=${body.id}`, headers: tenant.xapi, payload: body })
          : post(tenant, body),
      ),
    );
    for (const [i, res] of answers.entries()) assert.equal(res.statusCode, sent[i].put ? 204 : 200, res.body);
    for (const { tenant, body } of sent) {
      const other = tenant === a ? b : a;
      assert.equal((await get(tenant, `statementId=${body.id}`)).statusCode, 200);
      assert.equal((await get(other, `statementId=${body.id}`)).statusCode, 404, 'not in the other tenant');
    }
  });
});
