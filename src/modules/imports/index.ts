/**
 * The face of the imports module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export { IMPORT_FILE_KINDS, importFileContents } from './import-file.service.js';
export type { ImportFileKind, ImportFileOutcome } from './import-file.service.js';
export type { JobsCheck, OrganisationCheck } from './organisation-import.service.js';
export type { UserImportMode } from './users/user-sync-rules.js';
export type { UserSyncContext } from './users/user-sync.service.js';
