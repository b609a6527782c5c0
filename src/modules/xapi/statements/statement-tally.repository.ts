import { createHash } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { learnerRowKey, type LearnerDelta, type TallyDelta } from './statement-tally-rules.js';

/** How many rows each total is spread over (migration 0028): a write adds to one, a read sums them. */
export const TOTAL_SHARDS = 16;

/** The tally row's key of a verb and an activity: md5 of both, as a uuid (migration 0028 says why). */
export function tallyKey(verbId: string, activityId: string): string {
  const hex = createHash('md5').update(`${verbId}\n${activityId}`, 'utf8').digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Adds the changes to the tally rows and to the learners' day rows, in one statement, each set in
 * the order given (sorted by tallyDeltas, so concurrent writes lock rows in one order), and
 * answers each changed day row's count afterwards, by learnerRowKey.
 */
export async function addTallies(
  tx: SqlClient,
  tenantId: string,
  tallies: readonly TallyDelta[],
  learners: readonly LearnerDelta[],
): Promise<Map<string, number>> {
  const { rows } = await tx.query<{ period: string; period_start: string; actor_key: string; statements: number }>(
    `WITH tallied AS (
       INSERT INTO xapi_statement_tallies AS t (tenant_id, actor_key, day, tally_key, verb_id, activity_id, statements)
       SELECT $1, r.actor_key, r.day, r.tally_key, r.verb_id, r.activity_id, r.delta
         FROM unnest($2::text[], $3::date[], $4::uuid[], $5::text[], $6::text[], $7::int[]) WITH ORDINALITY
              AS r (actor_key, day, tally_key, verb_id, activity_id, delta, ord)
        ORDER BY r.ord
       ON CONFLICT (tenant_id, actor_key, day, tally_key) DO UPDATE SET statements = t.statements + EXCLUDED.statements
     )
     INSERT INTO xapi_statement_learners AS l (tenant_id, period, period_start, actor_key, statements)
     SELECT $1, r.period, r.period_start, r.actor_key, r.delta
       FROM unnest($8::"char"[], $9::date[], $10::text[], $11::int[]) WITH ORDINALITY AS r (period, period_start, actor_key, delta, ord)
      ORDER BY r.ord
     ON CONFLICT (tenant_id, period, period_start, actor_key) DO UPDATE SET statements = l.statements + EXCLUDED.statements
     RETURNING l.period::text AS period, l.period_start::text AS period_start, l.actor_key, l.statements`,
    [
      tenantId,
      tallies.map((row) => row.learner),
      tallies.map((row) => row.day),
      tallies.map((row) => tallyKey(row.verbId, row.activityId)),
      tallies.map((row) => row.verbId),
      tallies.map((row) => row.activityId),
      tallies.map((row) => row.delta),
      learners.map((row) => row.period),
      learners.map((row) => row.start),
      learners.map((row) => row.learner),
      learners.map((row) => row.delta),
    ],
  );
  return new Map(rows.map((row) => [learnerRowKey(row.period, row.period_start, row.actor_key), Number(row.statements)]));
}

/** A change of one of the tenant's totals (migration 0028: `s`, `d`, `w`). */
export interface TotalDelta {
  kind: 's' | 'd' | 'w';
  start: string;
  verbId: string;
  delta: number;
}

/** Adds the changes to the tenant's totals, in the shard given, in (kind, start, verb) order. */
export async function addTotals(tx: SqlClient, tenantId: string, totals: readonly TotalDelta[], shard: number): Promise<void> {
  if (totals.length === 0) return;
  const sorted = [...totals].sort((a, b) =>
    a.kind !== b.kind ? (a.kind < b.kind ? -1 : 1) : a.start !== b.start ? (a.start < b.start ? -1 : 1) : a.verbId < b.verbId ? -1 : 1,
  );
  await tx.query(
    `INSERT INTO xapi_statement_totals AS t (tenant_id, kind, period_start, verb_id, shard, total)
     SELECT $1, r.kind, r.period_start, r.verb_id, $6, r.delta
       FROM unnest($2::"char"[], $3::date[], $4::text[], $5::bigint[]) WITH ORDINALITY AS r (kind, period_start, verb_id, delta, ord)
      ORDER BY r.ord
     ON CONFLICT (tenant_id, kind, period_start, verb_id, shard) DO UPDATE SET total = t.total + EXCLUDED.total`,
    [
      tenantId,
      sorted.map((row) => row.kind),
      sorted.map((row) => row.start),
      sorted.map((row) => row.verbId),
      sorted.map((row) => row.delta),
      shard,
    ],
  );
}

/** One summed total: its kind, the day or week it starts, its verb ('' for learners) and its value. */
export interface TotalRow {
  kind: 's' | 'd' | 'w';
  start: string;
  verbId: string;
  total: number;
}

/**
 * The tenant's totals (shards summed) of statements per verb and active learners per day from
 * `from` to `to`, or with `week`, active learners per ISO week whose Monday is in that range.
 */
export async function findTotals(sql: SqlClient, tenantId: string, from: string, to: string, week: boolean): Promise<TotalRow[]> {
  const { rows } = await sql.query<{ kind: string; period_start: string; verb_id: string; total: string | number }>(
    `SELECT kind::text AS kind, period_start::text AS period_start, verb_id, sum(total) AS total
       FROM xapi_statement_totals
      WHERE tenant_id = $1 AND kind = ANY($4::"char"[]) AND period_start BETWEEN $2::date AND $3::date
      GROUP BY kind, period_start, verb_id`,
    [tenantId, from, to, week ? ['s', 'w'] : ['s', 'd']],
  );
  return rows.map((row) => ({
    kind: row.kind as TotalRow['kind'],
    start: row.period_start,
    verbId: row.verb_id,
    total: Number(row.total),
  }));
}

/** Deletes a tenant's tallies (the tables have no foreign key to tenants: migration 0028). */
export async function deleteTenantTallies(tx: SqlClient, tenantId: string): Promise<void> {
  await tx.query('DELETE FROM xapi_statement_tallies WHERE tenant_id = $1', [tenantId]);
  await tx.query('DELETE FROM xapi_statement_learners WHERE tenant_id = $1', [tenantId]);
  await tx.query('DELETE FROM xapi_statement_totals WHERE tenant_id = $1', [tenantId]);
}

/** Adds the changes to learner rows (the week rows), in the order given, and answers their counts afterwards. */
export async function addLearners(tx: SqlClient, tenantId: string, learners: readonly LearnerDelta[]): Promise<Map<string, number>> {
  const { rows } = await tx.query<{ period: string; period_start: string; actor_key: string; statements: number }>(
    `INSERT INTO xapi_statement_learners AS l (tenant_id, period, period_start, actor_key, statements)
     SELECT $1, r.period, r.period_start, r.actor_key, r.delta
       FROM unnest($2::"char"[], $3::date[], $4::text[], $5::int[]) WITH ORDINALITY AS r (period, period_start, actor_key, delta, ord)
      ORDER BY r.ord
     ON CONFLICT (tenant_id, period, period_start, actor_key) DO UPDATE SET statements = l.statements + EXCLUDED.statements
     RETURNING l.period::text AS period, l.period_start::text AS period_start, l.actor_key, l.statements`,
    [
      tenantId,
      learners.map((row) => row.period),
      learners.map((row) => row.start),
      learners.map((row) => row.learner),
      learners.map((row) => row.delta),
    ],
  );
  return new Map(rows.map((row) => [learnerRowKey(row.period, row.period_start, row.actor_key), Number(row.statements)]));
}
