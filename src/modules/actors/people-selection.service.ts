import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Tenant } from '../../kernel/principal.js';
import { compileCriteria, Parameters, type Criteria } from './actor-search-compiler.js';
import { getTenantSettings } from './tenant-settings.service.js';

export { Parameters, type Criteria };

/**
 * The people that criteria of the actor search's language (docs/actors.md, "Searching actors")
 * select, as SQL another module embeds in one statement (reports): a set-based read of the
 * actors table that stays the actors module's, compiled by the search's own compiler, so a
 * criterion means here what it means in `POST /api/actors/search` (`organisation.ancestors.id`,
 * `job.id` and the rest, whatever links a person to them).
 *
 * A person is an actor an import or `PUT /api/actors/agents` made (`imported_at` set), never an
 * agent only statements named. Columns:
 *
 * - `agent_key`: the person's agent key (kernel/agent.ts), as statements and completion records
 *   name them;
 * - `position_id`: the organisation entry the person's `organisationAttribute` names (NULL when
 *   the setting or the value is absent; the entry may not exist);
 * - `job_id`: the person's current job, as the search's `job.id` reads it (today the job their
 *   `jobAttribute` names; NULL likewise). A change to what links a person to a job changes
 *   `jobPredicate` (actor-search-compiler.ts) and this column together.
 *
 * `parameters` must hold the tenant id first (`$1`); the criteria's values and the settings'
 * attribute names are added to it as bound parameters.
 */
export async function peopleSql(
  sql: SqlClient,
  tenant: Pick<Tenant, 'id' | 'name'>,
  baseDomain: string,
  criteria: Criteria,
  parameters: Parameters,
): Promise<string> {
  const settings = await getTenantSettings(sql, tenant, baseDomain);
  const condition = compileCriteria(
    criteria,
    { tenantParameter: '$1', organisationAttribute: settings.organisationAttribute, jobAttribute: settings.jobAttribute },
    parameters,
  );
  const linked = (attribute: string | null) => (attribute === null ? 'NULL::text' : `(a.attributes ->> ${parameters.add(attribute)})`);
  return `SELECT a.agent_key, ${linked(settings.organisationAttribute)} AS position_id, ${linked(settings.jobAttribute)} AS job_id
            FROM actors a
           WHERE a.tenant_id = $1 AND a.imported_at IS NOT NULL AND ${condition}`;
}
