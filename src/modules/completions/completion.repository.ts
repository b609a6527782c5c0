import type { SqlClient } from '../../platform/database/sql-client.js';
import { keyText, type CompletionKey, type CompletionRecord, type CompletionStatus } from './completion-rules.js';

interface RecordRow {
  agent_key: string;
  activity_id: string;
  registration: string;
  actor: Record<string, unknown>;
  status: CompletionStatus;
  progress: string | number | null;
  score: Record<string, unknown> | null;
  score_at: Date | string | null;
  first_at: Date | string;
  last_at: Date | string;
  completed_at: Date | string | null;
  passed_at: Date | string | null;
  statement_ids: string[];
}

/** The columns of completion_records written from a CompletionRecord. */
const COLUMNS =
  'agent_key, activity_id, registration, actor, status, progress, score, score_at, first_at, last_at, completed_at, passed_at';

/** The columns of a record row `r` read back, with its statement ids in the order stored (migration 0018). */
const READ_COLUMNS = `r.agent_key, r.activity_id, r.registration, r.actor, r.status, r.progress, r.score, r.score_at, r.first_at, r.last_at,
       r.completed_at, r.passed_at,
       ARRAY(SELECT l.statement_id FROM completion_record_statements AS l
              WHERE l.tenant_id = r.tenant_id AND l.agent_key = r.agent_key AND l.activity_id = r.activity_id
                AND l.registration = r.registration
              ORDER BY l.position) AS statement_ids`;

const iso = (value: Date | string) => new Date(value).toISOString();

function toRecord(row: RecordRow): CompletionRecord {
  const record: CompletionRecord = {
    agentKey: row.agent_key,
    activityId: row.activity_id,
    registration: row.registration,
    actor: row.actor,
    status: row.status,
    firstAt: iso(row.first_at),
    lastAt: iso(row.last_at),
    statementIds: row.statement_ids,
  };
  if (row.progress !== null) record.progress = Number(row.progress);
  if (row.score !== null) record.score = row.score;
  if (row.score_at !== null) record.scoreAt = iso(row.score_at);
  if (row.completed_at !== null) record.completedAt = iso(row.completed_at);
  if (row.passed_at !== null) record.passedAt = iso(row.passed_at);
  return record;
}

/**
 * Serialises writers of the same records: a transaction lock per key, taken in key order so two
 * batches cannot deadlock. Without it two concurrent batches would each fold into the record
 * they read and the second write would drop the first one's statements.
 */
export async function lockRecords(tx: SqlClient, tenantId: string, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await tx.query(recordLocks('$1', '$2'), [tenantId, keys]);
}

/** The SELECT taking lockRecords' locks (one row a key), for the tenant and key array parameters. */
const recordLocks = (tenant: string, keys: string) =>
  `SELECT pg_advisory_xact_lock(hashtextextended('completion_records:' || ${tenant}::uuid::text || ':' || k.key, 0)) AS locked
     FROM (SELECT DISTINCT unnest(${keys}::text[]) AS key ORDER BY 1) AS k`;

export async function findRecords(sql: SqlClient, tenantId: string, keys: readonly CompletionKey[]): Promise<CompletionRecord[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql.query<RecordRow>(
    // One primary-key probe per key (LATERAL), whatever the statistics say: the table grows from
    // nothing under write load, and a join planned on "it is empty" scans all of it per batch.
    `SELECT found.* FROM unnest($2::text[], $3::text[], $4::text[]) AS k(k_agent_key, k_activity_id, k_registration)
       CROSS JOIN LATERAL (
         SELECT ${READ_COLUMNS} FROM completion_records AS r
          WHERE r.tenant_id = $1 AND r.agent_key = k.k_agent_key AND r.activity_id = k.k_activity_id AND r.registration = k.k_registration
       ) AS found`,
    [tenantId, keys.map((key) => key.agentKey), keys.map((key) => key.activityId), keys.map((key) => key.registration)],
  );
  return rows.map(toRecord);
}

/** The rows of `records` as jsonb_to_recordset reads them (RECORD_SET). */
function recordSet(records: readonly CompletionRecord[]): string {
  return JSON.stringify(
    records.map((record) => ({
      agent_key: record.agentKey,
      activity_id: record.activityId,
      registration: record.registration,
      actor: record.actor,
      status: record.status,
      progress: record.progress ?? null,
      score: record.score ?? null,
      score_at: record.scoreAt ?? null,
      first_at: record.firstAt,
      last_at: record.lastAt,
      completed_at: record.completedAt ?? null,
      passed_at: record.passedAt ?? null,
    })),
  );
}

