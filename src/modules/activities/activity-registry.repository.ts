import { lockForTransaction } from '../../platform/database/advisory-lock.js';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { countWhere, SqlFilter, type Page } from '../../platform/database/sql-filters.js';

/** One entry of the activities registry as stored (docs/activities.md). */
export interface RegisteredActivity {
  /** The activity's IRI. */
  id: string;
  /** An xAPI activity definition: name, description, type, moreInfo, extensions. */
  definition: Record<string, unknown>;
  attributes: Record<string, string>;
  tags: string[];
  /** The entry above this one in the hierarchy; absent for a root. */
  parentId?: string;
  /** Where the content starts (absolute http or https URL); absent when it cannot be launched. */
  launchUrl?: string;
  competencies: string[];
  /** A completion counts only when the activity was passed (a record's passedAt), not merely completed. */
  requiresSuccess: boolean;
  updated: Date;
}

/** An entry to store: what PUT takes, checked. */
export type NewRegisteredActivity = Omit<RegisteredActivity, 'updated'>;

interface ActivityRow {
  id: string;
  definition: Record<string, unknown>;
  attributes: Record<string, string>;
  tags: string[];
  parent_id: string | null;
  launch_url: string | null;
  competencies: string[];
  requires_success: boolean;
  updated_at: Date;
}

const COLUMNS = 'id, definition, attributes, tags, parent_id, launch_url, competencies, requires_success, updated_at';

const toActivity = (row: ActivityRow): RegisteredActivity => ({
  id: row.id,
  definition: row.definition,
  attributes: row.attributes,
  tags: row.tags,
  ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
  ...(row.launch_url === null ? {} : { launchUrl: row.launch_url }),
  competencies: row.competencies,
  requiresSuccess: row.requires_success,
  updated: new Date(row.updated_at),
});

/**
 * Takes the tenant's registry lock for the rest of the transaction: two PUTs of one tenant run
 * one after the other, so each one's cycle check reads a tree the other cannot change before it
 * commits (two PUTs each adding one edge of a cycle would otherwise both pass). Other tenants
 * never wait.
 */
export async function lockRegistry(tx: SqlClient, tenantId: string): Promise<void> {
  await lockForTransaction(tx, `learnbase:activities:${tenantId}`);
}

/**
 * The stored parent links reachable upwards from `ids`: each named entry, its parent, its
 * parent's parent… each once. `UNION` (not `UNION ALL`) drops rows already reached, so the walk
 * ends even on data with a cycle (which writes refuse anyway).
 */
export async function findAncestorLinks(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<Map<string, string | null>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql.query<{ id: string; parent_id: string | null }>(
    `WITH RECURSIVE reached AS (
       SELECT id, parent_id FROM activity_registry WHERE tenant_id = $1 AND id = ANY($2::text[])
       UNION
       SELECT parent.id, parent.parent_id
         FROM reached JOIN activity_registry parent ON parent.tenant_id = $1 AND parent.id = reached.parent_id
     )
     SELECT id, parent_id FROM reached`,
    [tenantId, [...ids]],
  );
  return new Map(rows.map((row) => [row.id, row.parent_id]));
}

/**
 * Inserts or replaces `entries` (whole rows: a field left out of an entry is cleared), one
 * set-based statement whatever their count. Run it in a transaction: the parent foreign key is
 * deferred to commit, so an entry may name a parent that comes later in the same write.
 */
