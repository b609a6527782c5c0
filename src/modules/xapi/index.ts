/**
 * The face of the xapi module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export { statementTalliesSql, statementTotals } from './statements/statement-tally.service.js';
export { storeStatements } from './statements/statement.service.js';
export type { StatementStore } from './statements/statement.service.js';
export { xapiPlugin } from './xapi.plugin.js';