const RECORD_SET = `SELECT $1, r.agent_key, r.activity_id, r.registration, r.actor, r.status, r.progress, r.score, r.score_at,
            r.first_at, r.last_at, r.completed_at, r.passed_at, now()
       FROM jsonb_to_recordset($2::jsonb)
         AS r(agent_key text, activity_id text, registration text, actor jsonb, status text, progress numeric, score jsonb,
              score_at timestamptz, first_at timestamptz, last_at timestamptz, completed_at timestamptz, passed_at timestamptz)`;

/** Appends each record's `statementIds`, in order, to the statements of its stored row. */
async function appendStatementIds(tx: SqlClient, tenantId: string, records: readonly CompletionRecord[]): Promise<void> {
  const links = statementLinks(records);
  if (links[0].length === 0) return;
  await tx.query(`${appendStatements(2)} ORDER BY l.ord`, [tenantId, ...links]);
}

/** Each record's statement ids as the four columns appendStatements reads: agent, activity, registration, id. */
function statementLinks(records: readonly CompletionRecord[]): string[][] {
  const links = records.flatMap((record) => record.statementIds.map((id) => [record.agentKey, record.activityId, record.registration, id]));
  return [0, 1, 2, 3].map((column) => links.map((link) => link[column]));
}

/**
 * The insert of statement links: $1 the tenant, statementLinks' four columns from parameter
 * `first` on; the caller ends it with `ORDER BY l.ord` (after any WHERE of its own).
 */
const appendStatements = (first: number) =>
  `INSERT INTO completion_record_statements (tenant_id, agent_key, activity_id, registration, statement_id)
     SELECT $1, l.agent_key, l.activity_id, l.registration, l.statement_id
       FROM unnest(${[0, 1, 2, 3].map((i) => `$${first + i}::text[]`).join(', ')}) WITH ORDINALITY
              AS l(agent_key, activity_id, registration, statement_id, ord)`;

/** Writes whole records, their statements included: those a voiding refolded, replacing what is stored. */
export async function upsertRecords(tx: SqlClient, tenantId: string, records: readonly CompletionRecord[]): Promise<void> {
  if (records.length === 0) return;
  await tx.query(
    `INSERT INTO completion_records AS stored (tenant_id, ${COLUMNS}, updated_at)
     ${RECORD_SET}
     ON CONFLICT (tenant_id, agent_key, activity_id, registration) DO UPDATE
        SET actor = EXCLUDED.actor, status = EXCLUDED.status, progress = EXCLUDED.progress, score = EXCLUDED.score,
            score_at = EXCLUDED.score_at, first_at = EXCLUDED.first_at, last_at = EXCLUDED.last_at,
            completed_at = EXCLUDED.completed_at, passed_at = EXCLUDED.passed_at, updated_at = now()`,
    [tenantId, recordSet(records)],
  );
  await tx.query(
    `DELETE FROM completion_record_statements AS l
      USING unnest($2::text[], $3::text[], $4::text[]) AS k(agent_key, activity_id, registration)
      WHERE l.tenant_id = $1 AND l.agent_key = k.agent_key AND l.activity_id = k.activity_id AND l.registration = k.registration`,
    [
      tenantId,
      records.map((record) => record.agentKey),
      records.map((record) => record.activityId),
      records.map((record) => record.registration),
    ],
  );
  await appendStatementIds(tx, tenantId, records);
}

/**
 * Folds records made of new statements only into what is stored, in one statement, without
 * reading the stored rows first: the same fold as completion-rules.ts `applyFact` (the better
 * status, the highest progress, the newer score, the earlier first and later last time, the
 * earlier completing and passing times (LEAST skips a NULL, so a side without one takes the
 * other's), the statement ids appended as rows of their own). The same statement first takes
 * the records' locks (lockRecords, in key order), so it waits for a voiding's refold of them: ON
 * CONFLICT folds into the latest version of a row whatever the statement's snapshot, so the lock
 * need not be taken in a statement of its own, and a batch with no voiding costs one round trip.
 */
