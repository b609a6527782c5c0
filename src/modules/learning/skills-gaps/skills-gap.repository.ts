/**
 * The statements of skills gaps and recommendations. The learning module owns none of the tables
 * they read: each comes as an SQL fragment of its owner's service (docs/architecture.md, "Reads
 * across modules"), embedded here in one statement, its values bound as parameters.
 */
import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { completionRecordsSql } from '../../completions/index.js';
import { competencyActivitiesSql } from '../../activities/index.js';
import { jobCompetenciesSql } from '../../organisation/index.js';

import type { Evidence } from './skills-gap-rules.js';

/**
 * When a completion record `r` of an activity `d` (competencyActivitiesSql) is evidence, from
 * when: its passedAt when the activity requires success, else its completedAt; NULL: not evidence.
 */
const EVIDENCE_AT = 'CASE WHEN d.requires_success THEN r.passed_at ELSE r.completed_at END';

const iso = (value: Date | string) => new Date(value).toISOString();

/**
 * A person's evidence of each of `competencyIds`: their completion records (any registration) of
 * the registered activities developing it, newest first, at most `perCompetency` each. One
 * statement: the person's records through the primary key, the activities through
 * activity_competencies' (tenant_id, competency_id) index.
 */
export async function findEvidence(
  sql: SqlClient,
  tenantId: string,
  agentKey: string,
  competencyIds: readonly string[],
  perCompetency: number,
): Promise<Map<string, Evidence[]>> {
  const byCompetency = new Map<string, Evidence[]>();
  if (competencyIds.length === 0) return byCompetency;
  const { rows } = await sql.query<{
    competency_id: string;
    activity_id: string;
    registration: string;
    name: Record<string, string> | null;
    at: Date | string;
    score: Record<string, unknown> | null;
  }>(
    `SELECT e.competency_id, e.activity_id, e.registration, e.name, e.at, e.score
       FROM (SELECT d.competency_id::text, d.activity_id, r.registration, d.name, r.score, ${EVIDENCE_AT} AS at,
                    row_number() OVER (PARTITION BY d.competency_id ORDER BY ${EVIDENCE_AT} DESC, d.activity_id, r.registration) AS n
               FROM (${competencyActivitiesSql('$1', 'ac.competency_id = ANY($3::uuid[])')}) d
               JOIN (${completionRecordsSql('$1', 'r.agent_key = $2')}) r ON r.activity_id = d.activity_id
              WHERE ${EVIDENCE_AT} IS NOT NULL) e
      WHERE e.n <= $4
      ORDER BY e.competency_id, e.n`,
    [tenantId, agentKey, [...new Set(competencyIds)], perCompetency],
  );
  for (const row of rows) {
    const evidence: Evidence = { activityId: row.activity_id, at: iso(row.at) };
    if (row.name !== null) evidence.name = row.name;
    if (row.registration !== '') evidence.registration = row.registration;
    if (row.score !== null) evidence.score = row.score;
    const list = byCompetency.get(row.competency_id);
    if (list) list.push(evidence);
    else byCompetency.set(row.competency_id, [evidence]);
  }
  return byCompetency;
}

/** A statement selecting people (actors' peopleSql: columns agent_key, job_id) with its parameters, `$1` the tenant id. */
export interface PeopleStatement {
  sql: string;
  parameters: SqlValues;
}

export interface GroupCounts {
  /** How many people the selection holds. */
  selected: number;
  /** How many of them have a target job (all, with one target job for everyone). */
  withTargetJob: number;
  /** Per competency some target job requires: how many selected people it is required of, and how many of those hold it. */
  competencies: Array<{ competencyId: string; required: number; held: number }>;
}

/**
 * A group's gap in one statement: the people (materialised once), each person's target job (the
 * one `targetJobId`, else their current job), the competencies each target requires, and of those
 * the ones the person holds (a completion record that is evidence, EVIDENCE_AT), counted per
 * competency. The one-row `counted` keeps the people counts when no competency is required.
 */
