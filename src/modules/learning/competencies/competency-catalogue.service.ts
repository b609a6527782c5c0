import type { SqlClient } from '../../../platform/database/sql-client.js';
import { activitiesDeveloping, countActivitiesByCompetency } from '../../activities/index.js';
import { listCatalogue, readCompetency, storeCompetencies, listJobs } from '../../organisation/index.js';
import { type CaseItem, frameworkEntries } from './competency-framework-rules.js';

/** A page of the catalogue, each competency with how many jobs require it and activities develop it. */
export async function competencyCatalogue(sql: SqlClient, tenantId: string, page: { q?: string; limit: number; skip: number }) {
  const { competencies, total } = await listCatalogue(sql, tenantId, page);
  const activities = await countActivitiesByCompetency(
    sql,
    tenantId,
    competencies.map((competency) => competency.id),
  );
  return {
    competencies: competencies.map(({ id, name, description, jobs }) => ({
      id,
      name,
      description,
      jobs,
      activities: activities.get(id) ?? 0,
    })),
    total,
  };
}

/** One competency with the jobs requiring it and the activities developing it (404 when unknown). */
export async function competencyWithUses(sql: SqlClient, tenantId: string, id: string) {
  const competency = await readCompetency(sql, tenantId, id);
  const jobIds = new Set(competency.jobIds);
  const jobs =
    jobIds.size === 0
      ? []
      : (await listJobs(sql, tenantId)).filter((job) => jobIds.has(job.id)).map(({ id: jobId, name }) => ({ id: jobId, name }));
  const activities = (await activitiesDeveloping(sql, tenantId, [id])).map(({ activity }) => {
    const name = activity.definition.name as Record<string, string> | undefined;
    return name === undefined ? { id: activity.id } : { id: activity.id, name };
  });
  return { id: competency.id, name: competency.name, description: competency.description, jobs, activities };
}

/** A CASE package as the route's schema lets it through: the CFItems read, the CFDocument's identifier and title. */
export interface CasePackage {
  CFDocument?: { identifier?: string | null; title?: string | null };
  CFItems: CaseItem[];
}

/**
 * `PUT /api/competencies/case`: the CFItems of a CASE framework (those of `itemTypes` only, when
 * given) into the catalogue, each as the competency frameworkEntry makes of it, stored as PUT
 * /api/competencies stores (matched by name, all or nothing). A problem names the CFItem by its
 * place among the CFItems, and the fields its name or description came from.
 */
export async function importCaseFramework(sql: SqlClient, tenantId: string, body: CasePackage, itemTypes?: readonly string[]) {
  const { entries, skipped } = frameworkEntries(body.CFItems, itemTypes);
  const competencies = entries.map(({ name, description }) => ({ name, description }));
  const stored = await storeCompetencies(sql, tenantId, competencies, (problems) =>
    problems.map((problem) => {
      const entry = entries[problem.index];
      const message = problem.message.replace(/the entry at index (\d+)/, (_, at) => `the CFItem at index ${entries[Number(at)].index}`);
      return { index: entry.index, field: problem.field === 'name' ? entry.nameFrom : 'fullStatement', message };
    }),
  );
  const document = body.CFDocument;
  return {
    framework: {
      ...(document?.identifier ? { identifier: document.identifier } : {}),
      ...(document?.title ? { title: document.title } : {}),
    },
    competencies: stored.map((competency, i) => {
      const identifier = entries[i].identifier;
      return identifier === undefined ? competency : { ...competency, caseIdentifier: identifier };
    }),
    skipped,
  };
}
