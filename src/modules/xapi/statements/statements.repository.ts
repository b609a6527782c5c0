import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { StatementIndex } from './statement-model.js';
import type { JsonObject } from './statement-validator.js';

/** A statement to insert: the stored statement and what it is found by. */
export interface NewStatement {
  id: string;
  statement: JsonObject;
  stored: string;
  index: StatementIndex;
}

export interface StoredStatement {
  id: string;
  statement: JsonObject;
  stored: Date;
  voided: boolean;
  voiding: boolean;
}

/** Where a page of a statement list starts: after this (stored, seq) in the list's order. */
export interface Position {
  stored: string;
  seq: string;
}

export interface StatementFilter {
  agentKey?: string;
  relatedAgents: boolean;
  verbId?: string;
  activityId?: string;
  relatedActivities: boolean;
  registration?: string;
  /** Exclusive lower bound on `stored`. */
  since?: string;
  /** Inclusive upper bound on `stored`. */
  until?: string;
  ascending: boolean;
  after?: Position;
  limit: number;
}

export interface ListedStatement {
  statement: JsonObject;
  position: Position;
}

interface StatementRow {
  id: string;
  statement: JsonObject;
  stored: Date | string;
  voided: boolean;
  voiding: boolean;
}

const toStored = (row: StatementRow): StoredStatement => ({
  id: row.id,
  statement: row.statement,
  stored: new Date(row.stored),
  voided: row.voided,
  voiding: row.voiding,
});