export async function countGroupGap(sql: SqlClient, people: PeopleStatement, targetJobId: string | undefined): Promise<GroupCounts> {
  const parameters = new SqlValues(people.parameters.values);
  const target = targetJobId === undefined ? undefined : parameters.bind(targetJobId);
  const { rows } = await sql.query<{
    selected: string | number;
    with_target: string | number;
    competency_id: string | null;
    required: string | number | null;
    held: string | number | null;
  }>(
    `WITH people AS MATERIALIZED (${people.sql}),
     targets AS MATERIALIZED (
       SELECT p.agent_key, ${target === undefined ? 'p.job_id' : `${target}::text`} AS job_id FROM people p
        ${target === undefined ? 'WHERE p.job_id IS NOT NULL' : ''}
     ),
     required AS MATERIALIZED (
       SELECT t.agent_key, jc.competency_id FROM targets t JOIN (${jobCompetenciesSql('$1')}) jc ON jc.job_id = t.job_id
     ),
     held AS (
       SELECT DISTINCT q.agent_key, q.competency_id
         FROM required q
         JOIN (${completionRecordsSql('$1', 'true')}) r ON r.agent_key = q.agent_key
         JOIN (${competencyActivitiesSql('$1', 'true')}) d ON d.activity_id = r.activity_id AND d.competency_id = q.competency_id
        WHERE ${EVIDENCE_AT} IS NOT NULL
     ),
     counted AS (
       SELECT q.competency_id, count(*) AS required, count(h.agent_key) AS held
         FROM required q LEFT JOIN held h ON h.agent_key = q.agent_key AND h.competency_id = q.competency_id
        GROUP BY q.competency_id
     )
     SELECT (SELECT count(*) FROM people) AS selected, (SELECT count(*) FROM targets) AS with_target,
            c.competency_id::text, c.required, c.held
       FROM (SELECT 1) AS one LEFT JOIN counted c ON true`,
    parameters.values,
  );
  return {
    selected: Number(rows[0].selected),
    withTargetJob: Number(rows[0].with_target),
    competencies: rows.flatMap((row) =>
      row.competency_id === null ? [] : [{ competencyId: row.competency_id, required: Number(row.required), held: Number(row.held) }],
    ),
  };
}

/** An activity recommended: what it is, which of the missing competencies it develops, how many peers completed it. */
export interface RecommendedActivity {
  activityId: string;
  name?: Record<string, string>;
  launchUrl?: string;
  competencyIds: string[];
  peers: number;
}

/**
 * The registered activities developing at least one of `missingIds` that the person has not
 * completed (a record with completedAt, any registration), ranked: most missing competencies
 * developed first, then most `peers` (distinct people of the person's current job, selected by
 * `peers`, with a record of it with completedAt), then activity id in byte order; the first
 * `limit`. One statement: the candidates through activity_competencies' competency index, the
 * person's records through the primary key, and each peer's records of the candidates through it
 * too (a LATERAL probe per peer: a few hundred peers read a few thousand rows, where a join would
 * tempt the planner into reading every record of the tenant).
 */
export async function findRecommendations(
  sql: SqlClient,
  tenantId: string,
  agentKey: string,
  missingIds: readonly string[],
  peers: PeopleStatement | undefined,
  limit: number,
): Promise<RecommendedActivity[]> {
  if (missingIds.length === 0) return [];
  const parameters = new SqlValues(peers ? peers.parameters.values : [tenantId]);
  const person = parameters.bind(agentKey);
  const missing = parameters.bind([...new Set(missingIds)]);
  const top = parameters.bind(limit);
  const { rows } = await sql.query<{
    activity_id: string;
    name: Record<string, string> | null;
    launch_url: string | null;
    competency_ids: string[];
    peers: string | number;
  }>(
    `WITH candidates AS (
       SELECT d.activity_id, d.name, d.launch_url, array_agg(d.competency_id::text ORDER BY d.competency_id) AS competency_ids
         FROM (${competencyActivitiesSql('$1', `ac.competency_id = ANY(${missing}::uuid[])`)}) d
        WHERE NOT EXISTS (
                SELECT 1 FROM (${completionRecordsSql('$1', `r.agent_key = ${person} AND r.completed_at IS NOT NULL`)}) done
                 WHERE done.activity_id = d.activity_id)
        GROUP BY d.activity_id, d.name, d.launch_url
     )${
       peers
         ? `, peers AS MATERIALIZED (${peers.sql}),
     completed AS (
       SELECT done.activity_id, count(*) AS peers
         FROM peers p
        CROSS JOIN LATERAL (
              SELECT DISTINCT r.activity_id
                FROM (${completionRecordsSql('$1', 'r.agent_key = p.agent_key AND r.completed_at IS NOT NULL')}) r
               WHERE r.activity_id = ANY(ARRAY(SELECT c.activity_id FROM candidates c))) done
        GROUP BY done.activity_id
     )`
         : ''
     }
     SELECT c.activity_id, c.name, c.launch_url, c.competency_ids, ${peers ? 'COALESCE(x.peers, 0)' : '0'} AS peers
       FROM candidates c ${peers ? 'LEFT JOIN completed x ON x.activity_id = c.activity_id' : ''}
      ORDER BY cardinality(c.competency_ids) DESC, peers DESC, c.activity_id
      LIMIT ${top}`,
    parameters.values,
  );
  return rows.map((row) => {
    const activity: RecommendedActivity = { activityId: row.activity_id, competencyIds: row.competency_ids, peers: Number(row.peers) };
    if (row.name !== null) activity.name = row.name;
    if (row.launch_url !== null) activity.launchUrl = row.launch_url;
    return activity;
  });
}
