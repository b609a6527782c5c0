import type { SqlClient } from '../../platform/database/sql-client.js';
import { badRequest } from '../../platform/http/app-error.js';
import type { Principal } from '../../kernel/principal.js';
import { getTenantSettings } from './tenant-settings.service.js';
import { compileCriteria, Parameters, readCriteria } from './actor-search-compiler.js';
import { findMatchingActors } from './actor-search.repository.js';
import { ACTOR_KINDS, type ActorKind } from './actor.repository.js';
import { showActors, type ActorDomains } from './actor.service.js';
import { readableActorCondition } from './person-access.service.js';

/** The search's errors, `actors.reason`. */
export const ActorSearchErrors = {
  invalidCriteria: (path: string, message: string) =>
    badRequest('actors.invalid_criteria', `The search body is invalid: ${path || 'the body'} ${message}.`, { path }),
  invalidPage: (name: 'limit' | 'skip' | 'kind', message: string) =>
    badRequest('request.invalid', `Invalid request: querystring/${name} ${message}.`, {
      problems: [{ location: 'querystring', path: `/${name}`, message }],
    }),
};

/**
 * `limit`, `skip` and `kind` (the people by default, as GET /api/actors) as sent. The route checks
 * its whole request itself (its body schema only describes), so the page's bounds are read here;
 * the app's strict-integer hook has already refused anything that is not a plain decimal integer.
 */
export function readPage(query: Record<string, unknown>): { limit: number; skip: number; kind: ActorKind } {
  const read = (name: 'limit' | 'skip', fallback: number, min: number, max: number) => {
    const sent = query[name];
    if (sent === undefined) return fallback;
    const value = typeof sent === 'string' ? Number(sent) : Number.NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      throw ActorSearchErrors.invalidPage(
        name,
        max === Number.MAX_SAFE_INTEGER ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${max}`,
      );
    }
    return value;
  };
  const kind = query.kind ?? 'people';
  if (!(ACTOR_KINDS as readonly unknown[]).includes(kind))
    throw ActorSearchErrors.invalidPage('kind', `must be one of ${ACTOR_KINDS.join(', ')}`);
  return { limit: read('limit', 100, 1, 1000), skip: read('skip', 0, 0, Number.MAX_SAFE_INTEGER), kind: kind as ActorKind };
}

/** The body `{criteria}`, read and checked: the first bad node answers 400 with its JSON pointer. */
function readBody(body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw ActorSearchErrors.invalidCriteria('', 'must be an object {"criteria": …}');
  const extra = Object.keys(body).find((key) => key !== 'criteria');
  if (extra !== undefined)
    throw ActorSearchErrors.invalidCriteria(
      `/${extra.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      'is not a property of the search body (criteria)',
    );
  if (!('criteria' in body)) throw ActorSearchErrors.invalidCriteria('/criteria', 'is required ({} matches every actor)');
  const reading = readCriteria(body.criteria);
  if (!reading.ok) throw ActorSearchErrors.invalidCriteria(reading.path, reading.message);
  return reading.criteria;
}

/**
 * `POST /api/actors/search`: the tenant's actors, agents and groups, that the criteria match,
 * a page of them in agent-key order shaped as GET /api/actors shapes them (showActors: the
 * enrichment read now), and how many match in all; only people `principal` may read, when it
 * does not read everyone (person-access.service.ts).
 */
export async function searchActors(
  sql: SqlClient,
  principal: Principal,
  body: unknown,
  query: Record<string, unknown>,
  domains: ActorDomains,
): Promise<{ actors: Record<string, unknown>[]; total: number }> {
  const tenant = principal.tenant;
  const page = readPage(query);
  const criteria = readBody(body);
  const settings = await getTenantSettings(sql, tenant, domains.baseDomain);
  const parameters = new Parameters([tenant.id]);
  const condition = compileCriteria(
    criteria,
    { tenantParameter: '$1', organisationAttribute: settings.organisationAttribute, jobAttribute: settings.jobAttribute },
    parameters,
  );
  const readable = readableActorCondition(principal, 'a', '$1', (value) => parameters.add(value));
  const found = await findMatchingActors(
    sql,
    tenant.id,
    readable === undefined ? condition : `${condition} AND ${readable}`,
    parameters,
    page,
  );
  return { actors: await showActors(sql, tenant, found.actors, domains, settings), total: found.total };
}