export async function upsertActivities(sql: SqlClient, tenantId: string, entries: readonly NewRegisteredActivity[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((entry) => ({
    id: entry.id,
    definition: entry.definition,
    attributes: entry.attributes,
    tags: entry.tags,
    parent_id: entry.parentId ?? null,
    launch_url: entry.launchUrl ?? null,
    competencies: entry.competencies,
    requires_success: entry.requiresSuccess,
  }));
  // In id order, so two writers touching the same rows lock them in one order.
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  await sql.query(
    `INSERT INTO activity_registry AS stored
       (tenant_id, id, definition, attributes, tags, parent_id, launch_url, competencies, requires_success, updated_at)
     SELECT $1, r.id, r.definition, r.attributes,
            ARRAY(SELECT jsonb_array_elements_text(r.tags)), r.parent_id, r.launch_url,
            ARRAY(SELECT jsonb_array_elements_text(r.competencies)), r.requires_success, clock_timestamp()
       FROM jsonb_to_recordset($2::jsonb)
         AS r(id text, definition jsonb, attributes jsonb, tags jsonb, parent_id text, launch_url text, competencies jsonb,
              requires_success boolean)
     ON CONFLICT (tenant_id, id) DO UPDATE
        SET definition = EXCLUDED.definition, attributes = EXCLUDED.attributes, tags = EXCLUDED.tags,
            parent_id = EXCLUDED.parent_id, launch_url = EXCLUDED.launch_url,
            competencies = EXCLUDED.competencies, requires_success = EXCLUDED.requires_success, updated_at = EXCLUDED.updated_at`,
    [tenantId, JSON.stringify(rows)],
  );
}

export async function findActivity(sql: SqlClient, tenantId: string, id: string): Promise<RegisteredActivity | undefined> {
  const { rows } = await sql.query<ActivityRow>(`SELECT ${COLUMNS} FROM activity_registry WHERE tenant_id = $1 AND id = $2`, [
    tenantId,
    id,
  ]);
  return rows.length === 0 ? undefined : toActivity(rows[0]);
}

export interface ActivityFilter {
  tag?: string;
  parentId?: string;
  /** Text the id, a name or a description contains, case-insensitively. */
  q?: string;
}

/** The conditions of `filter` on the tenant's registry, as the list and its count read them. */
function activityWhere(tenantId: string, filter: ActivityFilter): SqlFilter {
  const where = new SqlFilter([tenantId], 'tenant_id = $1');
  // The tag as a one-element array: `tags @>` is what activity_registry__tags serves.
  if (filter.tag !== undefined) where.and(`tags @> ${where.bind([filter.tag])}::text[]`);
  where.andIf(filter.parentId, (p) => `parent_id = ${p}`);
  // lower() on both sides, as the competency catalogue's `q`: the database's folding, the same on
  // PGlite and PostgreSQL; strpos, not LIKE, so `%` and `_` are text. The language maps are
  // objects of strings (activity-registry-rules.ts): every language's text is searched.
  where.andIf(
    filter.q,
    (p) => `(strpos(lower(id), lower(${p})) > 0
         OR EXISTS (SELECT 1 FROM jsonb_each_text(definition -> 'name') AS n WHERE strpos(lower(n.value), lower(${p})) > 0)
         OR EXISTS (SELECT 1 FROM jsonb_each_text(definition -> 'description') AS d WHERE strpos(lower(d.value), lower(${p})) > 0))`,
  );
  return where;
}

/**
 * A page of the tenant's entries in id order (stable under paging), filtered by tag, parent and
 * text, and how many match in all. The text reads every entry of the tenant (no index serves it):
 * a registry is a catalogue, thousands of entries, not millions.
 */
export async function findActivities(
  sql: SqlClient,
  tenantId: string,
  filter: ActivityFilter,
  page: Page,
): Promise<{ activities: RegisteredActivity[]; total: number }> {
  const where = activityWhere(tenantId, filter);
  const total = await countWhere(sql, 'activity_registry', where);
  const { rows } = await sql.query<ActivityRow>(
    `SELECT ${COLUMNS} FROM activity_registry ${where.clause}
      ${where.paged('id', page)}`,
    where.values,
  );
  return { activities: rows.map(toActivity), total };
}

/** The entries of `ids` the tenant has (unknown ids are left out). */
export async function findActivitiesByIds(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<RegisteredActivity[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<ActivityRow>(`SELECT ${COLUMNS} FROM activity_registry WHERE tenant_id = $1 AND id = ANY($2::text[])`, [
    tenantId,
    [...new Set(ids)],
  ]);
  return rows.map(toActivity);
}

/**
 * The ids of the entries having every tag of `tags` and every attribute of `attributes` with
 * exactly its value (`tags @>` is served by activity_registry__tags).
 */
export async function findActivityIdsMatching(
  sql: SqlClient,
  tenantId: string,
  match: { tags: readonly string[]; attributes: Readonly<Record<string, string>> },
): Promise<string[]> {
  const { rows } = await sql.query<{ id: string }>(
    'SELECT id FROM activity_registry WHERE tenant_id = $1 AND tags @> $2::text[] AND attributes @> $3::jsonb',
    [tenantId, [...match.tags], JSON.stringify(match.attributes)],
  );
  return rows.map((row) => row.id);
}

/**
 * Replaces the competency links of the activities in `links` (each activity's whole set: an
 * activity with no competencies is given an empty list), in the registry write's transaction.
 */
export async function replaceActivityCompetencies(
  tx: SqlClient,
  tenantId: string,
  links: ReadonlyMap<string, readonly string[]>,
): Promise<void> {
  if (links.size === 0) return;
  await tx.query('DELETE FROM activity_competencies WHERE tenant_id = $1 AND activity_id = ANY($2::text[])', [tenantId, [...links.keys()]]);
  const pairs = [...links].flatMap(([activityId, competencyIds]) => [...new Set(competencyIds)].map((id) => [activityId, id]));
  if (pairs.length === 0) return;
  await tx.query(
    `INSERT INTO activity_competencies (tenant_id, activity_id, competency_id)
     SELECT $1, l.activity_id, l.competency_id FROM unnest($2::text[], $3::uuid[]) AS l (activity_id, competency_id)`,
    [tenantId, pairs.map((pair) => pair[0]), pairs.map((pair) => pair[1])],
  );
}

/** An activity that develops some of the competencies asked about, with which ones. */
export interface DevelopingActivity {
  activity: RegisteredActivity;
  competencyIds: string[];
}

/** The registered activities developing any of `competencyIds`, in id order, each with the asked competencies it develops. */
export async function findActivitiesDeveloping(
  sql: SqlClient,
  tenantId: string,
  competencyIds: readonly string[],
): Promise<DevelopingActivity[]> {
  if (competencyIds.length === 0) return [];
  const { rows } = await sql.query<ActivityRow & { competency_ids: string[] }>(
    `SELECT ${COLUMNS.split(', ')
      .map((column) => `a.${column}`)
      .join(', ')}, l.competency_ids
       FROM (SELECT ac.activity_id, array_agg(ac.competency_id::text ORDER BY ac.competency_id) AS competency_ids
               FROM activity_competencies ac
              WHERE ac.tenant_id = $1 AND ac.competency_id = ANY($2::uuid[])
              GROUP BY ac.activity_id) AS l
       JOIN activity_registry a ON a.tenant_id = $1 AND a.id = l.activity_id
      ORDER BY a.id`,
    [tenantId, [...new Set(competencyIds)]],
  );
  return rows.map((row) => ({ activity: toActivity(row), competencyIds: row.competency_ids }));
}

/** How many registered activities develop each of `competencyIds` (absent: none). */
export async function countActivitiesDeveloping(
  sql: SqlClient,
  tenantId: string,
  competencyIds: readonly string[],
): Promise<Map<string, number>> {
  if (competencyIds.length === 0) return new Map();
  const { rows } = await sql.query<{ competency_id: string; activities: number }>(
    `SELECT competency_id::text, count(*)::int AS activities FROM activity_competencies
      WHERE tenant_id = $1 AND competency_id = ANY($2::uuid[]) GROUP BY competency_id`,
    [tenantId, [...new Set(competencyIds)]],
  );
  return new Map(rows.map((row) => [row.competency_id, row.activities]));
}

/** The competency ids each of `activityIds` develops (activities developing none are absent). */
export async function findCompetencyIdsOf(
  sql: SqlClient,
  tenantId: string,
  activityIds: readonly string[],
): Promise<Map<string, string[]>> {
  if (activityIds.length === 0) return new Map();
  const { rows } = await sql.query<{ activity_id: string; competency_ids: string[] }>(
    `SELECT activity_id, array_agg(competency_id::text ORDER BY competency_id) AS competency_ids FROM activity_competencies
      WHERE tenant_id = $1 AND activity_id = ANY($2::text[]) GROUP BY activity_id`,
    [tenantId, [...new Set(activityIds)]],
  );
  return new Map(rows.map((row) => [row.activity_id, row.competency_ids]));
}
