import type { SqlClient } from '../../../platform/database/sql-client.js';
import { countPeopleInEntries, countPeopleInJobs, type PeopleLinks } from './people-link.repository.js';
import { findStoredSettings } from '../settings/tenant-settings.repository.js';

export type { PeopleLinks, PersonShown } from './people-link.repository.js';

/**
 * Whom a new organisation structure holding the entries `entryIds` would link and unlink
 * (a check of an organisation import, nothing written): `linked`, the tenant's active people
 * whose `organisationAttribute` value names one of them; `unlinked`, those whose value names an
 * entry stored now that the new structure drops (they would lose their position), and the first
 * `examples` of those in agent-key order. With no `organisationAttribute`, nobody is linked.
 */
export function peopleLinkedToEntries(
  sql: SqlClient,
  tenantId: string,
  entryIds: readonly string[],
  examples: number,
): Promise<PeopleLinks> {
  return countPeopleInEntries(sql, tenantId, entryIds, examples);
}

/**
 * As peopleLinkedToEntries, for a new job architecture holding the jobs `jobIds`, by each person's
 * current job (docs/imports.md, "Model and settings": their own `jobAttribute` value, else their
 * position's through `positionJobAttribute`): `linked` would have one, `unlinked` have one now and
 * would have none. A person whose own job goes but whose position's stays keeps a job.
 */
export async function peopleLinkedToJobs(
  sql: SqlClient,
  tenantId: string,
  jobIds: readonly string[],
  examples: number,
): Promise<PeopleLinks> {
  const stored = (await findStoredSettings(sql, tenantId)) ?? {};
  const setting = (name: string) => (typeof stored[name] === 'string' ? (stored[name] as string) : null);
  const settings = { jobAttribute: setting('jobAttribute'), positionJobAttribute: setting('positionJobAttribute') };
  if (settings.jobAttribute === null && settings.positionJobAttribute === null) return { linked: 0, unlinked: 0, examples: [] };
  return countPeopleInJobs(sql, tenantId, jobIds, settings, examples);
}
