import type { SqlClient } from '../../platform/database/sql-client.js';
import { parseActorId, parseAgentParameter } from '../../kernel/agent.js';
import { isTenantWide, type Principal } from '../../kernel/principal.js';
import { AssignmentErrors } from './assignment.errors.js';

/** How a route over one person's learning data names the person: `agent` (xAPI agent JSON) or `actorId`. */
export interface PersonQuery {
  agent?: string;
  actorId?: string;
}

/** The person a principal may read, and how far. */
export interface ReadablePerson {
  agentKey: string;
  /** A launch token's activity: only it, and what the registry puts below it, may be read. */
  activityId?: string;
}

/**
 * The one place that says whether `principal` may read the learning data (assignments now; skills
 * gaps and the rest after) of the person `query` names, and which person that is:
 *
 * - an admin or an API key reads anyone of its tenant, and must name them (it has no person of its own);
 * - a learner credential reads only its own person, and names nobody to mean itself;
 * - a launch token reads only its own person, narrowed to its launch's activity and its registry
 *   descendants;
 * - anyone else's: 403 `learning.forbidden`.
 *
 * Managers (a principal reading the people of the positions below its own, issue 28 item 5) slot
 * in here: the check then reads the organisation, hence `sql` and the promise.
 */
export async function readablePerson(_sql: SqlClient, principal: Principal, query: PersonQuery): Promise<ReadablePerson> {
  if (query.agent !== undefined && query.actorId !== undefined) {
    throw AssignmentErrors.invalidQuery(
      'actorId',
      "Send at most one of 'agent' (an xAPI agent as JSON) and 'actorId' (<ifi_property>|<ifi_value>), not both.",
    );
  }
  const named =
    query.agent !== undefined
      ? parseAgentParameter(query.agent).key
      : query.actorId !== undefined
        ? parseActorId(query.actorId).key
        : undefined;
  if (isTenantWide(principal)) {
    if (named === undefined) {
      throw AssignmentErrors.invalidQuery(
        'agent',
        "An API key or an admin has no person of its own: name the person with 'agent' (an xAPI agent as JSON) or 'actorId' (<ifi_property>|<ifi_value>).",
      );
    }
    return { agentKey: named };
  }
  const own = principal.agentKey;
  if (own === undefined || (named !== undefined && named !== own)) throw AssignmentErrors.forbidden();
  return principal.kind === 'launch' && principal.activityId !== undefined
    ? { agentKey: own, activityId: principal.activityId }
    : { agentKey: own };
}
