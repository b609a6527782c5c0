import { SqlValues } from '../../platform/database/sql-filters.js';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { findJobs, findOrganisationLinks, type Job, type OrgEntry, type OrgLink } from '../organisation/index.js';
import type { Principal, Tenant } from '../../kernel/principal.js';
import { getTenantSettings, type TenantSettings } from './settings/tenant-settings.service.js';
import { toAgent, type ActorLinks, type StoredActor } from './attributes/actor-attributes.js';
import { attributeValue, currentJobId, positionJobId, type JobLinkSettings } from './actor-job-rules.js';
import { findActorAndStateByKey, findActors, findPersonByKey, type ActorKind } from './actor.repository.js';

import { findMatchingActors } from './search/actor-search.repository.js';
import { mayRead, PersonAccessErrors, readableActorCondition } from './people/person-access.service.js';

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
  const parameters = new SqlValues([tenant.id]);
  const readable = readableActorCondition(principal, 'a', '$1', (value) => parameters.bind(value));
  const found =
    readable === undefined
      ? await findActors(sql, tenant.id, kind, page)
      : await findMatchingActors(sql, tenant.id, readable, parameters, { ...page, kind });
  return { actors: await showActors(sql, tenant, found.actors, domains), total: found.total };
}

/** One person as `GET /api/actors/item` answers them. */
export interface PersonItem {
  /** The actor as GET /api/actors shows it: name, identifier, extensions (attributes, organisation, job). */
  actor: Record<string, unknown>;
  /** False when the person was deactivated (docs/identity.md). */
  active: boolean;
}

/**
 * The person stored under `agentKey`, deactivated or not, and whether they are active. 404
 * `actors.not_found` when the tenant has no such actor, knows it only as a statement authority (a
 * credential, not a person), or `principal` may not read them (person-access.service.ts): the same
 * answer either way. An agent only statements named, and an identified group, are found.
 */
export async function requirePerson(
  sql: SqlClient,
  principal: Principal,
  agentKey: string,
): Promise<{ actor: StoredActor; active: boolean }> {
  const found = await findActorAndStateByKey(sql, principal.tenant.id, agentKey);
  if (!found || found.authorityOnly || !(await mayRead(sql, principal, agentKey))) throw PersonAccessErrors.notFound(agentKey);
  return { actor: found.actor, active: found.active };
}

/** `GET /api/actors/item`: the person requirePerson finds, shaped as GET /api/actors shapes them (showActors). */
export async function showPerson(sql: SqlClient, principal: Principal, agentKey: string, domains: ActorDomains): Promise<PersonItem> {
  const { actor, active } = await requirePerson(sql, principal, agentKey);
  const [shown] = await showActors(sql, principal.tenant, [actor], domains);
  return { actor: shown, active };
}

/**
 * Stored actors as interface 2.6 shows them, each with attributes enriched with the organisation
 * entry and the job they link to (actorLinks). The links are read now, not at import:
 * re-importing the organisation or the jobs changes what every linked user shows.
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
  const links = await actorLinks(sql, tenant.id, actors, settings);
  return actors.map((actor, i) => toAgent(actor, links[i], domains.serviceDomain));
}

/**
 * What each actor's attributes link to, in the actors' order: the organisation entry its
 * `organisationAttribute` value names (with its ancestors) and its current job (actor-job-rules.ts:
 * its own `jobAttribute` value when that names a job, else its position's job through
 * `positionJobAttribute`). Two queries for any number of actors.
 */
export async function actorLinks(
  sql: SqlClient,
  tenantId: string,
  actors: readonly Pick<StoredActor, 'attributes'>[],
  settings: JobLinkSettings,
): Promise<ActorLinks[]> {
  const distinct = (values: Array<string | undefined>) => [...new Set(values.filter((value): value is string => value !== undefined))];
  const positionIds = actors.map((actor) => attributeValue(actor.attributes, settings.organisationAttribute));
  const wantedPositions = distinct(positionIds);
  const organisations: Map<string, OrgLink> =
    wantedPositions.length > 0 ? await findOrganisationLinks(sql, tenantId, wantedPositions) : new Map();
  const positionOf = (i: number) => (positionIds[i] === undefined ? undefined : organisations.get(positionIds[i]));
  const jobIds = distinct(
    actors.flatMap((actor, i) => [attributeValue(actor.attributes, settings.jobAttribute), positionJobId(positionOf(i)?.entry, settings)]),
  );
  const jobs: Map<string, Job> = jobIds.length > 0 ? await findJobs(sql, tenantId, jobIds) : new Map();
  return actors.map((actor, i) => {
    const links: ActorLinks = {};
    const organisation = positionOf(i);
    if (organisation) links.organisation = organisation;
    const jobId = currentJobId(actor.attributes, settings, organisation?.entry, (id) => jobs.has(id));
    if (jobId !== undefined) links.job = jobs.get(jobId);
    return links;
  });
}

/** A person as the learning reads see them: the xAPI agent, the links of its attributes, the tenant's settings. */
export interface PersonWithLinks {
  agentKey: string;
  /** The xAPI actor: objectType, the name it is shown with (if any) and its IFI; no extensions. */
  agent: Record<string, unknown>;
  links: ActorLinks;
  settings: TenantSettings;
}

/**
 * The actor stored under `agentKey` with its links (actorLinks), or undefined when the tenant has
 * no such actor or knows it only as a statement authority (a credential, not a person).
 */
export async function findPersonWithLinks(
  sql: SqlClient,
  tenant: Pick<Tenant, 'id' | 'name'>,
  agentKey: string,
  baseDomain: string,
): Promise<PersonWithLinks | undefined> {
  const [actor, settings] = await Promise.all([findPersonByKey(sql, tenant.id, agentKey), getTenantSettings(sql, tenant, baseDomain)]);
  if (!actor) return undefined;
  const [links] = await actorLinks(sql, tenant.id, [actor], settings);
  // toAgent without attributes shows no extensions: the agent alone.
  const agent = toAgent({ ...actor, attributes: null }, {}, baseDomain);
  return { agentKey, agent, links, settings };
}

/** The job a position names through `positionJobAttribute`, when a job of the tenant has that id. */
export async function jobOfPosition(
  sql: SqlClient,
  tenantId: string,
  position: Pick<OrgEntry, 'attributes'>,
  settings: JobLinkSettings,
): Promise<Job | undefined> {
  const id = positionJobId(position, settings);
  return id === undefined ? undefined : (await findJobs(sql, tenantId, [id])).get(id);
}
