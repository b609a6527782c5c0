/**
 * The reports' pure rules (docs/learning.md, "Reports"): completion rates, assignment
 * compliance, the roll-up of an organisation structure, and the date ranges and intervals of
 * activity over time. No database, no HTTP.
 */

import type { EntryTree } from '../../organisation/index.js';
import type { AssignmentStatus } from '../assignments/assignment-rules.js';

/** Completed (person, activity) pairs and people, of one organisation entry or job. */
export interface CompletionCounts {
  people: number;
  completed: number;
}

/** What a report answers for a group of people: the counts and the rate. */
export interface CompletionFigures extends CompletionCounts {
  /** completed / (people × activities), from 0 to 1; null when there is no pair at all. */
  rate: number | null;
}

/** The completion rate: completed pairs over every (person, activity) pair; null when there are none. */
export function completionRate(completed: number, people: number, activities: number): number | null {
  const pairs = people * activities;
  return pairs === 0 ? null : completed / pairs;
}

export const figures = (counts: CompletionCounts, activities: number): CompletionFigures => ({
  people: counts.people,
  completed: counts.completed,
  rate: completionRate(counts.completed, counts.people, activities),
});

/**
 * Each entry's counts summed over its whole subtree (itself and every entry below it), from the
 * counts of the people placed directly in each: every field of `Counts` is summed (`zero` is the
 * counts of nobody), answered by entry id (`zero` for an id not in the tree). The sums are kept in
 * one array per field (no allocation per entry: 10,000 entries in under a millisecond): in one
 * pass deepest first, each entry added to its parent; or, for data with a cycle (imports refuse
 * them), each entry with counts walked up, marking the entries it passed, so that it is summed
 * into its ancestors once: an entry on a cycle is its own root.
 */
export function rollUp<Counts extends { [K in keyof Counts]: number }>(
  tree: EntryTree<{ id: string; parentId?: string }>,
  direct: ReadonlyMap<string, Counts>,
  zero: Counts,
): (id: string) => Counts {
  const fields = Object.keys(zero) as Array<keyof Counts>;
  const { index, parents, order } = tree;
  const sums = fields.map(() => new Float64Array(parents.length));
  if (order !== undefined) {
    // No cycle: each entry's own counts, then each entry, deepest first, added to its parent.
    for (const [id, counts] of direct) {
      const i = index.get(id);
      if (i !== undefined) fields.forEach((field, f) => (sums[f][i] += counts[field]));
    }
    for (const i of order) {
      const parent = parents[i];
      if (parent !== -1) for (let f = 0; f < fields.length; f++) sums[f][parent] += sums[f][i];
    }
  } else {
    const passed = new Int32Array(parents.length).fill(-1);
    const own = new Float64Array(fields.length);
    for (const [id, counts] of direct) {
      const i = index.get(id);
      if (i === undefined) continue;
      fields.forEach((field, f) => {
        own[f] = counts[field];
      });
      for (let at = i; at !== -1 && passed[at] !== i; at = parents[at]) {
        passed[at] = i;
        for (let f = 0; f < fields.length; f++) sums[f][at] += own[f];
      }
    }
  }
  return (id) => {
    const i = index.get(id);
    if (i === undefined) return { ...zero };
    const counts = { ...zero };
    fields.forEach((field, f) => {
      (counts[field] as number) = sums[f][i];
    });
    return counts;
  };
}

/**
 * The entries a report by entry shows of the tree's (in their order): those at most `depth` levels
 * below the top of the list, then `skip` passed over and at most `limit`; and how many there are
 * before the page is cut.
 */
export function unitPage<Entry extends { id: string; parentId?: string }>(
  tree: EntryTree<Entry>,
  page: { depth?: number; limit: number; skip: number },
): { shown: Entry[]; total: number } {
  const { entries, levels } = tree;
  const depth = page.depth;
  const kept = depth === undefined ? entries : entries.filter((_, i) => levels[i] <= depth);
  return { shown: kept.slice(page.skip, page.skip + page.limit), total: kept.length };
}

// ---------------------------------------------------------------------------------------------
// Assignment compliance

/**
 * The compliance of a (person, assignment activity) pair, one word per assignment status
 * (docs/learning.md, "Status"), in the order a report answers them.
 */
export const COMPLIANCE = ['onTime', 'late', 'overdue', 'inProgress', 'notStarted'] as const;
export type Compliance = (typeof COMPLIANCE)[number];
export type ComplianceCounts = Record<Compliance, number>;

/** The pair's compliance from its status: the assignments' own rule, renamed for a report. */
export const COMPLIANCE_OF_STATUS: Readonly<Record<AssignmentStatus, Compliance>> = {
  completed: 'onTime',
  completedLate: 'late',
  overdue: 'overdue',
  inProgress: 'inProgress',
  assigned: 'notStarted',
};

export const noCompliance = (): ComplianceCounts => ({ onTime: 0, late: 0, overdue: 0, inProgress: 0, notStarted: 0 });

/** What a report answers for a group's pairs: the counts, their total, and onTime / total (null when there is no pair). */
export function complianceFigures(counts: ComplianceCounts): ComplianceCounts & { total: number; complianceRate: number | null } {
  const total = COMPLIANCE.reduce((sum, word) => sum + counts[word], 0);
  return { ...counts, total, complianceRate: total === 0 ? null : counts.onTime / total };
}

// ---------------------------------------------------------------------------------------------
// Activity over time

