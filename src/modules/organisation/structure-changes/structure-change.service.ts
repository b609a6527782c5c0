import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Job, OrgEntry } from '../organisation.repository.js';
import { compareJobs, compareOrganisationEntries, findNewCompetencyNames, type StructureChanges } from './structure-change.repository.js';

export type { StructureChanges } from './structure-change.repository.js';

/** How many ids (or names) of each kind of change a check shows; the counts are whole. */
export const CHANGE_EXAMPLES = 10;

/** StructureChanges of a job architecture, with the competencies it would add to the catalogue. */
export interface JobArchitectureChanges extends StructureChanges {
  /** The competencies new to the catalogue: how many, and the first names (in the jobs' order). */
  competencies: { added: number; examples: string[] };
}

/**
 * What replacing the tenant's organisation structure with `entries` (checked by org-unit-rules.ts)
 * would add, remove and change, compared with what is stored: one statement, nothing written.
 */
export function compareOrganisation(sql: SqlClient, tenantId: string, entries: readonly OrgEntry[]): Promise<StructureChanges> {
  return compareOrganisationEntries(sql, tenantId, entries, CHANGE_EXAMPLES);
}

/**
 * As compareOrganisation, for the job architecture (checked by job-role-rules.ts), and the
 * competencies the import would add to the catalogue: two statements, nothing written.
 */
export async function compareJobArchitecture(sql: SqlClient, tenantId: string, jobs: readonly Job[]): Promise<JobArchitectureChanges> {
  const changes = await compareJobs(sql, tenantId, jobs, CHANGE_EXAMPLES);
  const fresh = await findNewCompetencyNames(sql, tenantId, jobs, CHANGE_EXAMPLES);
  return { ...changes, competencies: { added: fresh.count, examples: fresh.names } };
}
