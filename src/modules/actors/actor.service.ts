import type { SqlClient } from '../../platform/database/sql-client.js';
import { findJobs, findOrganisationLinks } from '../organisation/organisation.service.js';
import type { Principal, Tenant } from '../../kernel/principal.js';
import { getTenantSettings, type TenantSettings } from './tenant-settings.service.js';
import { toAgent, type ActorLinks, type StoredActor } from './actor-attributes.js';
import { findActors, type ActorKind } from './actor.repository.js';
import { Parameters } from './actor-search-compiler.js';
import { findMatchingActors } from './actor-search.repository.js';
import { readableActorCondition } from './person-access.service.js';

/** The two domains an actor is shown with. */
export interface ActorDomains {
  /** The tenants' base domain: the default accountHomePage of the tenant settings. */
  baseDomain: string;
  /** The host of the extension keys, `http://{serviceDomain}/api/ext/agent/…`. */
  serviceDomain: string;
}

/**
 * A page of the tenant's actors of one kind as Agents and Groups (interface 2.6), each enriched as
 * `showActors` says, and how many there are in all: of the people `principal` may read, when it
 * does not read everyone (person-access.service.ts), counted and paged in the search's one statement.
 */
export async function listActors(
  sql: SqlClient,
  principal: Principal,
  kind: ActorKind,
  page: { limit: number; skip: number },
  domains: ActorDomains,
): Promise<{ actors: Record<string, unknown>[]; total: number }> {
  const tenant = principal.tenant;
  const parameters = new Parameters([tenant.id]);
  const readable = readableActorCondition(principal, 'a', '$1', (value) => parameters.add(value));
  const found =
    readable === undefined
      ? await findActors(sql, tenant.id, kind, page)
      : await findMatchingActors(sql, tenant.id, readable, parameters, { ...page, kind });
  return { actors: await showActors(sql, tenant, found.actors, domains), total: found.total };
}

/**
 * Stored actors as interface 2.6 shows them, each with attributes enriched with the organisation
 * entry and the job they link to. The links are read now, not at import: re-importing the
 * organisation or the jobs changes what every linked user shows.
 */
export async function showActors(
  sql: SqlClient,
  tenant: Pick<Tenant, 'id' | 'name'>,
  actors: readonly StoredActor[],
  domains: ActorDomains,
  /** The tenant's settings when the caller has read them already. */
  known?: TenantSettings,
): Promise<Record<string, unknown>[]> {
  const settings = known ?? (await getTenantSettings(sql, tenant, domains.baseDomain));
  // Own properties only: an attribute setting named "toString" must not read Object.prototype's.
  const attributeOf = (actor: StoredActor, attribute: string | null) =>
    attribute && actor.attributes && Object.hasOwn(actor.attributes, attribute) ? actor.attributes[attribute] : undefined;
  const linkedBy = (attribute: string | null) => [
    ...new Set(actors.map((actor) => attributeOf(actor, attribute)).filter((value): value is string => !!value)),
  ];
  const organisationIds = linkedBy(settings.organisationAttribute);
  const jobIds = linkedBy(settings.jobAttribute);
  const organisations = organisationIds.length > 0 ? await findOrganisationLinks(sql, tenant.id, organisationIds) : new Map();
  const jobs = jobIds.length > 0 ? await findJobs(sql, tenant.id, jobIds) : new Map();
  return actors.map((actor) => {
    const links: ActorLinks = {};
    const organisationId = attributeOf(actor, settings.organisationAttribute);
    const jobId = attributeOf(actor, settings.jobAttribute);
    if (organisationId && organisations.has(organisationId)) links.organisation = organisations.get(organisationId);
    if (jobId && jobs.has(jobId)) links.job = jobs.get(jobId);
    return toAgent(actor, links, domains.serviceDomain);
  });
}