export async function mergeRecords(tx: SqlClient, tenantId: string, records: readonly CompletionRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rank = (status: string) => `array_position(ARRAY['in-progress', 'completed', 'failed', 'passed'], ${status})`;
  await tx.query(
    `WITH locked AS (
       SELECT count(l.locked) AS locks FROM (${recordLocks('$1', '$3')}) AS l
     ), merged AS (
       INSERT INTO completion_records AS stored (tenant_id, ${COLUMNS}, updated_at)
       ${RECORD_SET}
        WHERE (SELECT locks FROM locked) IS NOT NULL
       ON CONFLICT (tenant_id, agent_key, activity_id, registration) DO UPDATE
          SET status = CASE WHEN ${rank('EXCLUDED.status')} > ${rank('stored.status')} THEN EXCLUDED.status ELSE stored.status END,
              progress = GREATEST(stored.progress, EXCLUDED.progress),
              score = CASE WHEN EXCLUDED.score_at IS NOT NULL AND (stored.score_at IS NULL OR EXCLUDED.score_at >= stored.score_at)
                           THEN EXCLUDED.score ELSE stored.score END,
              score_at = CASE WHEN EXCLUDED.score_at IS NOT NULL AND (stored.score_at IS NULL OR EXCLUDED.score_at >= stored.score_at)
                              THEN EXCLUDED.score_at ELSE stored.score_at END,
              first_at = LEAST(stored.first_at, EXCLUDED.first_at),
              last_at = GREATEST(stored.last_at, EXCLUDED.last_at),
              completed_at = LEAST(stored.completed_at, EXCLUDED.completed_at),
              passed_at = LEAST(stored.passed_at, EXCLUDED.passed_at),
              updated_at = now()
       RETURNING 1
     )
     ${appendStatements(4)}
      WHERE (SELECT count(*) FROM merged) > 0
      ORDER BY l.ord`,
    [tenantId, recordSet(records), records.map((record) => keyText(record)), ...statementLinks(records)],
  );
}

export async function deleteRecords(tx: SqlClient, tenantId: string, keys: readonly CompletionKey[]): Promise<void> {
  if (keys.length === 0) return;
  await tx.query(
    `DELETE FROM completion_records r
      USING unnest($2::text[], $3::text[], $4::text[]) AS k(agent_key, activity_id, registration)
      WHERE r.tenant_id = $1 AND r.agent_key = k.agent_key AND r.activity_id = k.activity_id AND r.registration = k.registration`,
    [tenantId, keys.map((key) => key.agentKey), keys.map((key) => key.activityId), keys.map((key) => key.registration)],
  );
}

/** The stored statements among `ids`, with whether each is voided. */
export async function findStatementBodies(
  sql: SqlClient,
  tenantId: string,
  ids: readonly string[],
): Promise<Array<{ id: string; statement: Record<string, unknown>; voided: boolean }>> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<{ id: string; statement: Record<string, unknown>; voided: boolean }>(
    'SELECT id::text AS id, statement, voided FROM xapi_statements WHERE tenant_id = $1 AND id = ANY($2::uuid[])',
    [tenantId, ids],
  );
  return rows;
}

export async function recordParentLinks(
  tx: SqlClient,
  tenantId: string,
  links: ReadonlyArray<{ activityId: string; parentId: string }>,
): Promise<void> {
  if (links.length === 0) return;
  await tx.query(
    `INSERT INTO completion_activity_parents (tenant_id, parent_id, activity_id)
     SELECT DISTINCT $1::uuid, l.parent_id, l.activity_id FROM unnest($2::text[], $3::text[]) AS l(parent_id, activity_id)
     ON CONFLICT DO NOTHING`,
    [tenantId, links.map((link) => link.parentId), links.map((link) => link.activityId)],
  );
}

/** The children of each of `parentIds`: registry entries naming it as parent_id, and statements' parent links. */
export async function findChildActivities(
  sql: SqlClient,
  tenantId: string,
  parentIds: readonly string[],
): Promise<Array<{ parentId: string; activityId: string }>> {
  if (parentIds.length === 0) return [];
  const { rows } = await sql.query<{ parent_id: string; activity_id: string }>(
    `SELECT parent_id, id AS activity_id FROM activity_registry WHERE tenant_id = $1 AND parent_id = ANY($2::text[])
     UNION
     SELECT parent_id, activity_id FROM completion_activity_parents WHERE tenant_id = $1 AND parent_id = ANY($2::text[])
     ORDER BY 1, 2`,
    [tenantId, parentIds],
  );
  return rows.map((row) => ({ parentId: row.parent_id, activityId: row.activity_id }));
}

export interface RecordFilter {
  agentKey: string;
  activityIds?: readonly string[];
  statuses?: readonly CompletionStatus[];
}

/** One agent's records, by activity and registration. */
export async function listRecords(sql: SqlClient, tenantId: string, filter: RecordFilter): Promise<CompletionRecord[]> {
  const { rows } = await sql.query<RecordRow>(
    `SELECT ${READ_COLUMNS} FROM completion_records AS r
      WHERE r.tenant_id = $1 AND r.agent_key = $2
        AND ($3::text[] IS NULL OR r.activity_id = ANY($3::text[]))
        AND ($4::text[] IS NULL OR r.status = ANY($4::text[]))
      ORDER BY r.activity_id, r.registration`,
    [tenantId, filter.agentKey, filter.activityIds ?? null, filter.statuses ?? null],
  );
  return rows.map(toRecord);
}
