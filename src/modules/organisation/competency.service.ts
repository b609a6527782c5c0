import type { SqlClient } from '../../platform/database/sql-client.js';
import { badRequest, notFound } from '../../platform/http/app-error.js';
import { textProblem } from '../../platform/json-guard.js';
import {
  duplicateNames,
  findCatalogue,
  findCompetenciesById,
  findJobCompetencies,
  lockCatalogue,
  resolveCompetencyNames,
  upsertCompetencies,
  type CatalogueCompetency,
  type Competency,
} from './competency.repository.js';

export type { CatalogueCompetency, Competency };

/** Longest competency name and description, in characters (code points), as the job import allows. */
export const MAX_COMPETENCY_NAME = 1_000;
export const MAX_COMPETENCY_DESCRIPTION = 10_000;
/** Competencies one PUT /api/competencies may carry. */
export const MAX_COMPETENCIES_PER_WRITE = 10_000;

export const CompetencyErrors = {
  notFound: (id: string) => notFound('competencies.not_found', `No competency of this tenant has the id ${JSON.stringify(id)}.`, { id }),
  invalid: (problems: CompetencyProblem[]) =>
    badRequest(
      'competencies.invalid',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the competencies (listed in details.problems, index counting from 0); nothing was stored.`,
      { problems },
    ),
};

export interface CompetencyProblem {
  index: number;
  field: string;
  message: string;
}

const codePoints = (text: string) => [...text].length;

/** What is wrong with one competency of PUT /api/competencies (its shape is the route schema's). */
function problemsOf(competency: { name: string; description?: string }, index: number): CompetencyProblem[] {
  const problems: CompetencyProblem[] = [];
  const { name, description } = competency;
  if (name.trim() === '') problems.push({ index, field: 'name', message: 'must not be empty or only spaces' });
  else if (codePoints(name) > MAX_COMPETENCY_NAME)
    problems.push({ index, field: 'name', message: `is longer than ${MAX_COMPETENCY_NAME} characters` });
  const nameText = textProblem(name);
  if (nameText) problems.push({ index, field: 'name', message: nameText.why });
  if (description !== undefined) {
    if (codePoints(description) > MAX_COMPETENCY_DESCRIPTION)
      problems.push({ index, field: 'description', message: `is longer than ${MAX_COMPETENCY_DESCRIPTION} characters` });
    const descriptionText = textProblem(description);
    if (descriptionText) problems.push({ index, field: 'description', message: descriptionText.why });
  }
  return problems;
}

/**
 * PUT /api/competencies: adds the competencies named, or updates the spelling (and the
 * description, when one is sent) of those the catalogue has under the same name, matched
 * case-insensitively. All or nothing: any bad entry refuses the whole request. A caller that built
 * the entries from another shape (a CASE framework) names the problems in that shape with `restate`.
 */
export async function storeCompetencies(
  sql: SqlClient,
  tenantId: string,
  competencies: readonly { name: string; description?: string }[],
  restate: (problems: CompetencyProblem[]) => CompetencyProblem[] = (problems) => problems,
): Promise<Array<Competency & { created: boolean }>> {
  const problems = await competencyProblems(sql, competencies);
  if (problems.length > 0) throw CompetencyErrors.invalid(restate(problems));
  return sql.transaction(async (tx) => {
    await lockCatalogue(tx, tenantId);
    return upsertCompetencies(tx, tenantId, competencies);
  });
}

/**
 * What storeCompetencies refuses in `competencies`, by index (in index order): each entry's own
 * problems, and a name that repeats an earlier one case-insensitively. Empty: it stores them.
 */
async function competencyProblems(
  sql: SqlClient,
  competencies: readonly { name: string; description?: string }[],
): Promise<CompetencyProblem[]> {
  const problems = competencies.flatMap(problemsOf);
  const textual = new Set(problems.map((problem) => problem.index));
  // Names PostgreSQL cannot hold are not compared with the others.
  const comparable = competencies.map((competency, index) => (textual.has(index) ? `\u0001${index}` : competency.name));
  for (const { index, first } of await duplicateNames(sql, comparable)) {
    problems.push({
      index,
      field: 'name',
      message: `names the same competency as the entry at index ${first} (names match case-insensitively)`,
    });
  }
  return problems.sort((a, b) => a.index - b.index);
}

/** A page of the catalogue in name order, `q` matching names that contain it (case-insensitively). */
export function listCatalogue(
  sql: SqlClient,
  tenantId: string,
  page: { q?: string; limit: number; skip: number },
): Promise<{ competencies: CatalogueCompetency[]; total: number }> {
  return findCatalogue(sql, tenantId, page);
}

/** One competency with the jobs requiring it; 404 when the tenant has none with this id. */
export async function readCompetency(sql: SqlClient, tenantId: string, id: string): Promise<Competency & { jobIds: string[] }> {
  const [found] = await findCompetenciesById(sql, tenantId, [id]);
  if (!found) throw CompetencyErrors.notFound(id);
  return found;
}

/** The competencies with these ids, each with the jobs requiring it; unknown ids are absent. */
export function competenciesById(
  sql: SqlClient,
  tenantId: string,
  ids: readonly string[],
): Promise<Array<Competency & { jobIds: string[] }>> {
  return findCompetenciesById(sql, tenantId, ids);
}

/** The catalogue competency each name matches (case-insensitively), undefined where none does, in order. */
export function resolveCompetencies(sql: SqlClient, tenantId: string, names: readonly string[]): Promise<Array<Competency | undefined>> {
  return resolveCompetencyNames(sql, tenantId, names);
}

/** The competencies each job requires, in the job's order; jobs without any are absent. */
export function jobCompetencies(sql: SqlClient, tenantId: string, jobIds: readonly string[]): Promise<Map<string, Competency[]>> {
  return findJobCompetencies(sql, tenantId, jobIds);
}

/**
 * SQL of the tenant's job requirements, for a statement of another module (a group's skills
 * gap): which competencies each job requires. Columns: `job_id`, `competency_id` (uuid),
 * `position` (the competency's place in the job, from 1). The primary key
 * (tenant_id, job_id, competency_id) serves a join on the job.
 */
export const jobCompetenciesSql = (tenantParameter: string): string =>
  `SELECT jc.job_id, jc.competency_id, jc.position FROM job_competencies jc WHERE jc.tenant_id = ${tenantParameter}`;
