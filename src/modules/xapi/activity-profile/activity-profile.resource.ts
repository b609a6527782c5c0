import type { DocumentResource } from '../documents/document.routes.js';

/** `/xapi/activities/profile` (interface 4.4; xAPI 2.0 Part 3 §4.2.8). */
export const activityProfileResource: DocumentResource = {
  kind: 'activity_profile',
  path: '/xapi/activities/profile',
  idParameter: 'profileId',
  byActivity: true,
  byAgent: false,
  hasRegistration: false,
  noun: 'activity profile',
  tag: 'xapi-activity-profile',
};
