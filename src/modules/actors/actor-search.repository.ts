import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Parameters } from './actor-search-compiler.js';
import { kindConditions, type ActorKind } from './actor.repository.js';

/** One actor as the search reads it: the store's row, agent or group. */
export interface FoundActorRow {
  id: string;
  agentKey: string;
  objectType: 'Agent' | 'Group';
  ifi: Record<string, unknown>;
  name: string | null;
  names: string[];
  attributes: Record<string, string> | null;
  members: Record<string, unknown>[] | null;
}

/** A page row; past the end, the one row has the total and NULL everywhere else. */
interface ActorRow {
  id: string;
  agent_key: string | null;
  object_type: 'Agent' | 'Group';
  ifi: Record<string, unknown>;
  name: string | null;
  names: string[];
  attributes: Record<string, string> | null;
  members: Record<string, unknown>[] | null;
  total: string | number;
}

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
  parameters: Parameters,
  page: { limit: number; skip: number; kind: ActorKind },
): Promise<{ actors: FoundActorRow[]; total: number }> {
  const values = [...parameters.values];
  const limit = `$${values.push(page.limit)}`;
  const skip = `$${values.push(page.skip)}`;
  const { rows } = await sql.query<ActorRow>(
    `WITH matched AS MATERIALIZED (
       SELECT a.agent_key FROM actors a WHERE ${['a.tenant_id = $1', ...kindConditions(page.kind, 'a'), condition].join(' AND ')}
     ), page AS (
       SELECT agent_key FROM matched ORDER BY agent_key LIMIT ${limit} OFFSET ${skip}
     )
     SELECT counted.total, a.id, a.agent_key, a.object_type, a.ifi, a.name, a.names, a.attributes, a.members
       FROM (SELECT count(*) AS total FROM matched) counted
       LEFT JOIN (page JOIN actors a ON a.tenant_id = $1 AND a.agent_key = page.agent_key) ON true
      ORDER BY a.agent_key`,
    values,
  );
  const total = rows.length > 0 ? Number(rows[0].total) : 0;
  return {
    actors: rows
      .filter((row) => row.agent_key !== null)
      .map((row) => ({
        id: row.id,
        agentKey: row.agent_key as string,
        objectType: row.object_type,
        ifi: row.ifi,
        name: row.name,
        names: row.names,
        attributes: row.attributes,
        members: row.members,
      })),
    total,
  };
}
