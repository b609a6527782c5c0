/**
 * The face of the organisation module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export {
  competenciesById,
  jobCompetencies,
  jobCompetenciesSql,
  listCatalogue,
  readCompetency,
  resolveCompetencies,
  storeCompetencies,
} from './competency.service.js';
export type { Competency } from './competency.service.js';
export { checkJobsImport } from './job-role-rules.js';
export { checkOrganisationImport } from './org-unit-rules.js';
export type { ImportCheck, ImportProblem } from './org-unit-rules.js';
export {
  competencyNameSql,
  jobIdsSql,
  organisationEntryIdsSql,
  organisationSubtreeIdsSql,
  positionIdsOfFewJobsSql,
  positionIdsOfJobsSql,
  positionJobValuesSql,
  positionJobsSql,
} from './organisation-search.service.js';
export { JobsImportBody, OrganisationImportBody } from './organisation.schemas.js';
export {
  OrganisationErrors,
  existingJobIds,
  existingOrganisationIds,
  findJobs,
  findOrganisationLinks,
  listJobs,
  readOrganisation,
  refreshOrganisationStatistics,
  replaceJobArchitecture,
  replaceOrganisation,
} from './organisation.service.js';
export type { Job, OrgEntry, OrgLink } from './organisation.service.js';
export { organisationStructure, subtreeOf } from './organisation-copy.service.js';
export type { Structure } from './organisation-copy.service.js';
export { entryTree } from './organisation-tree.js';
export type { EntryTree } from './organisation-tree.js';
export { CHANGE_EXAMPLES, compareJobArchitecture, compareOrganisation } from './structure-changes/structure-change.service.js';
