/**
 * The organisation's part of an actor search (actors' actor-search-compiler.ts): the sets of entry
 * and job ids a condition selects, as SQL text the search embeds in its one statement. The
 * organisation module owns these tables and their reads; the search owns its conditions, written
 * over the columns named here (`o.id`, `o.attributes`; `j.id`, `j.name`, `j.attributes`,
 * `j.competencies`), their values bound by the caller's placeholders.
 */

/**
 * The ids of the tenant's organisation entries where `matching` holds (over `o`); `below`: the
 * entries under such an entry instead, at any depth. UNION drops rows already reached, so even a
 * cycle (which imports refuse) ends the walk.
 */
export function organisationEntryIdsSql(tenantParameter: string, matching: string, below: boolean): string {
  const matched = `SELECT o.id FROM organisation_entries o WHERE o.tenant_id = ${tenantParameter} AND ${matching}`;
  if (!below) return matched;
  return `WITH RECURSIVE matched AS (${matched}), below AS (
         SELECT c.id FROM organisation_entries c JOIN matched m ON c.tenant_id = ${tenantParameter} AND c.parent_id = m.id
         UNION
         SELECT c.id FROM below b JOIN organisation_entries c ON c.tenant_id = ${tenantParameter} AND c.parent_id = b.id
       ) SELECT id FROM below`;
}

/** The ids of the tenant's jobs where `matching` holds (over `j`). */
export const jobIdsSql = (tenantParameter: string, matching: string): string =>
  `SELECT j.id FROM jobs j WHERE j.tenant_id = ${tenantParameter} AND ${matching}`;

/**
 * The ids of the tenant's organisation entries (positions) whose attribute named by the text
 * parameter `attributeParameter` (the `positionJobAttribute` setting) holds one of `jobs` (an SQL
 * set of job ids, such as jobIdsSql's): the positions of those jobs. Column: `id`.
 */
export const positionIdsOfJobsSql = (tenantParameter: string, attributeParameter: string, jobs: string): string =>
  `SELECT o.id FROM organisation_entries o WHERE o.tenant_id = ${tenantParameter} AND (o.attributes ->> ${attributeParameter}) IN (${jobs})`;

/**
 * positionIdsOfJobsSql for a few jobs (`jobs` selects them by id: a job.id eq or in): the same
 * positions, found through the entries' attributes index (containment of `{attribute: job id}`,
 * the attributes being strings) instead of a read of every entry.
 */
export const positionIdsOfFewJobsSql = (tenantParameter: string, attributeParameter: string, jobs: string): string =>
  `SELECT o.id FROM organisation_entries o
    WHERE o.tenant_id = ${tenantParameter}
      AND o.attributes @> ANY(ARRAY(SELECT jsonb_build_object(${attributeParameter}::text, j.id) FROM (${jobs}) j))`;

/**
 * Every position of the tenant whose attribute named by `attributeParameter` (the
 * `positionJobAttribute` setting) is the id of a job of the tenant, with that job. Columns:
 * `id` (the entry's), `job_id`.
 */
export const positionJobsSql = (tenantParameter: string, attributeParameter: string): string =>
  `SELECT o.id, j.id AS job_id FROM organisation_entries o
     JOIN jobs j ON j.tenant_id = ${tenantParameter} AND j.id = (o.attributes ->> ${attributeParameter})
    WHERE o.tenant_id = ${tenantParameter}`;

/**
 * Every position of the tenant that names a job through its attribute named by `attributeParameter`
 * (the `positionJobAttribute` setting; a text expression), whether or not a job has that id: what
 * a position would link to under another job architecture. Columns: `id` (the entry's), `job_id`.
 */
export const positionJobValuesSql = (tenantParameter: string, attributeParameter: string): string =>
  `SELECT o.id, o.attributes ->> ${attributeParameter} AS job_id FROM organisation_entries o
    WHERE o.tenant_id = ${tenantParameter} AND o.attributes ? ${attributeParameter}`;

/** A condition (over a job `j`) on the names of its competencies, `name` a condition over `(c.value ->> 'Name')`. */
export const competencyNameSql = (name: string): string => `EXISTS (SELECT 1 FROM jsonb_array_elements(j.competencies) c WHERE ${name})`;

/**
 * The ids of the entry `root` (an SQL expression: a placeholder, or a subquery giving one id) and
 * of every entry below it, at any depth; `withRoot` false: those below only. A root naming no
 * entry (NULL, or an entry a later import dropped) selects nothing. For the people a scoped
 * credential or a manager reaches (actors' person-access.service.ts), over the column `id`.
 */
export function organisationSubtreeIdsSql(tenantParameter: string, root: string, withRoot: boolean): string {
  return `WITH RECURSIVE subtree AS (
         SELECT o.id FROM organisation_entries o WHERE o.tenant_id = ${tenantParameter} AND o.id = ${root}
         UNION
         SELECT c.id FROM subtree s JOIN organisation_entries c ON c.tenant_id = ${tenantParameter} AND c.parent_id = s.id
       ) SELECT id FROM subtree${withRoot ? '' : ` WHERE id <> ${root}`}`;
}
