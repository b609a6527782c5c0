import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/database/migrate.js';
import { foldFacts, statementCompletion } from '../../src/modules/completions/completion-rules.js';
import { BACKENDS } from '../support/backends.js';

type Json = Record<string, unknown>;

const ADL = 'http://adlnet.gov/expapi/verbs/';
const STORED = '2026-03-01T00:00:00.000Z';

/** A record stored before migration 0024, by activity, with its statements and whether each is voided. */
const RECORDS: Array<{ activity: string; statements: Array<{ verb: string; timestamp?: string; result?: Json; voided?: boolean }> }> = [
  {
    activity: 'http://example.com/completed-then-passed',
    statements: [
      { verb: `${ADL}launched`, timestamp: '2026-01-01T08:00:00Z' },
      { verb: `${ADL}passed`, timestamp: '2026-01-01T11:00:00Z' },
      { verb: `${ADL}completed`, timestamp: '2026-01-01T10:30:00+01:00' },
      { verb: `${ADL}failed`, timestamp: '2026-01-01T09:00:00Z' },
      // Voided (a record keeps none once refolded; the migration skips one all the same).
      { verb: `${ADL}passed`, timestamp: '2026-01-01T07:00:00Z', voided: true },
    ],
  },
  {
    activity: 'http://example.com/in-progress',
    statements: [
      { verb: `${ADL}launched`, timestamp: '2026-01-01T08:00:00Z' },
      { verb: `${ADL}progressed`, timestamp: '2026-01-01T08:10:00Z', result: { completion: false } },
    ],
  },
  {
    // Completed and failed: completes, does not pass. No offset: UTC, whatever the session's time zone.
    activity: 'http://example.com/completed-failed',
    statements: [
      { verb: 'http://example.com/verbs/answered', timestamp: '2026-01-01T08:00:00', result: { completion: true, success: false } },
    ],
  },
  {
    // result.success under any verb; a comma before a fraction the fold stops at milliseconds.
    activity: 'http://example.com/success',
    statements: [
      { verb: 'http://example.com/verbs/answered', timestamp: '2026-01-01T07:59:59,9999999Z', result: { success: true } },
      { verb: `${ADL}completed`, timestamp: '2026-01-01T07:30:00.000-03:00', result: { completion: true } },
    ],
  },
  {
    // No timestamp: `stored`.
    activity: 'http://example.com/no-timestamp',
    statements: [{ verb: `${ADL}completed` }],
  },
];

const EXPECTED: Record<string, [string | null, string | null]> = {
  'http://example.com/completed-then-passed': ['2026-01-01T09:30:00.000Z', '2026-01-01T11:00:00.000Z'],
  'http://example.com/in-progress': [null, null],
  'http://example.com/completed-failed': ['2026-01-01T08:00:00.000Z', null],
  'http://example.com/success': ['2026-01-01T07:59:59.999Z', '2026-01-01T07:59:59.999Z'],
  'http://example.com/no-timestamp': [STORED, null],
};

describe('migration 0024 dates the completion records stored before it: completed_at and passed_at from their statements', () => {
  for (const backend of BACKENDS) {
    it(`[${backend.name}] the earliest completing and passing statements not voided, read as the fold reads them`, async () => {
      const { db, dispose } = await backend.open();
      const before = mkdtempSync(join(tmpdir(), 'learnbase-migrations-'));
      try {
        for (const name of readdirSync(MIGRATIONS_DIR).filter((file) => file < '0024'))
          copyFileSync(join(MIGRATIONS_DIR, name), join(before, name));
        await migrate(db, before);
        const tenant = randomUUID();
        const other = randomUUID();
        await db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'migrated'), ($2, 'other')`, [tenant, other]);
        const actor = { mbox: 'mailto:ada@example.com' };
        const stored = new Map<string, Json[]>();
        for (const { activity, statements } of RECORDS) {
          const made = statements.map(({ verb, timestamp, result }) => ({
            id: randomUUID(),
            actor,
            verb: { id: verb },
            object: { id: activity },
            ...(timestamp === undefined ? {} : { timestamp }),
            ...(result === undefined ? {} : { result }),
            stored: STORED,
          }));
          stored.set(
            activity,
            made.filter((_, i) => !statements[i].voided),
          );
          await db.query(
            `INSERT INTO xapi_statements (tenant_id, id, statement, stored, verb_id, voiding, voided)
             SELECT $1, s.id, s.statement, $2, s.statement->'verb'->>'id', false, s.voided
               FROM jsonb_to_recordset($3::jsonb) AS s(id uuid, statement jsonb, voided boolean)`,
            [tenant, STORED, JSON.stringify(made.map((statement, i) => ({ id: statement.id, statement, voided: !!statements[i].voided })))],
          );
          // The same record, with the same statement ids, in another tenant without its statements: nothing to date it by.
          for (const id of [tenant, other]) {
            await db.query(
              `INSERT INTO completion_records (tenant_id, agent_key, activity_id, registration, actor, status, first_at, last_at)
               VALUES ($1, 'mbox|mailto:ada@example.com', $2, '', $3, 'in-progress', $4, $4)`,
              [id, activity, JSON.stringify(actor), STORED],
            );
            await db.query(
              `INSERT INTO completion_record_statements (tenant_id, agent_key, activity_id, registration, statement_id)
               SELECT $1, 'mbox|mailto:ada@example.com', $2, '', unnest($3::text[])`,
              [id, activity, made.map((statement) => statement.id)],
            );
          }
        }

        // A session in another time zone: a timestamp without an offset is still UTC.
        await db.transaction(async (tx) => {
          await tx.script(`SET LOCAL TimeZone = 'America/New_York'`);
          await migrate(tx);
        });

        const { rows } = await db.query<{ tenant_id: string; activity_id: string; completed_at: Date | null; passed_at: Date | null }>(
          `SELECT tenant_id, activity_id, completed_at, passed_at FROM completion_records WHERE tenant_id IN ($1, $2)`,
          [tenant, other],
        );
        const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());
        const dated = (id: string) =>
          Object.fromEntries(
            rows.filter((row) => row.tenant_id === id).map((row) => [row.activity_id, [iso(row.completed_at), iso(row.passed_at)]]),
          );
        assert.deepEqual(dated(tenant), EXPECTED);
        assert.deepEqual(dated(other), Object.fromEntries(Object.keys(EXPECTED).map((activity) => [activity, [null, null]])));

        // The same as the fold of the statements left gives.
        const key = { agentKey: 'mbox|mailto:ada@example.com', registration: '', actor };
        for (const [activity, statements] of stored) {
          const facts = statements.flatMap((statement) => statementCompletion(statement)?.fact ?? []);
          const record = foldFacts({ ...key, activityId: activity }, facts);
          assert.deepEqual([record?.completedAt ?? null, record?.passedAt ?? null], EXPECTED[activity], activity);
        }
      } finally {
        rmSync(before, { recursive: true, force: true });
        await dispose();
      }
    });
  }
});
