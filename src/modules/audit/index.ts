/**
 * The face of the audit module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export { recordAudit, recordAudits, sourceOfHeader } from './audit.service.js';
