import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Job, OrgEntry } from '../organisation.repository.js';

/** How many entries a replacement adds, removes, changes or keeps, with the first ids of each (at most `examples`). */
export interface StructureChanges {
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  examples: { added: string[]; removed: string[]; changed: string[] };
}

type Change = 'added' | 'removed' | 'changed' | 'unchanged';

/**
 * The tally of `compared` (a SELECT of `id`, `change` and `position`): one row per kind of change
 * with its count and its first ids, the sent array's order for what is sent, the stored order for
 * what is removed.
 */
async function tally(sql: SqlClient, compared: string, values: unknown[], examples: number): Promise<StructureChanges> {
  const { rows } = await sql.query<{ change: Change; count: number; examples: string[] }>(
    `SELECT c.change, count(*)::int AS count, (array_agg(c.id ORDER BY c.position))[1:${examples}] AS examples
       FROM (${compared}) AS c
      GROUP BY c.change`,
    values,
  );
  const changes: StructureChanges = {
    added: 0,
    removed: 0,
    changed: 0,
    unchanged: 0,
    examples: { added: [], removed: [], changed: [] },
  };
  for (const row of rows) {
    changes[row.change] = row.count;
    if (row.change !== 'unchanged') changes.examples[row.change] = row.examples;
  }
  return changes;
}

/**
 * What replacing the tenant's organisation structure with `entries` would change, in one statement:
 * the array, bound as JSON, full-joined by id to the stored entries (a hash join, whatever their
 * count). Changed: the same id with another parent or other attributes; a new place in the order
 * alone is no change.
 */
export function compareOrganisationEntries(
  sql: SqlClient,
  tenantId: string,
  entries: readonly OrgEntry[],
  examples: number,
): Promise<StructureChanges> {
  const sent = entries.map((entry, position) => ({
    id: entry.id,
    parent_id: entry.parentId ?? null,
    attributes: entry.attributes,
    position,
  }));
  return tally(
    sql,
    `SELECT COALESCE(s.id, o.id) AS id, COALESCE(s.position, o.position) AS position,
            CASE WHEN o.id IS NULL THEN 'added'
                 WHEN s.id IS NULL THEN 'removed'
                 WHEN s.parent_id IS DISTINCT FROM o.parent_id OR s.attributes <> o.attributes THEN 'changed'
                 ELSE 'unchanged' END AS change
       FROM jsonb_to_recordset($2::jsonb) AS s(id text, parent_id text, attributes jsonb, position integer)
       FULL JOIN (SELECT id, parent_id, attributes, position FROM organisation_entries WHERE tenant_id = $1) AS o ON o.id = s.id`,
    [tenantId, JSON.stringify(sent)],
    examples,
  );
}

/**
 * As compareOrganisationEntries, for the job architecture: changed is the same id with another
 * name, other competencies (their order included, as GET /api/jobs answers them) or other attributes.
 */
export function compareJobs(sql: SqlClient, tenantId: string, jobs: readonly Job[], examples: number): Promise<StructureChanges> {
  const sent = jobs.map((job, position) => ({
    id: job.id,
    name: job.name,
    competencies: job.competencies,
    attributes: job.attributes,
    position,
  }));
  return tally(
    sql,
    `SELECT COALESCE(s.id, j.id) AS id, COALESCE(s.position, j.position) AS position,
            CASE WHEN j.id IS NULL THEN 'added'
                 WHEN s.id IS NULL THEN 'removed'
                 WHEN s.name <> j.name OR s.competencies <> j.competencies OR s.attributes <> j.attributes THEN 'changed'
                 ELSE 'unchanged' END AS change
       FROM jsonb_to_recordset($2::jsonb) AS s(id text, name text, competencies jsonb, attributes jsonb, position integer)
       FULL JOIN (SELECT id, name, competencies, attributes, position FROM jobs WHERE tenant_id = $1) AS j ON j.id = s.id`,
    [tenantId, JSON.stringify(sent)],
    examples,
  );
}

/**
 * The competencies `jobs` name that the tenant's catalogue does not hold yet (matched on lower(name),
 * as the import's sync matches them): how many, and the first `examples` names, each spelled as
 * its first occurrence, in the jobs' order. One statement.
 */
export async function findNewCompetencyNames(
  sql: SqlClient,
  tenantId: string,
  jobs: readonly Job[],
  examples: number,
): Promise<{ count: number; names: string[] }> {
  const names = jobs.flatMap((job) => job.competencies.map((competency) => competency.Name));
  if (names.length === 0) return { count: 0, names: [] };
  const { rows } = await sql.query<{ count: number; names: string[] | null }>(
    `WITH fresh AS (
       SELECT DISTINCT ON (lower(n.name)) n.name, n.ord
         FROM unnest($2::text[]) WITH ORDINALITY AS n (name, ord)
        WHERE NOT EXISTS (SELECT 1 FROM competencies k WHERE k.tenant_id = $1 AND k.name_key = lower(n.name))
        ORDER BY lower(n.name), n.ord
     )
     SELECT count(*)::int AS count, (array_agg(name ORDER BY ord))[1:${examples}] AS names FROM fresh`,
    [tenantId, names],
  );
  return { count: rows[0]?.count ?? 0, names: rows[0]?.names ?? [] };
}
