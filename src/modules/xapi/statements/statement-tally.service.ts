import { randomInt } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { JsonObject } from '../../../kernel/formats.js';
import { activations, activeLearnerTotals, tallyDeltas, weekDeltas } from './statement-tally-rules.js';
import {
  addLearners,
  addTallies,
  addTotals,
  findTotals,
  TOTAL_SHARDS,
  type TotalDelta,
  type TotalRow,
} from './statement-tally.repository.js';
import { findStatements, type NewStatement } from './statement.repository.js';

export type { TotalRow };

/**
 * Brings the tallies of activity over time (migration 0028) up to date with a statement write,
 * in its transaction, after voiding was applied: the statements inserted (voiding statements
 * aside) count, the statements the write voided (`voided`, markVoided's answer: in this batch or
 * stored before) count no more. Three statements at most, whatever the batch's size (the week
 * rows only when a learner became active or inactive on a day); none when nothing changes.
 */
export async function recordStatementTallies(
  tx: SqlClient,
  tenantId: string,
  inserted: readonly NewStatement[],
  voided: ReadonlySet<string>,
): Promise<void> {
  const added = inserted.filter((item) => !item.index.voiding);
  if (added.length === 0 && voided.size === 0) return;
  const inBatch = new Map(added.map((item) => [item.id.toLowerCase(), item.statement]));
  const storedBefore = [...voided].filter((id) => !inBatch.has(id));
  const removed: JsonObject[] = [
    ...[...voided].flatMap((id) => {
      const statement = inBatch.get(id);
      return statement === undefined ? [] : [statement];
    }),
    ...(await findStatements(tx, tenantId, storedBefore)).filter((row) => !row.voiding).map((row) => row.statement),
  ];
  const deltas = tallyDeltas(
    added.map((item) => item.statement),
    removed,
  );
  if (deltas.tallies.length === 0) return;
  const days = activations(deltas.days, await addTallies(tx, tenantId, deltas.tallies, deltas.days));
  const weekChanges = weekDeltas(days);
  const weeks = weekChanges.length === 0 ? [] : activations(weekChanges, await addLearners(tx, tenantId, weekChanges));
  const totals: TotalDelta[] = [
    ...deltas.statements.map(({ day, verbId, delta }) => ({ kind: 's' as const, start: day, verbId, delta })),
    ...activeLearnerTotals([...days, ...weeks]).map(({ period, start, delta }) => ({ kind: period, start, verbId: '', delta })),
  ];
  await addTotals(tx, tenantId, totals, randomInt(TOTAL_SHARDS));
}

/**
 * SQL another module embeds in one statement (reports): the tenant's tally rows of days
 * `from`…`to` (placeholders of `YYYY-MM-DD` values) that count statements, with `activity` (a
 * placeholder) only those whose object is that activity. Columns: `actor_key` (the learner's
 * agent key, '' for a statement without one), `day` (date, UTC), `verb_id`, `activity_id` ('' for
 * an object that is not an activity), `statements` (integer, above 0).
 */
export function statementTalliesSql(tenantParameter: string, range: { from: string; to: string; activity?: string }): string {
  const activity = range.activity === undefined ? '' : ` AND t.activity_id = ${range.activity}`;
  return `SELECT t.actor_key, t.day, t.verb_id, t.activity_id, t.statements FROM xapi_statement_tallies t
           WHERE t.tenant_id = ${tenantParameter} AND t.day BETWEEN ${range.from}::date AND ${range.to}::date
             AND t.statements > 0${activity}`;
}

/**
 * The tenant's totals over days `from`…`to` (`YYYY-MM-DD`): statements per day and verb (`s`),
 * and active learners per day (`d`) or, with `week`, per ISO week starting on a Monday in the
 * range (`w`). Every statement and every actor counts, people or not.
 */
export function statementTotals(sql: SqlClient, tenantId: string, from: string, to: string, week: boolean): Promise<TotalRow[]> {
  return findTotals(sql, tenantId, from, to, week);
}
