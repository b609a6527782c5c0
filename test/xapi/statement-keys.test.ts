import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/database/migrate.js';
import { BACKENDS } from '../support/backends.js';
import { describeEachBackend } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Json = Record<string, unknown>;

const VOIDED = 'http://adlnet.gov/expapi/verbs/voided';
const ATTEMPTED = 'http://adlnet.gov/expapi/verbs/attempted';

/** A statement of a fresh actor about a fresh activity in a fresh registration, with overrides. */
function statement(overrides: Json = {}): Json {
  const n = randomUUID().slice(0, 8);
  return {
    id: randomUUID(),
    actor: { mbox: `mailto:keys-${n}@example.com` },
    verb: { id: `http://example.com/verbs/${n}` },
    object: { id: `http://example.com/activities/${n}` },
    context: { registration: randomUUID(), contextActivities: { parent: [{ id: `http://example.com/courses/${n}` }] } },
    ...overrides,
  };
}

const refTo = (target: Json, overrides: Json = {}) =>
  statement({ verb: { id: ATTEMPTED }, object: { objectType: 'StatementRef', id: target.id }, context: undefined, ...overrides });

/** Every query parameter the target matches, with the value it matches by. */
function filtersOf(target: Json): Array<Record<string, string>> {
  const context = target.context as { registration: string; contextActivities: { parent: Array<{ id: string }> } };
  return [
    { agent: JSON.stringify(target.actor) },
    { verb: (target.verb as Json).id as string },
    { activity: (target.object as Json).id as string },
    { registration: context.registration },
    { activity: context.contextActivities.parent[0].id, related_activities: 'true' },
  ];
}

