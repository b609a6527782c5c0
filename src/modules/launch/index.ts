/**
 * The face of the launch module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export type { LaunchSessionService } from './launch-session.service.js';
export type { LaunchServices } from './launch.module.js';
