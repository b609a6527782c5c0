import type { SqlClient } from '../../platform/database/sql-client.js';
import { activitiesDeveloping, countActivitiesByCompetency } from '../activities/activity-registry.service.js';
import { listCatalogue, readCompetency } from '../organisation/competency.service.js';
import { listJobs } from '../organisation/organisation.service.js';

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
