import { lockForTransaction } from '../../platform/database/advisory-lock.js';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { SqlFilter, type Page } from '../../platform/database/sql-filters.js';

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
  updated_at: Date;
}

const COLUMNS = 'id, definition, attributes, tags, parent_id, launch_url, competencies, updated_at';

const toActivity = (row: ActivityRow): RegisteredActivity => ({
  id: row.id,
  definition: row.definition,
  attributes: row.attributes,
  tags: row.tags,
  ...(row.parent_id === null ? {} : { parentId: row.parent_id }),
  ...(row.launch_url === null ? {} : { launchUrl: row.launch_url }),
  competencies: row.competencies,
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
  }));
  // In id order, so two writers touching the same rows lock them in one order.
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  await sql.query(
    `INSERT INTO activity_registry AS stored (tenant_id, id, definition, attributes, tags, parent_id, launch_url, competencies, updated_at)
     SELECT $1, r.id, r.definition, r.attributes,
            ARRAY(SELECT jsonb_array_elements_text(r.tags)), r.parent_id, r.launch_url,
            ARRAY(SELECT jsonb_array_elements_text(r.competencies)), clock_timestamp()
       FROM jsonb_to_recordset($2::jsonb)
         AS r(id text, definition jsonb, attributes jsonb, tags jsonb, parent_id text, launch_url text, competencies jsonb)
     ON CONFLICT (tenant_id, id) DO UPDATE
        SET definition = EXCLUDED.definition, attributes = EXCLUDED.attributes, tags = EXCLUDED.tags,
            parent_id = EXCLUDED.parent_id, launch_url = EXCLUDED.launch_url,
            competencies = EXCLUDED.competencies, updated_at = EXCLUDED.updated_at`,
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
}

/** A page of the tenant's entries in id order (stable under paging), filtered by tag and parent. */
export async function findActivities(sql: SqlClient, tenantId: string, filter: ActivityFilter, page: Page): Promise<RegisteredActivity[]> {
  const where = new SqlFilter([tenantId], 'tenant_id = $1');
  // The tag as a one-element array: `tags @>` is what activity_registry__tags serves.
  if (filter.tag !== undefined) where.and(`tags @> ${where.bind([filter.tag])}::text[]`);
  where.andIf(filter.parentId, (p) => `parent_id = ${p}`);
  const { rows } = await sql.query<ActivityRow>(
    `SELECT ${COLUMNS} FROM activity_registry ${where.clause}
      ${where.paged('id', page)}`,
    where.values,
  );
  return rows.map(toActivity);
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
