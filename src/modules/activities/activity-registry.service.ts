import type { SqlClient } from '../../platform/database/sql-client.js';
import type { ActivitiesChanged } from '../../kernel/activities-changed.port.js';
import { badRequest, notFound } from '../../platform/http/app-error.js';
import { resolveCompetencies } from '../organisation/index.js';
import { checkRegistryEntries, hierarchyProblems, storedParentsToRead, type RegistryProblem } from './activity-registry-rules.js';
import {
  countActivitiesDeveloping,
  findActivitiesDeveloping,
  findCompetencyIdsOf,
  replaceActivityCompetencies,
  findActivities,
  findActivity,
  findActivitiesByIds,
  findActivityIdsMatching,
  findAncestorLinks,
  lockRegistry,
  upsertActivities,
  type ActivityFilter,
  type DevelopingActivity,
  type NewRegisteredActivity,
  type RegisteredActivity,
} from './activity-registry.repository.js';

export type { ActivityFilter, DevelopingActivity, RegisteredActivity } from './activity-registry.repository.js';

/** The registry's errors, `activities.reason` (docs/activities.md). */
export const ActivityRegistryErrors = {
  invalid: (problems: RegistryProblem[]) =>
    badRequest(
      'activities.invalid',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the activities (listed in details.problems, index counting from 0); nothing was stored.`,
      { problems },
    ),
  notAnArray: () =>
    badRequest('activities.invalid', 'The body must be a JSON array of registry entries; nothing was stored.', { problems: [] }),
  notFound: (id: string) => notFound('activities.not_found', 'No registered activity has this id.', { activityId: id }),
};

/**
 * `PUT /api/activities`: checks every entry and, when all are good, inserts or replaces them in
 * one transaction; entries the body does not name stay as they were. The tenant's registry lock
 * is taken before the stored hierarchy is read, so the unknown-parent and cycle checks see a tree
 * no other write can change until this one commits. Each competency an entry names must be in
 * the tenant's catalogue (matched case-insensitively); the entry is linked to it. What the modules
 * above keep from the registry (`activitiesChanges`) follows in the same transaction. Returns how
 * many entries were stored.
 */
export async function registerActivities(
  sql: SqlClient,
  tenantId: string,
  body: unknown,
  activitiesChanges: readonly ActivitiesChanged[],
): Promise<number> {
  if (!Array.isArray(body)) throw ActivityRegistryErrors.notAnArray();
  const checked = checkRegistryEntries(body);
  await sql.transaction(async (tx) => {
    await lockRegistry(tx, tenantId);
    const stored = await findAncestorLinks(tx, tenantId, storedParentsToRead(checked.links));
    const named = await namedCompetencies(tx, tenantId, checked.entries, checked.problems);
    const problems = [...checked.problems, ...hierarchyProblems(checked.links, stored), ...named.problems];
    if (problems.length > 0) throw ActivityRegistryErrors.invalid(problems.sort((a, b) => a.index - b.index));
    await upsertActivities(tx, tenantId, checked.entries);
    await replaceActivityCompetencies(tx, tenantId, named.links);
    const ids = checked.entries.map((entry) => entry.id);
    for (const changed of activitiesChanges) await changed(tx, tenantId, ids);
  });
  return checked.entries.length;
}

/**
 * The catalogue competencies the entries name (entries whose `competencies` are already refused
 * are left out): each entry's competency ids, and a problem for every name the catalogue lacks.
 */
async function namedCompetencies(
  tx: SqlClient,
  tenantId: string,
  entries: readonly NewRegisteredActivity[],
  refused: readonly RegistryProblem[],
): Promise<{ links: Map<string, string[]>; problems: RegistryProblem[] }> {
  const badLists = new Set(refused.filter((problem) => problem.field.startsWith('competencies')).map((problem) => problem.index));
  const checked = entries.flatMap((entry, index) => (badLists.has(index) || !Array.isArray(entry.competencies) ? [] : [{ entry, index }]));
  const names = [...new Set(checked.flatMap(({ entry }) => entry.competencies))];
  const resolved = new Map((await resolveCompetencies(tx, tenantId, names)).map((competency, i) => [names[i], competency]));
  const links = new Map<string, string[]>();
  const problems: RegistryProblem[] = [];
  for (const { entry, index } of checked) {
    const ids: string[] = [];
    entry.competencies.forEach((name, i) => {
      const competency = resolved.get(name);
      if (competency) ids.push(competency.id);
      else
        problems.push({
          index,
          id: entry.id,
          field: `competencies[${i}]`,
          message: `${JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name)} names no competency of the catalogue (GET /api/competencies lists them; PUT /api/competencies or a job import adds one)`,
        });
    });
    links.set(entry.id, ids);
  }
  return { links, problems };
}

/**
 * The registry entry of `activityId`, or undefined. The launch (GET /api/activities/launch) and
 * the Activities Resource read entries through this.
 */
export async function findRegisteredActivity(
  sql: SqlClient,
  tenantId: string,
  activityId: string,
): Promise<RegisteredActivity | undefined> {
  return findActivity(sql, tenantId, activityId);
}

/** `GET /api/activities/item`: the entry, or 404 `activities.not_found`. */
export async function readRegisteredActivity(sql: SqlClient, tenantId: string, activityId: string): Promise<RegisteredActivity> {
  const activity = await findActivity(sql, tenantId, activityId);
  if (!activity) throw ActivityRegistryErrors.notFound(activityId);
  return activity;
}

/** `GET /api/activities`: a page of entries in id order, and how many match in all. */
export function listRegisteredActivities(
  sql: SqlClient,
  tenantId: string,
  filter: ActivityFilter,
  page: { limit: number; skip: number },
): Promise<{ activities: RegisteredActivity[]; total: number }> {
  return findActivities(sql, tenantId, filter, page);
}

/** The registry entries of `ids` the tenant has, by id (notifications copy their definitions). */
export async function findRegisteredActivities(
  sql: SqlClient,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, RegisteredActivity>> {
  return new Map((await findActivitiesByIds(sql, tenantId, ids)).map((activity) => [activity.id, activity]));
}

/**
 * The ids of the registered activities having all of `tags` and each of `attributes` with
 * exactly its value (the notifications' `activity:tags` and `activity:attribute:{name}`).
 */
export function findActivityIdsByTagsAndAttributes(
  sql: SqlClient,
  tenantId: string,
  match: { tags: readonly string[]; attributes: Readonly<Record<string, string>> },
): Promise<string[]> {
  return findActivityIdsMatching(sql, tenantId, match);
}

/**
 * The activities among `ids` that the registry holds outside `rootId`'s subtree: registered, and
 * neither `rootId` nor below it (through parentId, any depth). A launch token's statements may
 * not be about these (xapi's statement.service.ts).
 */
export async function findRegisteredOutside(sql: SqlClient, tenantId: string, ids: readonly string[], rootId: string): Promise<string[]> {
  if (ids.length === 0) return [];
  const parents = await findAncestorLinks(sql, tenantId, ids);
  const inside = (id: string): boolean => {
    const seen = new Set<string>();
    for (let at: string | null | undefined = id; at !== null && at !== undefined && !seen.has(at); at = parents.get(at)) {
      if (at === rootId) return true;
      seen.add(at);
    }
    return false;
  };
  return ids.filter((id) => parents.has(id) && !inside(id));
}

/** The registered activities developing any of `competencyIds`, in id order, each with the asked competencies it develops. */
export function activitiesDeveloping(sql: SqlClient, tenantId: string, competencyIds: readonly string[]): Promise<DevelopingActivity[]> {
  return findActivitiesDeveloping(sql, tenantId, competencyIds);
}

/** How many registered activities develop each of `competencyIds` (absent: none). */
export function countActivitiesByCompetency(
  sql: SqlClient,
  tenantId: string,
  competencyIds: readonly string[],
): Promise<Map<string, number>> {
  return countActivitiesDeveloping(sql, tenantId, competencyIds);
}

/** The competency ids each of `activityIds` develops (activities developing none are absent). */
export function competencyIdsOfActivities(
  sql: SqlClient,
  tenantId: string,
  activityIds: readonly string[],
): Promise<Map<string, string[]>> {
  return findCompetencyIdsOf(sql, tenantId, activityIds);
}

/**
 * SQL of the registered activities and the competencies each develops, one row per pair, where
 * `matching` holds, for a statement of another module (skills gaps, recommendations). Columns:
 * `activity_id`, `competency_id` (uuid), `requires_success` (a completion counts only when passed),
 * `name` (the definition's `name` language map, jsonb, or NULL), `launch_url` (or NULL).
 * `matching` is a condition over `ac.activity_id`, `ac.competency_id`; values bound by the caller.
 * activity_competencies' primary key serves a condition on the activity, its
 * (tenant_id, competency_id, activity_id) index one on the competencies.
 */
export const competencyActivitiesSql = (tenantParameter: string, matching: string): string =>
  `SELECT ac.activity_id, ac.competency_id, ar.requires_success, ar.definition -> 'name' AS name, ar.launch_url
     FROM activity_competencies ac
     JOIN activity_registry ar ON ar.tenant_id = ${tenantParameter} AND ar.id = ac.activity_id
    WHERE ac.tenant_id = ${tenantParameter} AND ${matching}`;

/**
 * The tenant's registered activities as SQL another module embeds in one statement (reports):
 * all of them, or with `tag` (a placeholder) those tagged with it, or with `id` (a placeholder)
 * the one entry with that id. Columns: `id`, `requires_success` (boolean: only passing completes
 * it), `name` (the definition's `name` language map, jsonb; NULL when it has none).
 */
export function registeredActivitiesSql(tenantParameter: string, filter: { tag?: string; id?: string } = {}): string {
  const conditions = [`r.tenant_id = ${tenantParameter}`];
  if (filter.tag !== undefined) conditions.push(`r.tags @> ARRAY[${filter.tag}::text]`);
  if (filter.id !== undefined) conditions.push(`r.id = ${filter.id}`);
  return `SELECT r.id, r.requires_success, r.definition -> 'name' AS name FROM activity_registry r WHERE ${conditions.join(' AND ')}`;
}
