import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { badRequest } from '../../../platform/http/app-error.js';
import type { Principal } from '../../../kernel/principal.js';
import { getTenantSettings, type TenantSettings } from '../settings/tenant-settings.service.js';
import { compileCriteria, readCriteria, type CompileContext, type Criteria } from './actor-search-compiler.js';
import type { JobLinkSettings } from '../actor-job-rules.js';
import { jobIdsSql, positionJobsSql } from '../../organisation/index.js';
import { findMatchingActors } from './actor-search.repository.js';
import { ACTOR_KINDS, type ActorKind } from '../actor.repository.js';
import { showActors, type ActorDomains } from '../actor.service.js';
import { readableActorCondition } from '../people/person-access.service.js';
import { pointerToken } from '../../../platform/json-pointer.js';

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

export type { Criteria };

/**
 * SQL: the actor `a` is one of the tenant's people: an import or PUT /api/actors/agents wrote it
 * (`imported_at` set: not an agent only statements named), and no identity system deactivated it
 * (docs/identity.md): a deactivated person leaves searches, assignments and reports.
 */
const PERSON = 'a.imported_at IS NOT NULL AND a.deactivated_at IS NULL';

/** The compiler's context for a tenant's settings, the tenant id being `$1`. */
const linkContext = (settings: JobLinkSettings): CompileContext => ({
  tenantParameter: '$1',
  organisationAttribute: settings.organisationAttribute,
  jobAttribute: settings.jobAttribute,
  positionJobAttribute: settings.positionJobAttribute,
});

/**
 * Criteria of the search's language sent inside another body (at JSON pointer `path`), read and
 * checked: the first bad node answers 400 `actors.invalid_criteria` with its pointer.
 */
export function readSearchCriteria(criteria: unknown, path: string): Criteria {
  const reading = readCriteria(criteria, path);
  if (!reading.ok) throw ActorSearchErrors.invalidCriteria(reading.path, reading.message);
  return reading.criteria;
}

/**
 * SQL selecting the tenant's people that `criteria` match, for a statement of another module:
 * the actors an import or PUT /api/actors/agents wrote (`imported_at` set: not the agents only
 * statements named, nor the statements' authorities), each with the id of their current job
 * (actor-job-rules.ts), NULL for none, and the organisation entry their `organisationAttribute`
 * names (NULL likewise; the entry may not exist). Columns: `agent_key`, `job_id`, `position_id`. The tenant id is `$1`
 * of `parameters`; the criteria's values and the settings' attribute names are added to them.
 * The criteria select exactly whom POST /api/actors/search finds with them. `jobs: false` leaves
 * `job_id` NULL, for a caller that needs the people only (and no join with the jobs); `reach`, a
 * condition over the actor `a` (person-access.service.ts readableActorCondition), keeps only the
 * people a principal reaches.
 */
export function peopleSql(
  settings: JobLinkSettings,
  criteria: Criteria,
  parameters: SqlValues,
  options: { jobs?: boolean; reach?: string } = {},
): string {
  const condition = compileCriteria(criteria, linkContext(settings), parameters);
  const jobs = options.jobs ?? true;
  const joins: string[] = [];
  let own = 'NULL::text';
  let ofPosition = 'NULL::text';
  if (jobs && settings.jobAttribute !== null) {
    joins.push(
      `LEFT JOIN (${jobIdsSql('$1', 'true')}) own_job ON own_job.id = (a.attributes ->> ${parameters.bind(settings.jobAttribute)})`,
    );
    own = 'own_job.id';
  }
  if (jobs && settings.organisationAttribute !== null && settings.positionJobAttribute !== null) {
    joins.push(
      `LEFT JOIN (${positionJobsSql('$1', parameters.bind(settings.positionJobAttribute))}) position_job
         ON position_job.id = a.position_id`,
    );
    ofPosition = 'position_job.job_id';
  }
  const reach = options.reach === undefined ? '' : ` AND ${options.reach}`;
  return `SELECT a.agent_key, COALESCE(${own}, ${ofPosition}) AS job_id, a.position_id
            FROM actors a ${joins.join(' ')}
           WHERE a.tenant_id = $1 AND ${PERSON} AND NOT a.authority_only AND ${condition}${reach}`;
}

/** The body `{criteria}`, read and checked: the first bad node answers 400 with its JSON pointer. */
function readBody(body: unknown) {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw ActorSearchErrors.invalidCriteria('', 'must be an object {"criteria": …}');
  const extra = Object.keys(body).find((key) => key !== 'criteria');
  if (extra !== undefined)
    throw ActorSearchErrors.invalidCriteria(`/${pointerToken(extra)}`, 'is not a property of the search body (criteria)');
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
  const parameters = new SqlValues([tenant.id]);
  const condition = compileCriteria(criteria, linkContext(settings), parameters);
  const readable = readableActorCondition(principal, 'a', '$1', (value) => parameters.bind(value));
  const found = await findMatchingActors(
    sql,
    tenant.id,
    readable === undefined ? condition : `${condition} AND ${readable}`,
    parameters,
    page,
  );
  return { actors: await showActors(sql, tenant, found.actors, domains, settings), total: found.total };
}

/**
 * SQL: the agent key `column` is not that of a person an identity system deactivated
 * (docs/identity.md): for a module above that names people by key (learning's assignments made of
 * actor ids), so a deactivated person leaves them too. `$1` is the tenant id.
 */
export function notDeactivatedSql(column: string): string {
  return `NOT EXISTS (SELECT 1 FROM actors d WHERE d.tenant_id = $1 AND d.agent_key = ${column} AND d.deactivated_at IS NOT NULL)`;
}

/**
 * The people among some actors, for a module above that keeps its own record of people (learning's
 * dynamic assignments), as SQL text to embed in one of its statements as a CTE: every column of
 * `actors` (what the criteria read), one row a person. The people are the actors an import or
 * `PUT /api/actors/agents` wrote (`imported_at` set): agents only statements named, groups and
 * statement authorities are never people. `within` is the placeholder of a text[] of agent keys
 * (those a write changed); `$1` is the tenant id. peopleMatchingSql then reads the CTE.
 */
export function peopleAmongSql(within: string): string {
  return `SELECT a.* FROM actors a WHERE a.tenant_id = $1 AND a.agent_key = ANY(${within}::text[]) AND ${PERSON}`;
}

/**
 * The people `criteria` select, as SQL text to embed (see peopleAmongSql): `SELECT a.agent_key
 * FROM …`, one column, `agent_key`, each person once. From the tenant's people (the actors table,
 * its indexes serving the criteria), or, with `from`, from the CTE of that name the caller made
 * with peopleAmongSql (the few people a write changed, read once for many criteria). The
 * criteria's values are added to `parameters`, whose `$1` is the tenant id; `settings` are the
 * tenant's (getTenantSettings), read once by a caller compiling several criteria.
 */
export function peopleMatchingSql(criteria: Criteria, settings: TenantSettings, parameters: SqlValues, from?: string): string {
  const condition = compileCriteria(criteria, linkContext(settings), parameters);
  if (from !== undefined) return `SELECT a.agent_key FROM ${from} a WHERE ${condition}`;
  return `SELECT a.agent_key FROM actors a WHERE a.tenant_id = $1 AND ${PERSON} AND ${condition}`;
}
