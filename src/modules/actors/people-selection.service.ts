import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Tenant } from '../../kernel/principal.js';
import { Parameters, peopleSql as searchedPeopleSql, type Criteria } from './actor-search.service.js';
import { getTenantSettings } from './tenant-settings.service.js';

export { Parameters, type Criteria };

/**
 * The people that criteria of the actor search's language (docs/actors.md, "Searching actors")
 * select, as SQL another module embeds in one statement (reports): actor-search.service.ts
 * `peopleSql` with the tenant's settings read, so a criterion means here what it means in
 * `POST /api/actors/search`, and `job_id` is the person's current job as the search's `job.id`
 * reads it (their own `jobAttribute` job, else their position's through `positionJobAttribute`).
 * Columns: `agent_key`, `job_id`, `position_id` (the entry their `organisationAttribute` names;
 * it may not exist). `parameters` must hold the tenant id first (`$1`).
 */
export async function peopleSql(
  sql: SqlClient,
  tenant: Pick<Tenant, 'id' | 'name'>,
  baseDomain: string,
  criteria: Criteria,
  parameters: Parameters,
): Promise<string> {
  const settings = await getTenantSettings(sql, tenant, baseDomain);
  return searchedPeopleSql(settings, criteria, parameters);
}
