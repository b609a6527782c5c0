import { parseAgent } from '../../../kernel/agent.js';
import type { JsonObject } from '../../../kernel/formats.js';
import { parseTimestamp } from '../../../kernel/timestamp.js';

/**
 * What a stored statement adds to the tallies reports of activity over time read
 * (statement-tally.service.ts, docs/learning.md, "Reports"), and how a batch's
 * statements, stored and voided, change them. Pure: no database.
 *
 * A statement is counted on the UTC day of its `timestamp` (the LRS sets it to `stored` when the
 * statement had none), under its verb and the activity that is its object ('' when its object is
 * an agent, a group, a StatementRef or a SubStatement), once for each of its learners: the agent
 * that is its actor, or each identified member of a group that is its actor (a group's own
 * identifier is not a learner). A statement with no learner (an anonymous group without
 * identified members) is tallied under the learner key ''.
 */

/** How one statement is counted. */
export interface StatementTally {
  /** `YYYY-MM-DD`, the UTC day of the statement's timestamp. */
  day: string;
  /** `YYYY-MM-DD`, the Monday that starts the day's ISO week. */
  week: string;
  verbId: string;
  /** The object's id when the object is an Activity, else ''. */
  activityId: string;
  /** The agent keys of its learners (kernel/agent.ts), each once; empty for none. */
  learners: string[];
}

const IFIS = ['mbox', 'mbox_sha1sum', 'openid', 'account'];
const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const hasIfi = (agent: JsonObject) => IFIS.some((key) => agent[key] !== undefined);

/** The Monday (`YYYY-MM-DD`) starting the ISO 8601 week of a `YYYY-MM-DD` day. */
export function isoWeekStart(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  // getUTCDay: Sunday 0 … Saturday 6; an ISO week starts on Monday.
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  return date.toISOString().slice(0, 10);
}

function learnersOf(actor: JsonObject): string[] {
  if (actor.objectType !== 'Group') return hasIfi(actor) ? [parseAgent({ ...actor, objectType: undefined }).key] : [];
  const members = Array.isArray(actor.member) ? actor.member : [];
  const keys = members.filter((member): member is JsonObject => isObject(member) && hasIfi(member));
  return [...new Set(keys.map((member) => parseAgent({ ...member, objectType: undefined }).key))];
}

/** How a stored statement (validated and completed: it has its timestamp) is counted. */
export function tallyOf(statement: JsonObject): StatementTally {
  const at = parseTimestamp(statement.timestamp) ?? parseTimestamp(statement.stored);
  if (at === undefined) throw new Error(`statement ${String(statement.id)} has no readable timestamp`);
  const day = at.toISOString().slice(0, 10);
  const object = statement.object as JsonObject;
  const isActivity = (object.objectType === undefined || object.objectType === 'Activity') && typeof object.id === 'string';
  return {
    day,
    week: isoWeekStart(day),
    verbId: (statement.verb as JsonObject).id as string,
    activityId: isActivity ? (object.id as string) : '',
    learners: learnersOf(statement.actor as JsonObject),
  };
}

/** A change of one tally row: statements of a learner on a day, by verb and activity. */
export interface TallyDelta {
  learner: string;
  day: string;
  verbId: string;
  activityId: string;
  delta: number;
}

/**
 * A change of a learner row: of how many statements a learner has on a day (`d`), or of how many
 * days a learner is active in an ISO week (`w`, `start` its Monday). A learner is active in the
 * period while the row is above 0.
 */
export interface LearnerDelta {
  period: 'd' | 'w';
  start: string;
  learner: string;
  delta: number;
}

/** A learner that became active (+1) or inactive (-1) in a period. */
export interface Activation {
  period: 'd' | 'w';
  start: string;
  learner: string;
  delta: 1 | -1;
}

/** A change of the tenant's statements of a day and verb, each statement once whatever its learners. */
export interface StatementDelta {
  day: string;
  verbId: string;
  delta: number;
}