/** The statements with these ids, voided or not. */
export async function findStatements(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<StoredStatement[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<StatementRow>(
    `SELECT id, statement, stored, voided, voiding
       FROM xapi_statements
      WHERE tenant_id = $1 AND id = ANY($2::uuid[])`,
    [tenantId, ids],
  );
  return rows.map(toStored);
}

/**
 * Inserts the statements and the rows they are found by, in as few statements as the batch
 * allows. A statement whose id is already taken (by an earlier request, or a concurrent one)
 * is left alone; the ids actually inserted are returned.
 */
export async function insertStatements(sql: SqlClient, tenantId: string, statements: readonly NewStatement[]): Promise<Set<string>> {
  if (statements.length === 0) return new Set();
  const { rows } = await sql.query<{ id: string }>(
    `INSERT INTO xapi_statements (tenant_id, id, statement, stored, verb_id, registration, object_statement_id, voiding)
     SELECT $1, r.id, r.statement, r.stored, r.verb_id, r.registration, r.object_statement_id, r.voiding
       FROM jsonb_to_recordset($2::jsonb) AS r(
              ord int, id uuid, statement jsonb, stored timestamptz, verb_id text,
              registration uuid, object_statement_id uuid, voiding boolean)
      ORDER BY r.ord
     ON CONFLICT (tenant_id, id) DO NOTHING
     RETURNING id`,
    [
      tenantId,
      JSON.stringify(
        statements.map((item, ord) => ({
          ord,
          id: item.id,
          statement: item.statement,
          stored: item.stored,
          verb_id: item.index.verbId,
          registration: item.index.registration,
          object_statement_id: item.index.objectStatementId,
          voiding: item.index.voiding,
        })),
      ),
    ],
  );
  const inserted = new Set(rows.map((row) => row.id));
  const fresh = statements.filter((item) => inserted.has(item.id));
  const agents = fresh.flatMap((item) =>
    [...item.index.agents].map(([agent_key, direct]) => ({ statement_id: item.id, agent_key, direct })),
  );
  const activities = fresh.flatMap((item) =>
    [...item.index.activities].map(([activity_id, direct]) => ({ statement_id: item.id, activity_id, direct })),
  );
  if (agents.length > 0) {
    await sql.query(
      `INSERT INTO xapi_statement_agents (tenant_id, agent_key, statement_id, direct)
       SELECT $1, r.agent_key, r.statement_id, r.direct
         FROM jsonb_to_recordset($2::jsonb) AS r(agent_key text, statement_id uuid, direct boolean)`,
      [tenantId, JSON.stringify(agents)],
    );
  }
  if (activities.length > 0) {
    await sql.query(
      `INSERT INTO xapi_statement_activities (tenant_id, activity_id, statement_id, direct)
       SELECT $1, r.activity_id, r.statement_id, r.direct
         FROM jsonb_to_recordset($2::jsonb) AS r(activity_id text, statement_id uuid, direct boolean)`,
      [tenantId, JSON.stringify(activities)],
    );
  }
  return inserted;
}

/**
 * Marks voided every statement among `ids` that is not itself a voiding statement and that a
 * stored voiding statement targets (xAPI 2.0 Part 2 §2.3.2.s2.b3). Run after inserting, it
 * covers a voiding statement arriving after its target, before it, and in the same batch.
 * Answers the ids it marked (lower case), so the caller need not read them back.
 */
export async function markVoided(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  // A target and its voiding statement stored by two concurrent transactions would each miss
  // the other's uncommitted row; a transaction lock per target id (taken in id order, so two
  // batches cannot deadlock) makes the second one wait for the first and then see it.
  await sql.query(
    `SELECT pg_advisory_xact_lock(hashtextextended('xapi_statements:' || $1 || ':' || ids.id::text, 0))
       FROM (SELECT DISTINCT unnest($2::uuid[]) AS id ORDER BY 1) AS ids`,
    [tenantId, ids],
  );
  const { rows } = await sql.query<{ id: string }>(
    `UPDATE xapi_statements AS target
        SET voided = true
      WHERE target.tenant_id = $1
        AND target.id = ANY($2::uuid[])
        AND NOT target.voiding
        AND NOT target.voided
        AND EXISTS (
              SELECT 1 FROM xapi_statements AS voiding
               WHERE voiding.tenant_id = $1
                 AND voiding.object_statement_id = target.id
                 AND voiding.voiding)
     RETURNING target.id::text AS id`,
    [tenantId, ids],
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * One page of a statement list, newest stored first unless `ascending`, voided statements left
 * out. Filters other than since/until/limit also match statements that target (by a
 * StatementRef object, recursively) a statement that matches them, voided or not (xAPI 2.0
 * Part 3 §2.1.3.s3 and §2.1.4). Reads `limit + 1` rows so the caller knows whether more follow.
 */
export async function listStatements(sql: SqlClient, tenantId: string, filter: StatementFilter): Promise<ListedStatement[]> {
  const values: unknown[] = [tenantId];
  const bind = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const matches: string[] = [];
  if (filter.agentKey !== undefined) {
    matches.push(
      `EXISTS (SELECT 1 FROM xapi_statement_agents AS a
                WHERE a.tenant_id = s.tenant_id AND a.statement_id = s.id AND a.agent_key = ${bind(filter.agentKey)}
                  ${filter.relatedAgents ? '' : 'AND a.direct'})`,
    );
  }
  if (filter.activityId !== undefined) {
    matches.push(
      `EXISTS (SELECT 1 FROM xapi_statement_activities AS a
                WHERE a.tenant_id = s.tenant_id AND a.statement_id = s.id AND a.activity_id = ${bind(filter.activityId)}
                  ${filter.relatedActivities ? '' : 'AND a.direct'})`,
    );
  }
  if (filter.verbId !== undefined) matches.push(`s.verb_id = ${bind(filter.verbId)}`);
  if (filter.registration !== undefined) matches.push(`s.registration = ${bind(filter.registration)}::uuid`);

  const window: string[] = ['NOT s.voided'];
  if (filter.since !== undefined) window.push(`s.stored > ${bind(filter.since)}::timestamptz`);
  if (filter.until !== undefined) window.push(`s.stored <= ${bind(filter.until)}::timestamptz`);
  const direction = filter.ascending ? 'ASC' : 'DESC';
  if (filter.after) {
    const comparison = filter.ascending ? '>' : '<';
    window.push(`(s.stored, s.seq) ${comparison} (${bind(filter.after.stored)}::timestamptz, ${bind(filter.after.seq)}::bigint)`);
  }
  const limit = bind(filter.limit + 1);

  const select = `SELECT s.statement, s.stored, s.seq::text AS seq`;
  const order = `ORDER BY s.stored ${direction}, s.seq ${direction} LIMIT ${limit}`;
  const text =
    matches.length === 0
      ? `${select} FROM xapi_statements AS s WHERE s.tenant_id = $1 AND ${window.join(' AND ')} ${order}`
      : `WITH RECURSIVE matched (id) AS (
           SELECT s.id FROM xapi_statements AS s WHERE s.tenant_id = $1 AND ${matches.join(' AND ')}
           UNION
           SELECT t.id FROM xapi_statements AS t JOIN matched AS m ON t.object_statement_id = m.id
            WHERE t.tenant_id = $1
         )
         ${select}
           FROM matched AS m JOIN xapi_statements AS s ON s.tenant_id = $1 AND s.id = m.id
          WHERE ${window.join(' AND ')}
          ${order}`;
  const { rows } = await sql.query<{ statement: JsonObject; stored: Date | string; seq: string }>(text, values);
  return rows.map((row) => ({
    statement: row.statement,
    position: { stored: new Date(row.stored).toISOString(), seq: row.seq },
  }));
}
