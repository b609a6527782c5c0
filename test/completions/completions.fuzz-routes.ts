import fc from 'fast-check';
import { hostileHeader } from '../fuzz/hostile-values.js';
import { apiHeaders, header, param, route, type RouteFuzzer } from '../fuzz/requests.js';
import { ACTIVITIES, actorIdParameter, agentParameter, hostileActorId, hostileAgentParameter, hostileIri } from '../fuzz/xapi-values.js';

/** Completion records (issue 15, item 9). */
export const COMPLETIONS_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/actors/completions': (ctx) =>
    route({
      method: 'GET',
      path: '/api/actors/completions',
      query: {
        agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
        activityId: param('activityId', fc.constantFrom(...ACTIVITIES), { hostile: hostileIri }),
        status: param('status', fc.constantFrom('in-progress', 'completed', 'passed,failed', 'in-progress,completed,passed,failed'), {
          hostile: fc.constantFrom('done', 'passed,', ',', 'PASSED'),
        }),
        expand: param('expand', fc.constant('hierarchy'), { hostile: fc.constantFrom('all', 'Hierarchy', '') }),
      },
      headers: {
        ...apiHeaders(ctx, false),
        'accept-version': header(fc.constantFrom(undefined, '2.0.0'), fc.oneof(fc.constantFrom('1.0.0', '2', '2.0.0 ', ''), hostileHeader)),
      },
    }),
};
