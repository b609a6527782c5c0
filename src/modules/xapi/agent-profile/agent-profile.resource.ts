import type { DocumentResource } from '../documents/document.routes.js';

/** `/xapi/agents/profile` (interface 4.5; xAPI 2.0 Part 3 §4.2.7). */
export const agentProfileResource: DocumentResource = {
  kind: 'agent_profile',
  path: '/xapi/agents/profile',
  idParameter: 'profileId',
  byActivity: false,
  byAgent: true,
  hasRegistration: false,
  noun: 'agent profile',
  tag: 'xapi-agent-profile',
};
