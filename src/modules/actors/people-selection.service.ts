import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Principal, Tenant } from '../../kernel/principal.js';
import { Parameters, peopleSql as searchedPeopleSql, type Criteria } from './actor-search.service.js';
import { readableActorCondition } from './person-access.service.js';
import { getTenantSettings } from './tenant-settings.service.js';

export { Parameters, type Criteria };

/**
 * The people that criteria of the actor search's language (docs/actors.md, "Searching actors")
 * select, as SQL another module embeds in one statement (reports): actor-search.service.ts
 * `peopleSql` with the tenant's settings read, so a criterion means here what it means in
 * `POST /api/actors/search`, and `job_id` is the person's current job as the search's `job.id`
 * reads it (their own `jobAttribute` job, else their position's through `positionJobAttribute`).
 * With `reader`, only the people it reaches (person-access.service.ts: a scoped admin or API key,
 * its subtree's; nothing added for a principal of the whole tenant).
 * Columns: `agent_key`, `job_id`, `position_id` (the entry their `organisationAttribute` names;
 * it may not exist). `parameters` must hold the tenant id first (`$1`). `jobs: false` leaves
 * `job_id` NULL and the jobs out of the statement, for a caller that groups by position only.
 */
export async function peopleSql(
  sql: SqlClient,
  tenant: Pick<Tenant, 'id' | 'name'>,
  baseDomain: string,
  criteria: Criteria,
  parameters: Parameters,
  reader?: Principal,
  options: { jobs?: boolean } = {},
): Promise<string> {
  const settings = await getTenantSettings(sql, tenant, baseDomain);
  const reach = reader === undefined ? undefined : readableActorCondition(reader, 'a', '$1', (value) => parameters.add(value));
  return searchedPeopleSql(settings, criteria, parameters, { reach, jobs: options.jobs });
}
