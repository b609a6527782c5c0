import type { SqlValues } from '../../../platform/database/sql-filters.js';
import { PER_ROW_PROBE, type SqlClient } from '../../../platform/database/sql-client.js';

import type { AssignmentStatus } from '../assignments/assignment-rules.js';
import { currentMemberStatusesSql } from '../assignments/assignment-status.repository.js';
import type { CompletionCounts } from './report-rules.js';

/**
 * The reports' SQL: each report is one statement over the fragments the owner modules export
 * (actors: the people; activities: the registered activities; completions: the records; xapi: the
 * statement tallies), their values bound in `parameters` ($1 the tenant id). The fragments arrive
 * here as text with placeholders; nothing a client sent is ever part of the text.
 */

/** The report's people (peopleSql's columns) and activity set (`id`, `requires_success`, `name`). */
export interface CompletionSources {
  people: string;
  /** Up to how many people their rows are read person by person (FEW_PEOPLE unless a test says otherwise). */
  fewPeople: number;
  activities: string;
  /** completionRecordsSql's text. */
  records: string;
}

/**
 * Up to how many people a report reads their rows person by person; above, it reads the tenant's
 * rows whole and joins them to the people. A probe per person costs a few index lookups; the
 * whole tenant's rows cost one pass whatever the people: for a thousand people the probes are a
 * hundred times cheaper, for a hundred thousand ten times dearer.
 */
export const FEW_PEOPLE = 10_000;

/** The CTE `selection`: whether the people (the CTE `people`) are at most `fewPeople`, to be probed one by one. */
const selection = (parameters: SqlValues, fewPeople: number) =>
  `selection AS (SELECT count(*) <= ${parameters.bind(fewPeople)}::bigint AS few FROM people)`;

/**
 * The CTE `name`: the rows of `source` (a fragment with an agent key column `key`) of the people,
 * read the cheaper way for how many they turn out to be. The planner cannot choose, because it
 * cannot know: it prices an organisation or job criterion at half the actors, and would read a
 * million rows for a thousand people. So both ways are in the plan, each under a one-time filter
 * on the count (`selection`), and only one runs: person by person (PER_ROW_PROBE keeps each probe
 * from being turned back into a join), or everything joined. `joinedLater`: the caller joins what
 * it makes of the rows to the people itself, after shrinking them (counts per person), so the
 * second way reads the rows whole and leaves the people to that join: for a whole tenant, a join
 * of 100,000 counts instead of 500,000 records (a completion report 795 to 617 ms).
 */
function rowsOfPeople(name: string, source: string, key: string, options: { joinedLater?: boolean } = {}): string {
  return `${name} AS (
       SELECT s.* FROM people p CROSS JOIN LATERAL (SELECT * FROM (${source}) x WHERE x.${key} = p.agent_key ${PER_ROW_PROBE}) s
        WHERE (SELECT few FROM selection)
       UNION ALL
       SELECT s.* FROM (${source}) s ${options.joinedLater ? '' : `JOIN people p ON p.agent_key = s.${key}`}
        WHERE NOT (SELECT few FROM selection)
     )`;
}

/**
 * The memory each sort or hash of a report may take before it spills to disk. The default 4 MB
 * made a report over 100,000 people and 400,000 completion records write and read back 80 MB of
 * temporary files; at 32 MB the same report stays in memory.
 */
const REPORT_WORK_MEM = '32MB';

/**
 * Runs a report's one statement with JIT compilation off and sorts priced out. A report's
 * estimated cost is large (the planner prices a criterion on people at half the actors, so every
 * per-person probe at tens of thousands of rows), which makes PostgreSQL compile the plan to
 * machine code: measured, 1.1 s of compiling for a 160 ms report of a thousand people; what a
 * report reads is bounded by the rows it counts, so JIT never pays here. And grouping by sorting
 * sorts agent keys in the database's collation (strcoll, slow): hashing them instead took a
 * report of the whole tenant from 680 to 530 ms.
 */
function report<Row>(sql: SqlClient, text: string, values: readonly unknown[]): Promise<Row[]> {
  return sql.transaction(async (tx) => {
    await tx.script(`SET LOCAL jit = off; SET LOCAL enable_sort = off; SET LOCAL work_mem = '${REPORT_WORK_MEM}'`);
    return (await tx.query<Row>(text, values)).rows;
  });
}

/**
 * A record's evidence: `passed_at` for an activity that requires success, else `completed_at`
 * (over records `r` joined to activities `a`).
 */
const EVIDENCE = 'CASE WHEN a.requires_success THEN r.passed_at ELSE r.completed_at END';

/**
 * How many activities the set holds, and per value of `group` (a column of the people: their
 * position or their job) how many people and how many completed (person, activity) pairs. A
 * pair counts once whatever the person's registrations. The people are materialised once (the
 * criteria run once), their records read as rowsOfPeople says (only the columns counted; for many
 * people, the tenant's records whole, the people joined to the counts per person). Past the last
 * group, one row keeps the activities' count.
 */
