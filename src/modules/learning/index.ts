/**
 * The face of the learning module: all another module or an entry may import from it
 * (docs/architecture.md, "Modules"; .dependency-cruiser.cjs refuses an import of any other file
 * of the module). The command line's `reports verify` and `rebuild` use its kept counts.
 */
export type { LearningServices } from './learning.module.js';
export type { KeptCounts } from './reports/kept-counts.service.js';
export type { CountDifferences } from './reports/kept-counts.repository.js';
