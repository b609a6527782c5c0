import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/database/migrate.js';
import { tallyDeltas } from '../../src/modules/xapi/statements/statement-tally-rules.js';
import type { JsonObject } from '../../src/kernel/formats.js';
import { BACKENDS } from '../support/backends.js';

const ADL = 'http://adlnet.gov/expapi/verbs/';
const COURSE = 'http://example.com/course';
const ADA = { mbox: 'mailto:ada@example.com' };
const BOB = { objectType: 'Agent', account: { homePage: 'https://hr.example.com', name: 'E2' } };

/** Statements stored before migration 0028, as stored (completed: timestamp and stored set), with their flags. */
const STATEMENTS: Array<{ statement: JsonObject; voided?: boolean; voiding?: boolean }> = [
  // 23:30 at -01:00 is the next day in UTC.
  { statement: { actor: ADA, verb: { id: `${ADL}completed` }, object: { id: COURSE }, timestamp: '2026-03-01T23:30:00-01:00' } },
  // No offset: UTC, whatever the session's time zone; a comma before the fraction.
  { statement: { actor: ADA, verb: { id: `${ADL}launched` }, object: { id: COURSE }, timestamp: '2026-03-02T00:00:00,5' } },
  // A group's identified members are its learners, each once; its own identifier is not one.
  {
    statement: {
      actor: { objectType: 'Group', mbox: 'mailto:team@example.com', member: [ADA, BOB, ADA] },
      verb: { id: `${ADL}attended` },
      object: { id: COURSE },
      timestamp: '2026-03-08T10:00:00Z',
    },
  },
  // A group without identified members: no learner; an object that is no activity.
  {
    statement: {
      actor: { objectType: 'Group', mbox: 'mailto:team@example.com' },
      verb: { id: `${ADL}commented` },
      object: { objectType: 'StatementRef', id: randomUUID() },
      timestamp: '2026-03-08T11:00:00Z',
    },
  },
  // Voided, and the voiding statement: neither counts.
  { statement: { actor: BOB, verb: { id: `${ADL}passed` }, object: { id: COURSE }, timestamp: '2026-03-02T09:00:00Z' }, voided: true },
  {
    statement: {
      actor: BOB,
      verb: { id: `${ADL}voided` },
      object: { objectType: 'StatementRef', id: randomUUID() },
      timestamp: '2026-03-02T09:05:00Z',
    },
    voiding: true,
  },
];

const ADA_KEY = 'mbox|mailto:ada@example.com';
const BOB_KEY = 'account|https://hr.example.com|E2';

describe('migration 0028 tallies the statements stored before it, as the statement write does', () => {
  for (const backend of BACKENDS) {
    it(`[${backend.name}] by UTC day of the timestamp, per learner, verb and activity; voided and voiding left out`, async () => {
      const { db, dispose } = await backend.open();
      const before = mkdtempSync(join(tmpdir(), 'learnbase-migrations-'));
      try {
        for (const name of readdirSync(MIGRATIONS_DIR).filter((file) => file < '0028'))
          copyFileSync(join(MIGRATIONS_DIR, name), join(before, name));
        await migrate(db, before);
        const tenant = randomUUID();
        const other = randomUUID();
        await db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'migrated'), ($2, 'other')`, [tenant, other]);
        const stored = STATEMENTS.map(({ statement, ...flags }) => ({
          ...flags,
          statement: { ...statement, id: randomUUID(), stored: '2026-03-20T00:00:00.000Z' },
        }));
        for (const id of [tenant, other]) {
          await db.query(
            `INSERT INTO xapi_statements (tenant_id, id, statement, stored, verb_id, voiding, voided)
             SELECT $1, gen_random_uuid(), s.statement, '2026-03-20T00:00:00Z', s.statement->'verb'->>'id', s.voiding, s.voided
               FROM jsonb_to_recordset($2::jsonb) AS s(statement jsonb, voiding boolean, voided boolean)`,
            [id, JSON.stringify(stored.map(({ statement, voided, voiding }) => ({ statement, voided: !!voided, voiding: !!voiding })))],
          );
        }
        await db.transaction(async (tx) => {
          await tx.script(`SET LOCAL TimeZone = 'Pacific/Auckland'`);
          await migrate(tx);
        });

        const tallies = async (id: string) =>
          (
            await db.query<{ actor_key: string; day: string; verb_id: string; activity_id: string; statements: number }>(
              `SELECT actor_key, day::text AS day, verb_id, activity_id, statements FROM xapi_statement_tallies
                WHERE tenant_id = $1 ORDER BY actor_key, day, verb_id`,
              [id],
            )
          ).rows.map((row) => [row.actor_key, row.day, row.verb_id.replace(ADL, ''), row.activity_id, Number(row.statements)]);
        assert.deepEqual(await tallies(tenant), [
          ['', '2026-03-08', 'commented', '', 1],
          [BOB_KEY, '2026-03-08', 'attended', COURSE, 1],
          [ADA_KEY, '2026-03-02', 'completed', COURSE, 1],
          [ADA_KEY, '2026-03-02', 'launched', COURSE, 1],
          [ADA_KEY, '2026-03-08', 'attended', COURSE, 1],
        ]);
        assert.deepEqual(await tallies(other), await tallies(tenant), 'each tenant its own');

        const learners = (
          await db.query<{ period: string; period_start: string; actor_key: string; statements: number }>(
            `SELECT period::text AS period, period_start::text AS period_start, actor_key, statements FROM xapi_statement_learners
              WHERE tenant_id = $1 ORDER BY period, period_start, actor_key`,
            [tenant],
          )
        ).rows.map((row) => [row.period, row.period_start, row.actor_key, Number(row.statements)]);
        assert.deepEqual(learners, [
          ['d', '2026-03-02', ADA_KEY, 2],
          ['d', '2026-03-08', BOB_KEY, 1],
          ['d', '2026-03-08', ADA_KEY, 1],
          // A week row counts active days: Ada's 2026-03-02 and 2026-03-08 (its Sunday).
          ['w', '2026-03-02', BOB_KEY, 1],
          ['w', '2026-03-02', ADA_KEY, 2],
        ]);

        const totals = (
          await db.query<{ kind: string; period_start: string; verb_id: string; total: string }>(
            `SELECT kind::text AS kind, period_start::text AS period_start, verb_id, sum(total) AS total FROM xapi_statement_totals
              WHERE tenant_id = $1 GROUP BY kind, period_start, verb_id ORDER BY kind, period_start, verb_id`,
            [tenant],
          )
        ).rows.map((row) => [row.kind, row.period_start, row.verb_id.replace(ADL, ''), Number(row.total)]);
        assert.deepEqual(totals, [
          ['d', '2026-03-02', '', 1],
          ['d', '2026-03-08', '', 2],
          ['s', '2026-03-02', 'completed', 1],
          ['s', '2026-03-02', 'launched', 1],
          // The group's statement once, whatever its members.
          ['s', '2026-03-08', 'attended', 1],
          ['s', '2026-03-08', 'commented', 1],
          ['w', '2026-03-02', '', 2],
        ]);

        // The write's own rules give the same rows.
        const counted = tallyDeltas(
          stored.filter((item) => !item.voided && !item.voiding).map((item) => item.statement),
          [],
        );
        assert.deepEqual(
          counted.tallies
            .map((row) => [row.learner, row.day, row.verbId.replace(ADL, ''), row.activityId, row.delta])
            .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
          (await tallies(tenant)).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
        );
      } finally {
        await dispose();
        rmSync(before, { recursive: true, force: true });
      }
    });
  }
});
