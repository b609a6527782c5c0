import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import {
  insertStatements,
  markVoided,
  VOIDING_LOCK_BUCKETS,
  type NewStatement,
} from '../../src/modules/xapi/statements/statement.repository.js';
import { indexStatement } from '../../src/modules/xapi/statements/statement-model.js';
import { describeEachBackend } from '../support/build-test-app.js';

const statement = (overrides: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  actor: { mbox: 'mailto:batch@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
  object: { id: 'http://example.com/activities/batch' },
  ...overrides,
});

const voiding = (target: string) =>
  statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: target } });

describeEachBackend(
  'POST /xapi/statements batch limits',
  (ctx) => {
    it('answers 413 naming the limit to a batch over it, and stores nothing of it', async () => {
      const tenant = await ctx.given.tenant();
      const batch = Array.from({ length: 6 }, () => statement());
      const res = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: batch });
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().code, 'statements.batch_too_large');
      assert.deepEqual(res.json().details, { limit: 5, sent: 6 });
      assert.match(res.json().message, /at most 5/);
      const found = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${batch[0].id}`, headers: tenant.xapi });
      assert.equal(found.statusCode, 404);
    });

    it('stores a batch at the limit, voiding within it', async () => {
      const tenant = await ctx.given.tenant();
      const target = statement();
      const batch = [target, voiding(target.id), statement(), statement(), statement()];
      const res = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: batch });
      assert.equal(res.statusCode, 200, res.body);
      const voided = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?voidedStatementId=${target.id}`, headers: tenant.xapi });
      assert.equal(voided.statusCode, 200);
    });
  },
  { statementBatchLimit: 5 },
);

describeEachBackend('Voiding locks of a large batch', (ctx) => {
  it(`voids within and across batches larger than the ${VOIDING_LOCK_BUCKETS} lock buckets`, async () => {
    const tenant = await ctx.given.tenant();
    const earlier = Array.from({ length: 100 }, () => statement());
    assert.equal(
      (await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: earlier })).statusCode,
      200,
    );
    const fresh = Array.from({ length: 200 }, () => statement());
    // Voids ten earlier statements and ten of its own, and sends a voiding statement before its target.
    const late = statement();
    const batch = [
      ...fresh,
      ...earlier.slice(0, 10).map((item) => voiding(item.id)),
      ...fresh.slice(0, 10).map((item) => voiding(item.id)),
      voiding(late.id),
    ];
    const res = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: batch });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: late })).statusCode, 200);
    for (const id of [earlier[0].id, earlier[9].id, fresh[0].id, fresh[9].id, late.id]) {
      const found = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?voidedStatementId=${id}`, headers: tenant.xapi });
      assert.equal(found.statusCode, 200, `${id} is voided`);
    }
    for (const id of [earlier[10].id, fresh[10].id]) {
      const found = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${id}`, headers: tenant.xapi });
      assert.equal(found.statusCode, 200, `${id} is not voided`);
    }
  });

  it(`holds at most ${VOIDING_LOCK_BUCKETS} advisory locks for a batch of 2,000 statements`, async () => {
    const tenant = await ctx.given.tenant();
    const stored = new Date().toISOString();
    const items: NewStatement[] = Array.from({ length: 2_000 }, () => {
      const item = { ...statement(), stored, authority: { mbox: 'mailto:authority@example.com' } };
      return { id: item.id, statement: item, stored, index: indexStatement(item) };
    });
    const locks = await ctx.db.transaction(async (tx) => {
      const inserted = await insertStatements(tx, tenant.id, items);
      assert.equal(inserted.size, 2_000);
      await markVoided(tx, tenant.id, [...inserted]);
      const { rows } = await tx.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`,
      );
      return Number(rows[0].n);
    });
    assert.ok(locks > 0 && locks <= VOIDING_LOCK_BUCKETS, `${locks} advisory locks`);
  });
});