describeEachBackend('statement lists through StatementRefs (xapi_statement_keys)', (ctx) => {
  const post = async (tenant: GivenTenant, payload: unknown) => {
    const res = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.xapi, payload: payload as never });
    assert.equal(res.statusCode, 200, res.body);
  };
  const ids = async (tenant: GivenTenant, query: Record<string, string>): Promise<string[]> => {
    const res = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?${new URLSearchParams(query)}`, headers: tenant.xapi });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().statements.map((found: Json) => found.id);
  };

  it('finds a statement targeting a match whether it was stored before its target, after it, or in the same batch, through chains', async () => {
    const tenant = await ctx.given.tenant();
    const target = statement();
    const before = refTo(target);
    const beforeBefore = refTo(before);
    await post(tenant, beforeBefore);
    await post(tenant, before);
    await post(tenant, target);
    const after = refTo(target);
    const sameBatchTarget = statement({ actor: target.actor, verb: target.verb, object: target.object, context: target.context });
    const sameBatchRef = refTo(sameBatchTarget);
    await post(tenant, [sameBatchRef, sameBatchTarget, after]);

    const expected = [target, before, beforeBefore, after, sameBatchTarget, sameBatchRef].map((item) => item.id).sort();
    for (const filter of filtersOf(target)) {
      assert.deepEqual((await ids(tenant, filter)).sort(), expected, JSON.stringify(filter));
    }
    // Its own values still find a referring statement, and nothing more.
    assert.deepEqual(await ids(tenant, { agent: JSON.stringify(before.actor) }), [before.id, beforeBefore.id]);
    // The referring statements' verb does not find the target.
    assert.ok(!(await ids(tenant, { verb: ATTEMPTED })).includes(target.id as string));
  });

  it('answers the voiding statement, not the voided one, for the voided statement’s filters, in stored order with paging', async () => {
    const tenant = await ctx.given.tenant();
    const target = statement();
    await post(tenant, target);
    const voiding = statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: target.id }, context: undefined });
    await post(tenant, voiding);
    assert.deepEqual(await ids(tenant, { agent: JSON.stringify(target.actor) }), [voiding.id]);

    const more = [statement({ actor: target.actor }), statement({ actor: target.actor }), statement({ actor: target.actor })];
    for (const item of more) await post(tenant, item);
    const agent = JSON.stringify(target.actor);
    const newestFirst = [...more.map((item) => item.id).reverse(), voiding.id];
    assert.deepEqual(await ids(tenant, { agent }), newestFirst);
    assert.deepEqual(await ids(tenant, { agent, ascending: 'true' }), [...newestFirst].reverse());
    const first = await ctx.app.inject({
      method: 'GET',
      url: `/xapi/statements?${new URLSearchParams({ agent, limit: '3' })}`,
      headers: tenant.xapi,
    });
    const next = await ctx.app.inject({ method: 'GET', url: first.json().more, headers: tenant.xapi });
    assert.deepEqual(
      [...first.json().statements, ...next.json().statements].map((found: Json) => found.id),
      newestFirst,
    );
    assert.equal(next.json().more, '');
    // Two filters together: both must hold.
    assert.deepEqual(await ids(tenant, { agent, verb: (more[1].verb as Json).id as string }), [more[1].id]);
    assert.deepEqual(await ids(tenant, { agent, verb: ATTEMPTED }), []);
  });
});

describe('migration 0015 fills xapi_statement_keys from what was stored before it', () => {
  for (const backend of BACKENDS) {
    it(`[${backend.name}] own values, the actor at reach 0, and the StatementRef closure`, async () => {
      const { db, dispose } = await backend.open();
      const before = mkdtempSync(join(tmpdir(), 'learnbase-migrations-'));
      try {
        for (const name of readdirSync(MIGRATIONS_DIR).filter((file) => file < '0015'))
          copyFileSync(join(MIGRATIONS_DIR, name), join(before, name));
        await migrate(db, before);
        const tenant = randomUUID();
        await db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'migrated')`, [tenant]);
        const target = randomUUID();
        const ref = randomUUID();
        const registration = randomUUID();
        await db.query(
          `INSERT INTO xapi_statements (tenant_id, id, statement, stored, verb_id, registration, object_statement_id, voiding)
           VALUES ($1, $2, $3, '2026-01-01T00:00:00Z', 'http://example.com/verbs/did', $4, NULL, false),
                  ($1, $5, $6, '2026-01-02T00:00:00Z', $7, NULL, $2, true)`,
          [
            tenant,
            target,
            JSON.stringify({
              actor: {
                objectType: 'Group',
                account: { homePage: 'http://example.com', name: 'team' },
                member: [{ mbox: 'mailto:a@example.com' }],
              },
            }),
            registration,
            ref,
            JSON.stringify({ actor: { mbox: 'mailto:b@example.com' } }),
            VOIDED,
          ],
        );
        await db.query(
          `INSERT INTO xapi_statement_agents (tenant_id, agent_key, statement_id, direct) VALUES
             ($1, 'account|http://example.com|team', $2, true), ($1, 'mbox|mailto:a@example.com', $2, true),
             ($1, 'mbox|mailto:auth@example.com', $2, false), ($1, 'mbox|mailto:b@example.com', $3, true)`,
          [tenant, target, ref],
        );
        await db.query(
          `INSERT INTO xapi_statement_activities (tenant_id, activity_id, statement_id, direct) VALUES
             ($1, 'http://example.com/a', $2, true), ($1, 'http://example.com/parent', $2, false)`,
          [tenant, target],
        );

        assert.deepEqual(await migrate(db), ['0015_statement_keys.sql', ...readdirSync(MIGRATIONS_DIR).filter((file) => file >= '0016')]);
        const { rows } = await db.query<{ id: string; kind: string; key: string; reach: number }>(
          `SELECT statement_id::text AS id, kind::text AS kind, key, reach FROM xapi_statement_keys WHERE tenant_id = $1
            ORDER BY statement_id = $2 DESC, kind, key`,
          [tenant, target],
        );
        const of = (id: string) => rows.filter((row) => row.id === id).map((row) => [row.kind, row.key, row.reach]);
        const targetKeys = [
          ['a', 'http://example.com/a', 1],
          ['a', 'http://example.com/parent', 2],
          ['g', 'account|http://example.com|team', 0],
          ['g', 'mbox|mailto:a@example.com', 0],
          ['g', 'mbox|mailto:auth@example.com', 2],
          ['r', registration, 1],
          ['v', 'http://example.com/verbs/did', 1],
        ];
        assert.deepEqual(of(target), targetKeys);
        assert.deepEqual(of(ref), [
          ['a', 'http://example.com/a', 1],
          ['a', 'http://example.com/parent', 2],
          ['g', 'account|http://example.com|team', 1],
          ['g', 'mbox|mailto:a@example.com', 1],
          ['g', 'mbox|mailto:auth@example.com', 2],
          ['g', 'mbox|mailto:b@example.com', 0],
          ['r', registration, 1],
          ['v', VOIDED, 1],
          ['v', 'http://example.com/verbs/did', 1],
        ]);
        const { rows: tables } = await db.query(
          `SELECT 1 FROM information_schema.tables WHERE table_name IN ('xapi_statement_agents', 'xapi_statement_activities')`,
        );
        assert.equal(tables.length, 0);
      } finally {
        rmSync(before, { recursive: true, force: true });
        await dispose();
      }
    });
  }
});