/** The longest range a report of activity over time covers: `to` at most this many days after `from`. */
export const MAX_RANGE_DAYS = 366;

export type Interval = 'day' | 'week';

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The instant (ms, UTC midnight) of a `YYYY-MM-DD` day, or undefined when it is no real day (2026-02-30, year 0000). */
export function dayInstant(text: string): number | undefined {
  const match = DATE.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  if (year < 1 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.getTime();
}

const dayText = (instant: number) => new Date(instant).toISOString().slice(0, 10);

/**
 * The last day a report covers, 9999-12-31: a day written YYYY-MM-DD has four digits of year, and
 * so does every day a report answers (and PostgreSQL's date text). The first is 0001-01-01, a
 * Monday, so weeks never widen a range before it; after the last they can.
 */
const LAST_DAY = Date.UTC(9999, 11, 31);

/** The Monday (ms) of the ISO week of a day (ms, UTC midnight). */
const mondayOf = (instant: number) => instant - ((new Date(instant).getUTCDay() + 6) % 7) * DAY_MS;

/** The Monday (`YYYY-MM-DD`) of the ISO week of a real `YYYY-MM-DD` day. */
export const weekStartOf = (day: string): string => dayText(mondayOf(dayInstant(day) as number));

export interface DateRange {
  /** The first day counted, `YYYY-MM-DD`: `from`, or with weeks the Monday of its week. */
  first: string;
  /** The last day counted: `to`, or with weeks the Sunday of its week. */
  last: string;
  /** Each interval's first and last day, in order. */
  intervals: Array<{ start: string; end: string }>;
}

/** Why a range is refused, for the 400: the parameter and the reason. */
export type RangeProblem = { parameter: 'from' | 'to'; message: string };

/**
 * The days and intervals `from`…`to` (both counted) covers: with `week`, whole ISO weeks (Monday
 * to Sunday), from the week holding `from` to the week holding `to`. Refused: a day that is not
 * one, `to` before `from`, `to` more than MAX_RANGE_DAYS days after `from`, or, with weeks, a `to`
 * whose week ends after 9999-12-31 (LAST_DAY).
 */
export function dateRange(from: string, to: string, interval: Interval): DateRange | RangeProblem {
  const start = dayInstant(from);
  if (start === undefined)
    return { parameter: 'from', message: `from must be a real day written YYYY-MM-DD (got ${JSON.stringify(from)})` };
  const end = dayInstant(to);
  if (end === undefined) return { parameter: 'to', message: `to must be a real day written YYYY-MM-DD (got ${JSON.stringify(to)})` };
  if (end < start) return { parameter: 'to', message: `to (${to}) is before from (${from})` };
  if ((end - start) / DAY_MS > MAX_RANGE_DAYS) {
    return { parameter: 'to', message: `to (${to}) is more than ${MAX_RANGE_DAYS} days after from (${from})` };
  }
  const first = interval === 'week' ? mondayOf(start) : start;
  const last = interval === 'week' ? mondayOf(end) + 6 * DAY_MS : end;
  if (last > LAST_DAY) {
    const lastSunday = mondayOf(LAST_DAY) - DAY_MS;
    return {
      parameter: 'to',
      message: `with interval=week the range widens to whole weeks, Monday to Sunday, and the week of to (${to}) ends after 9999-12-31, the last day a report covers: with weeks, to is ${dayText(lastSunday)} at the latest (or ask for interval=day)`,
    };
  }
  const step = interval === 'week' ? 7 * DAY_MS : DAY_MS;
  const intervals: DateRange['intervals'] = [];
  for (let at = first; at <= last; at += step) intervals.push({ start: dayText(at), end: dayText(at + step - DAY_MS) });
  return { first: dayText(first), last: dayText(last), intervals };
}

export const isRangeProblem = (value: DateRange | RangeProblem): value is RangeProblem => 'parameter' in value;

/** One interval of activity over time as answered. */
export interface IntervalFigures {
  start: string;
  end: string;
  statements: number;
  activeLearners: number;
  /** Statements per verb id: every verb of the whole range, 0 where it had none in this interval. */
  verbs: Record<string, number>;
}

/**
 * The intervals of a range filled from counted rows: statements per (interval start, verb) and
 * active learners per interval start. Every interval of the range is answered, with zeros where
 * nothing was counted, and every interval names every verb the range saw (in code-point order),
 * so that a chart or a CSV has the same series throughout.
 */
export function fillIntervals(
  range: DateRange,
  statements: ReadonlyArray<{ start: string; verbId: string; count: number }>,
  learners: ReadonlyArray<{ start: string; count: number }>,
): { verbs: string[]; intervals: IntervalFigures[] } {
  const verbs = [...new Set(statements.filter((row) => row.count !== 0).map((row) => row.verbId))].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  const byStart = new Map(
    range.intervals.map(({ start, end }) => [
      start,
      { start, end, statements: 0, activeLearners: 0, verbs: Object.fromEntries(verbs.map((verb) => [verb, 0])) } as IntervalFigures,
    ]),
  );
  for (const row of statements) {
    const interval = byStart.get(row.start);
    if (!interval || row.count === 0) continue;
    interval.verbs[row.verbId] += row.count;
    interval.statements += row.count;
  }
  for (const row of learners) {
    const interval = byStart.get(row.start);
    if (interval) interval.activeLearners += row.count;
  }
  return { verbs, intervals: [...byStart.values()] };
}