export async function countCompletions(
  sql: SqlClient,
  parameters: SqlValues,
  sources: CompletionSources,
  group: 'position_id' | 'job_id',
): Promise<{ activities: number; groups: Map<string, CompletionCounts> }> {
  const rows = await report<{ activities: string | number; group_id: string | null; people: string | number; completed: string | number }>(
    sql,
    `WITH people AS MATERIALIZED (${sources.people}), ${selection(parameters, sources.fewPeople)},
     activities AS NOT MATERIALIZED (${sources.activities}),
     ${rowsOfPeople('records', `SELECT x.agent_key, x.activity_id, x.completed_at, x.passed_at FROM (${sources.records}) x`, 'agent_key', { joinedLater: true })},
     pairs AS (
       SELECT r.agent_key FROM records r
         JOIN activities a ON a.id = r.activity_id
        WHERE ${EVIDENCE} IS NOT NULL
        GROUP BY r.agent_key, r.activity_id
     ),
     done AS (SELECT agent_key, count(*) AS completed FROM pairs GROUP BY agent_key),
     grouped AS (
       SELECT p.${group} AS group_id, count(*) AS people, COALESCE(sum(d.completed), 0) AS completed
         FROM people p LEFT JOIN done d ON d.agent_key = p.agent_key
        WHERE p.${group} IS NOT NULL
        GROUP BY p.${group}
     )
     SELECT n.activities, g.group_id, g.people, g.completed
       FROM (SELECT count(*) AS activities FROM activities) n LEFT JOIN grouped g ON true`,
    parameters.values,
  );
  const groups = new Map<string, CompletionCounts>();
  for (const row of rows) {
    if (row.group_id !== null) groups.set(row.group_id, { people: Number(row.people), completed: Number(row.completed) });
  }
  return { activities: rows.length > 0 ? Number(rows[0].activities) : 0, groups };
}

export interface ActivityFiguresRow {
  id: string;
  registered: boolean;
  requiresSuccess: boolean;
  name: Record<string, string> | null;
  attempted: number;
  completed: number;
  passed: number;
  averageScore: number | null;
  scores: number;
  medianSecondsToComplete: number | null;
}

/**
 * Per activity of the set (in id order), over the selected people: how many attempted it (any
 * record), completed it (an evidence) and passed it, each person once whatever their
 * registrations; and over their records, the mean `score.scaled` (of the records that have one)
 * and the median of the seconds from a record's first statement to its evidence (of the records
 * that have one). And how many people the selection holds (one row keeps it when the set is
 * empty). The records are read once (`rec`, used twice).
 */
export async function activityFigures(
  sql: SqlClient,
  parameters: SqlValues,
  /** `activities` has a column `registered` besides the others. */
  sources: CompletionSources,
): Promise<{ people: number; activities: ActivityFiguresRow[] }> {
  const rows = await report<{
    people: string | number;
    id: string | null;
    registered: boolean;
    requires_success: boolean;
    name: Record<string, string> | null;
    attempted: string | number | null;
    completed: string | number | null;
    passed: string | number | null;
    average_score: number | null;
    scores: string | number | null;
    median_seconds: number | null;
  }>(
    sql,
    `WITH people AS MATERIALIZED (${sources.people}), ${selection(parameters, sources.fewPeople)},
     activities AS NOT MATERIALIZED (${sources.activities}),
     ${rowsOfPeople('records', sources.records, 'agent_key')},
     rec AS MATERIALIZED (
       SELECT r.activity_id, r.agent_key, r.passed_at IS NOT NULL AS passed, r.scaled,
              extract(epoch FROM e.at - r.first_at) AS seconds
         FROM records r
         JOIN activities a ON a.id = r.activity_id
        CROSS JOIN LATERAL (SELECT ${EVIDENCE} AS at) e
     ),
     per_person AS (
       SELECT activity_id, agent_key, bool_or(seconds IS NOT NULL) AS completed, bool_or(passed) AS passed
         FROM rec GROUP BY activity_id, agent_key
     ),
     counted AS (
       SELECT activity_id, count(*) AS attempted, count(*) FILTER (WHERE completed) AS completed, count(*) FILTER (WHERE passed) AS passed
         FROM per_person GROUP BY activity_id
     ),
     measured AS (
       SELECT activity_id, avg(scaled)::float8 AS average_score, count(scaled) AS scores,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FILTER (WHERE seconds IS NOT NULL) AS median_seconds
         FROM rec GROUP BY activity_id
     )
     SELECT n.people, a.id, a.registered, a.requires_success, a.name, c.attempted, c.completed, c.passed,
            m.average_score, m.scores, m.median_seconds::float8 AS median_seconds
       FROM (SELECT count(*) AS people FROM people) n
       LEFT JOIN (activities a LEFT JOIN counted c ON c.activity_id = a.id LEFT JOIN measured m ON m.activity_id = a.id) ON true
      ORDER BY a.id`,
    parameters.values,
  );
  const count = (value: string | number | null) => (value === null ? 0 : Number(value));
  return {
    people: rows.length > 0 ? Number(rows[0].people) : 0,
    activities: rows
      .filter((row): row is typeof row & { id: string } => row.id !== null)
      .map((row) => ({
        id: row.id,
        registered: row.registered,
        requiresSuccess: row.requires_success,
        name: row.name,
        attempted: count(row.attempted),
        completed: count(row.completed),
        passed: count(row.passed),
        averageScore: row.average_score === null ? null : Number(row.average_score),
        scores: count(row.scores),
        medianSecondsToComplete: row.median_seconds === null ? null : Number(row.median_seconds),
      })),
  };
}