export interface TallyDeltas {
  tallies: TallyDelta[];
  /** The day rows' changes (statements per learner and day). */
  days: LearnerDelta[];
  statements: StatementDelta[];
}

const SEPARATOR = '\u0000';

function add<T extends { delta: number }>(into: Map<string, T>, key: string, row: Omit<T, 'delta'>, delta: number): void {
  const found = into.get(key);
  if (found) found.delta += delta;
  else into.set(key, { ...row, delta } as T);
}

/**
 * What the statements `added` (stored, not voiding) and `removed` (just voided) change, summed per
 * row, rows that sum to nothing left out, each list sorted by its key: concurrent writers then
 * take their row locks in one order and cannot deadlock. A statement both added and removed by
 * one write (voided in its own batch) changes nothing.
 */
export function tallyDeltas(added: readonly JsonObject[], removed: readonly JsonObject[]): TallyDeltas {
  const tallies = new Map<string, TallyDelta>();
  const days = new Map<string, LearnerDelta>();
  const statements = new Map<string, StatementDelta>();
  const count = (statement: JsonObject, delta: number) => {
    const tally = tallyOf(statement);
    add(statements, [tally.day, tally.verbId].join(SEPARATOR), { day: tally.day, verbId: tally.verbId }, delta);
    for (const learner of tally.learners.length === 0 ? [''] : tally.learners) {
      const row = { learner, day: tally.day, verbId: tally.verbId, activityId: tally.activityId };
      add(tallies, [learner, tally.day, tally.verbId, tally.activityId].join(SEPARATOR), row, delta);
      if (learner === '') continue;
      add(days, learnerRowKey('d', tally.day, learner), { period: 'd', start: tally.day, learner }, delta);
    }
  };
  for (const statement of added) count(statement, 1);
  for (const statement of removed) count(statement, -1);
  return { tallies: sorted(tallies), days: sorted(days), statements: sorted(statements) };
}

/** The rows that changed, sorted by their keys (the lock order), those that sum to nothing left out. */
function sorted<T extends { delta: number }>(rows: Map<string, T>): T[] {
  return [...rows]
    .filter(([, row]) => row.delta !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, row]) => row);
}

/**
 * The learners that became active or inactive, from the learner rows' changes and their counts
 * once changed: active when a positive change leaves exactly that much (the row was at 0),
 * inactive when a negative one leaves 0.
 */
export function activations(changes: readonly LearnerDelta[], after: ReadonlyMap<string, number>): Activation[] {
  return changes.flatMap((change): Activation[] => {
    const now = after.get(learnerRowKey(change.period, change.start, change.learner));
    if (change.delta > 0 && now === change.delta) return [{ ...change, delta: 1 }];
    if (change.delta < 0 && now === 0) return [{ ...change, delta: -1 }];
    return [];
  });
}

/**
 * The week rows' changes: a learner's active days in a week change only when the learner becomes
 * active or inactive on one of its days, so most writes (a learner's second statement of the day
 * and after) leave the week rows alone.
 */
export function weekDeltas(days: readonly Activation[]): LearnerDelta[] {
  const weeks = new Map<string, LearnerDelta>();
  for (const day of days) {
    const week = isoWeekStart(day.start);
    add(weeks, learnerRowKey('w', week, day.learner), { period: 'w', start: week, learner: day.learner }, day.delta);
  }
  return sorted(weeks);
}

/** The changes of the tenant's active learners per period, from the learners' activations. */
export function activeLearnerTotals(changes: readonly Activation[]): Array<{ period: 'd' | 'w'; start: string; delta: number }> {
  const totals = new Map<string, { period: 'd' | 'w'; start: string; delta: number }>();
  for (const change of changes) {
    add(totals, `${change.period}${SEPARATOR}${change.start}`, { period: change.period, start: change.start }, change.delta);
  }
  return [...totals.values()].filter((total) => total.delta !== 0);
}

/** A learner row's key: `activations` reads the rows' counts by it. */
export const learnerRowKey = (period: string, start: string, learner: string) => [period, start, learner].join(SEPARATOR);
