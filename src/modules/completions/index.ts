/**
 * The face of the completions module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export { activityProgressSql } from './completion-progress.service.js';
export { completionRecordsSql, recordsTouchedBy } from './completion.service.js';
