import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { badRequest } from '../../../platform/http/app-error.js';
import type { Principal } from '../../../kernel/principal.js';

import { findMatchingActors } from '../search/actor-search.repository.js';
import { findActorByKey } from '../actor-lookup.service.js';
import { showActors, type ActorDomains } from '../actor.service.js';
import { PersonAccessErrors, agentKeyNamed, mayRead, readableActorCondition, directReportCondition } from './person-access.service.js';

/** What `GET /api/actors/reports` is asked: whose reports (neither: the caller's own), and the page. */
export interface DirectReportsQuery {
  agent?: string;
  actorId?: string;
  limit: number;
  skip: number;
}

/** The manager whose reports are asked for: the one `agent` or `actorId` names, else the caller's own actor. */
function managerAsked(principal: Principal, query: DirectReportsQuery): string {
  const named = agentKeyNamed(query) ?? principal.agentKey;
  if (named !== undefined) return named;
  throw badRequest(
    'actors.invalid_query',
    "An API key or an admin has no actor of its own: name the manager with 'agent' (an xAPI agent as JSON) or 'actorId' (<ifi_property>|<ifi_value>).",
    { parameter: 'agent' },
  );
}

/**
 * `GET /api/actors/reports`: a page of a manager's reports (the people whose position lies
 * strictly below the manager's, at any depth: person-access.service.ts), of those the caller may
 * read, shaped and ordered as GET /api/actors, and how many there are in all. A manager the caller
 * may not read, or that the tenant does not have, is 404 `actors.not_found`.
 */
export async function listDirectReports(
  sql: SqlClient,
  principal: Principal,
  query: DirectReportsQuery,
  domains: ActorDomains,
): Promise<{ actors: Record<string, unknown>[]; total: number }> {
  const manager = managerAsked(principal, query);
  if (!(await mayRead(sql, principal, manager)) || !(await findActorByKey(sql, principal.tenant.id, manager))) {
    throw PersonAccessErrors.notFound(manager);
  }
  const parameters = new SqlValues([principal.tenant.id]);
  const reports = directReportCondition('a', '$1', parameters.bind(manager));
  const readable = readableActorCondition(principal, 'a', '$1', (value) => parameters.bind(value));
  const found = await findMatchingActors(
    sql,
    principal.tenant.id,
    readable === undefined ? reports : `${reports} AND ${readable}`,
    parameters,
    {
      limit: query.limit,
      skip: query.skip,
      kind: 'people',
    },
  );
  return { actors: await showActors(sql, principal.tenant, found.actors, domains), total: found.total };
}