/** Counted rows of activity over time: statements per (interval start, verb), learners per interval start. */
export interface TallyCounts {
  statements: Array<{ start: string; verbId: string; count: number }>;
  learners: Array<{ start: string; count: number }>;
}

/**
 * Activity over time from the tally rows (statementTalliesSql's text in `tallies`), grouped by day
 * or by ISO week (its Monday), with `people` (peopleSql's text) only the rows of those people.
 */
export async function countTallies(
  sql: SqlClient,
  parameters: SqlValues,
  sources: { tallies: string; people?: string; fewPeople: number },
  week: boolean,
): Promise<TallyCounts> {
  const start = week ? `r.day - (extract(isodow FROM r.day)::int - 1)` : 'r.day';
  const people =
    sources.people === undefined
      ? ''
      : `people AS MATERIALIZED (${sources.people}), ${selection(parameters, sources.fewPeople)}, ${rowsOfPeople('tallied', sources.tallies, 'actor_key')},`;
  const from = sources.people === undefined ? `(${sources.tallies}) r` : 'tallied r';
  const rows = await report<{ kind: 's' | 'l'; start: string; verb_id: string; count: string | number }>(
    sql,
    `WITH ${people}
     counted AS MATERIALIZED (
       SELECT ${start} AS start, r.verb_id, r.actor_key, r.statements FROM ${from}
     )
     SELECT 's' AS kind, start::text AS start, verb_id, sum(statements) AS count FROM counted GROUP BY start, verb_id
     UNION ALL
     SELECT 'l', start::text, '', count(DISTINCT actor_key) FROM counted WHERE actor_key <> '' GROUP BY start`,
    parameters.values,
  );
  return {
    statements: rows.filter((row) => row.kind === 's').map((row) => ({ start: row.start, verbId: row.verb_id, count: Number(row.count) })),
    learners: rows.filter((row) => row.kind === 'l').map((row) => ({ start: row.start, count: Number(row.count) })),
  };
}

/**
 * The (person, assignment activity) pairs of the people (peopleSql's text) who are members now
 * of the assignments (`assignment`, a placeholder: that one only), of the activities (`activity`,
 * a placeholder: that one only), counted per position and status. The statuses are the
 * assignments' own (assignment-status.repository.ts), read now from the completion records: a
 * member's pairs are probed one by one through the records' key, so the cost follows the pairs,
 * not the tenant's records. The people are materialised once; members are found among them
 * through a hash of their keys (COALESCE keeps the set a hashed subplan, probed per member): as a
 * semi-join, planned on the estimates of assignment tables whose statistics lagged behind a bulk
 * assignment (the planner saw one member where there were 109,000), it became a nested loop
 * comparing 300,000 members with each of 1,100 people, 31 s instead of 40 ms.
 */
export async function countAssignmentStatuses(
  sql: SqlClient,
  parameters: SqlValues,
  sources: { people: string; assignment?: string; activity?: string },
): Promise<Array<{ positionId: string; status: AssignmentStatus; pairs: number }>> {
  const assignment = sources.assignment === undefined ? '' : ` AND m.assignment_id = ${sources.assignment}::uuid`;
  const activities = [
    ...(sources.assignment === undefined ? [] : [`x.assignment_id = ${sources.assignment}::uuid`]),
    ...(sources.activity === undefined ? [] : [`x.activity_id = ${sources.activity}`]),
  ];
  const rows = await report<{ position_id: string; status: AssignmentStatus; pairs: string | number }>(
    sql,
    `WITH people AS MATERIALIZED (${sources.people}),
     ${currentMemberStatusesSql(
       'c',
       `COALESCE(m.agent_key IN (SELECT agent_key FROM people WHERE position_id IS NOT NULL), false)${assignment}`,
       activities.length === 0 ? 'true' : activities.join(' AND '),
     )}
     SELECT p.position_id, st.status, count(*) AS pairs
       FROM c_statuses st JOIN people p ON p.agent_key = st.agent_key
      WHERE p.position_id IS NOT NULL
      GROUP BY p.position_id, st.status`,
    parameters.values,
  );
  return rows.map((row) => ({ positionId: row.position_id, status: row.status, pairs: Number(row.pairs) }));
}
