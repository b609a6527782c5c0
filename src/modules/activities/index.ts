/**
 * The face of the activities module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export {
  activitiesDeveloping,
  competencyActivitiesSql,
  countActivitiesByCompetency,
  findActivityIdsByTagsAndAttributes,
  findRegisteredActivities,
  findRegisteredActivity,
  findRegisteredOutside,
  registeredActivitiesSql,
} from './activity-registry.service.js';
export { registeredRequiresSuccessSql, requiresSuccessSql } from './activity-success.service.js';
