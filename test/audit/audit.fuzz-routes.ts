import fc from 'fast-check';
import { hostileDate, hostileText, validDate } from '../fuzz/hostile-values.js';
import { apiHeaders, param, plainRoute, route, type RouteFuzzer } from '../fuzz/requests.js';
import { actorIdParameter, agentParameter, hostileActorId, hostileAgentParameter } from '../fuzz/xapi-values.js';
import { pageQuery } from '../fuzz/api-values.js';

/** The audit log (issue 14). */
export const AUDIT_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/audit': (ctx) =>
    route({
      method: 'GET',
      path: '/api/audit',
      query: {
        agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
        source: param('source', fc.constantFrom('hr-sync', 'crm')),
        action: param('action', fc.constantFrom('actor.created', 'launch'), { hostile: hostileText }),
        since: param('since', validDate, { hostile: hostileDate }),
        until: param('until', validDate, { hostile: hostileDate }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/audit/actions': plainRoute('GET', '/api/audit/actions', (ctx) => apiHeaders(ctx, false)),
};
