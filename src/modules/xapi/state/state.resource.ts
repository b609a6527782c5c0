import type { DocumentResource } from '../documents/document.routes.js';

/** `/xapi/activities/state` (interface 4.3; xAPI 2.0 Part 3 §4.2.6). */
export const stateResource: DocumentResource = {
  kind: 'state',
  path: '/xapi/activities/state',
  idParameter: 'stateId',
  byActivity: true,
  byAgent: true,
  hasRegistration: true,
  noun: 'state document',
  tag: 'xapi-state',
};
