import type { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';

import type { StoredActor } from '../attributes/actor-attributes.js';
import { type ActorRow, COLUMNS, kindConditions, toStoredActor, type ActorKind } from '../actor.repository.js';

/** A page row; past the end, the one row has the total and NULL everywhere else. */
type PageRow = Omit<ActorRow, 'agent_key'> & { agent_key: string | null; total: string | number };

/** The actor columns, read from the page's join (`actors a`). */
const PAGE_COLUMNS = COLUMNS.split(', ')
  .map((column) => `a.${column}`)
  .join(', ');

/**
 * A page of the tenant's actors that satisfy `condition` (compiled by actor-search-compiler.ts
 * over `actors a`, its values in `parameters` after the tenant id, `$1`), in agent-key order, and
 * how many match in all, in one statement. The matches are collected first (a MATERIALIZED CTE
 * of agent keys, so the planner picks the cheapest full scan, typically the GIN index, rather
 * than walking the whole primary key in order hoping a LIMIT stops it early: the total needs
 * every match anyway); only the page's keys are sorted and only the page's rows read whole. The
 * LEFT JOIN from the count keeps one row, total alone, when the page is past the end.
 */
export async function findMatchingActors(
  sql: SqlClient,
  tenantId: string,
  condition: string,
  parameters: SqlValues,
  page: { limit: number; skip: number; kind: ActorKind },
): Promise<{ actors: StoredActor[]; total: number }> {
  const values = [...parameters.values];
  const limit = `$${values.push(page.limit)}`;
  const skip = `$${values.push(page.skip)}`;
  const { rows } = await sql.query<PageRow>(
    `WITH matched AS MATERIALIZED (
       SELECT a.agent_key FROM actors a WHERE ${['a.tenant_id = $1', ...kindConditions(page.kind, 'a'), condition].join(' AND ')}
     ), page AS (
       SELECT agent_key FROM matched ORDER BY agent_key LIMIT ${limit} OFFSET ${skip}
     )
     SELECT counted.total, ${PAGE_COLUMNS}
       FROM (SELECT count(*) AS total FROM matched) counted
       LEFT JOIN (page JOIN actors a ON a.tenant_id = $1 AND a.agent_key = page.agent_key) ON true
      ORDER BY a.agent_key`,
    values,
  );
  const total = rows.length > 0 ? Number(rows[0].total) : 0;
  return {
    actors: rows.filter((row): row is PageRow & { agent_key: string } => row.agent_key !== null).map(toStoredActor),
    total,
  };
}
