/**
 * The face of the imports module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export { importFileContents } from './import-file.service.js';
export type { ImportFileKind } from './import-file.service.js';
export type { UserImportMode } from './users/user-sync-rules.js';
export type { UserSyncContext } from './users/user-sync.service.js';
