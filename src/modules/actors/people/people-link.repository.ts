import type { SqlClient } from '../../../platform/database/sql-client.js';
import { jobIdsSql, organisationEntryIdsSql, positionJobValuesSql } from '../../organisation/index.js';
import { PERSON_SQL } from '../actor.repository.js';

/** Some of the people a replacement of the organisation or the jobs would unlink, to show. */
export interface PersonShown {
  agentKey: string;
  /** Their name, when they have one. */
  name?: string;
}

/** How many active people a new structure would link, how many it would unlink, and the first of those. */
export interface PeopleLinks {
  linked: number;
  unlinked: number;
  examples: PersonShown[];
}

/**
 * The tally of `people` (a SELECT over the tenant's active people of `agent_key`, `name`, `placed`:
 * linked now, and `kept`: linked by the new structure), its values `values` and the examples' limit
 * the next placeholder: linked = kept, unlinked = placed and not kept, the first of those in
 * agent-key order.
 */
async function tally(sql: SqlClient, people: string, values: unknown[], examples: number): Promise<PeopleLinks> {
  const { rows } = await sql.query<{ linked: number; unlinked: number; examples: PersonShown[] }>(
    `WITH people AS MATERIALIZED (${people})
     SELECT (SELECT count(*) FROM people WHERE kept)::int AS linked,
            (SELECT count(*) FROM people WHERE placed AND NOT kept)::int AS unlinked,
            COALESCE((SELECT jsonb_agg(jsonb_strip_nulls(jsonb_build_object('agentKey', e.agent_key, 'name', e.name)) ORDER BY e.agent_key)
                        FROM (SELECT agent_key, name FROM people WHERE placed AND NOT kept ORDER BY agent_key LIMIT $${values.length + 1}) e),
                     '[]'::jsonb) AS examples`,
    [...values, examples],
  );
  return rows[0];
}

/** SQL over `actors a`: one of the tenant's active people (actor.repository.ts PERSON_SQL, not deactivated). */
const ACTIVE_PERSON = `${PERSON_SQL} AND a.deactivated_at IS NULL`;

/**
 * The tenant's active people whose position (`position_id`, the value of their
 * `organisationAttribute`) is one of `entryIds`, and those whose position names a stored entry
 * that is not: one statement, the ids bound as one array and joined by hash.
 */
export function countPeopleInEntries(
  sql: SqlClient,
  tenantId: string,
  entryIds: readonly string[],
  examples: number,
): Promise<PeopleLinks> {
  return tally(
    sql,
    `SELECT a.agent_key, a.name, (stored.id IS NOT NULL) AS placed, (sent.id IS NOT NULL) AS kept
       FROM actors a
       LEFT JOIN (${organisationEntryIdsSql('$1', 'true', false)}) AS stored ON stored.id = a.position_id
       LEFT JOIN unnest($2::text[]) AS sent (id) ON sent.id = a.position_id
      WHERE a.tenant_id = $1 AND a.position_id IS NOT NULL AND ${ACTIVE_PERSON}`,
    [tenantId, [...entryIds]],
    examples,
  );
}

/**
 * The tenant's active people who would have a current job (actor-job-rules.ts: their own
 * `jobAttribute` value naming a job, else their position's `positionJobAttribute` value naming
 * one) were the jobs `jobIds`, and those who have one now and would have none: one statement.
 * `jobAttribute` and `positionJobAttribute` are the tenant's settings (null: no such link).
 */
export function countPeopleInJobs(
  sql: SqlClient,
  tenantId: string,
  jobIds: readonly string[],
  settings: { jobAttribute: string | null; positionJobAttribute: string | null },
  examples: number,
): Promise<PeopleLinks> {
  return tally(
    sql,
    `SELECT a.agent_key, a.name,
            (own_now.id IS NOT NULL OR position_now.id IS NOT NULL) AS placed,
            (own_new.id IS NOT NULL OR position_new.id IS NOT NULL) AS kept
       FROM actors a
       LEFT JOIN (${positionJobValuesSql('$1', '$4::text')}) AS entry ON entry.id = a.position_id
       LEFT JOIN (${jobIdsSql('$1', 'true')}) AS own_now ON own_now.id = (a.attributes ->> $3::text)
       LEFT JOIN (${jobIdsSql('$1', 'true')}) AS position_now ON position_now.id = entry.job_id
       LEFT JOIN unnest($2::text[]) AS own_new (id) ON own_new.id = (a.attributes ->> $3::text)
       LEFT JOIN unnest($2::text[]) AS position_new (id) ON position_new.id = entry.job_id
      WHERE a.tenant_id = $1 AND ${ACTIVE_PERSON}`,
    [tenantId, [...jobIds], settings.jobAttribute, settings.positionJobAttribute],
    examples,
  );
}
