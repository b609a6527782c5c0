/**
 * A person's current job, the one definition (docs/imports.md, "Model and settings"): the job
 * their own `jobAttribute` value names when it names a job of the tenant, else the job their
 * position (the organisation entry their `organisationAttribute` value names) names through
 * `positionJobAttribute`. The enrichment of GET /api/actors and the reads of one person
 * (actor.service.ts) apply `currentJobId`; the search's `job.*` conditions
 * (actor-search-compiler.ts, `currentJobIn`) and the set-based selection of people
 * (actor-search.service.ts, `peopleSql`) say the same in SQL, and the tests hold the three together.
 */
import type { OrgEntry } from '../organisation/index.js';

/** The settings that link a person to an organisation entry and a job (tenant-settings.service.ts). */
export interface JobLinkSettings {
  organisationAttribute: string | null;
  jobAttribute: string | null;
  positionJobAttribute: string | null;
}

/**
 * The value of the attribute `name`, or undefined when there is none, it is empty, or no setting
 * names an attribute. Own properties only: a setting named "toString" must not read Object.prototype's.
 */
export function attributeValue(attributes: Readonly<Record<string, string>> | null | undefined, name: string | null): string | undefined {
  if (name === null || !attributes || !Object.hasOwn(attributes, name)) return undefined;
  const value = attributes[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The job id a position names through `positionJobAttribute` (whether a job has that id is the caller's question). */
export function positionJobId(position: Pick<OrgEntry, 'attributes'> | undefined, settings: JobLinkSettings): string | undefined {
  return position === undefined ? undefined : attributeValue(position.attributes, settings.positionJobAttribute);
}

/**
 * The id of a person's current job, or undefined when they have none: their own `jobAttribute`
 * value when `isJob` says a job has it, else their `position`'s job (`positionJobId`) when a job
 * has that one. `position` is the entry their `organisationAttribute` value names, if any.
 */
export function currentJobId(
  attributes: Readonly<Record<string, string>> | null | undefined,
  settings: JobLinkSettings,
  position: Pick<OrgEntry, 'attributes'> | undefined,
  isJob: (id: string) => boolean,
): string | undefined {
  const own = attributeValue(attributes, settings.jobAttribute);
  if (own !== undefined && isJob(own)) return own;
  const ofPosition = settings.organisationAttribute === null ? undefined : positionJobId(position, settings);
  return ofPosition !== undefined && isJob(ofPosition) ? ofPosition : undefined;
}
