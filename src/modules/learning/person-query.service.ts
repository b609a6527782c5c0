import type { SqlClient } from '../../platform/database/sql-client.js';
import { AppError, badRequest } from '../../platform/http/app-error.js';
import { parseActorId, parseAgentParameter } from '../../kernel/agent.js';
import { isTenantWide, type Principal } from '../../kernel/principal.js';
import { requireReadable } from '../actors/index.js';

/** How a route over one person's learning data names the person: `agent` (xAPI agent JSON) or `actorId`, or neither. */
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

const invalidQuery = (parameter: string, message: string) => badRequest('learning.invalid_query', message, { parameter });
const forbidden = (message = 'A launch token may only read the learning data of its own person.') =>
  new AppError('learning.forbidden', 403, message);

/**
 * The one place that says whether `principal` may read the learning data (assignments, skills
 * gaps, recommendations) of the person `query` names, and which person that is. Who reaches whom
 * is the actors module's rule (actors' people/person-access.service.ts, docs/learning.md "Scoped
 * administration and managers"); this adds how a learning route names the person:
 *
 * - an admin or an API key must name the person (it has no person of its own): anyone of its
 *   tenant, or, limited to an organisation subtree, anyone placed in it;
 * - a learner credential names nobody to mean itself, or names one of its reports (a manager);
 * - a launch token reads only its own person, narrowed to its launch's activity and its registry
 *   descendants (where a route serves launch tokens at all: personAsked refuses them); naming
 *   anyone else is 403 `learning.forbidden`, before anything is read;
 * - a person named but out of reach (outside the scope, not a report, or not stored): 404
 *   `actors.not_found`, the same answer whether they exist or not.
 */
export async function readablePerson(sql: SqlClient, principal: Principal, query: PersonQuery): Promise<ReadablePerson> {
  if (query.agent !== undefined && query.actorId !== undefined) {
    throw invalidQuery(
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
      throw invalidQuery(
        'agent',
        "An API key or an admin has no person of its own: name the person with 'agent' (an xAPI agent as JSON) or 'actorId' (<ifi_property>|<ifi_value>).",
      );
    }
    await requireReadable(sql, principal, named);
    return { agentKey: named };
  }
  const own = principal.agentKey;
  if (own === undefined) throw forbidden();
  if (principal.kind === 'launch') {
    if (named !== undefined && named !== own) throw forbidden();
    return principal.activityId === undefined ? { agentKey: own } : { agentKey: own, activityId: principal.activityId };
  }
  if (named === undefined || named === own) return { agentKey: own };
  await requireReadable(sql, principal, named);
  return { agentKey: named };
}

/**
 * The agent key of the person a skills gap or recommendations request asks about (readablePerson).
 * A launch token is refused before anything is read: it stands for one activity, not for the
 * learner's whole record.
 */
export async function personAsked(sql: SqlClient, principal: Principal, query: PersonQuery): Promise<string> {
  if (principal.kind === 'launch') {
    throw forbidden('A launch token reads its own activity only; skills gaps and recommendations need the learner credential or an admin.');
  }
  return (await readablePerson(sql, principal, query)).agentKey;
}
