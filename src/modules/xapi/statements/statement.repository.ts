import { PER_ROW_PROBE, type SqlClient } from '../../../platform/database/sql-client.js';
import { SqlFilter } from '../../../platform/database/sql-filters.js';
import { indexStatement, type StatementIndex } from './statement-model.js';
import type { JsonObject } from '../../../kernel/formats.js';

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

/** What xapi_statement_keys.kind holds: an agent, an activity, a verb, a registration. */
export type KeyKind = 'g' | 'a' | 'v' | 'r';

/**
 * One value a listed statement must carry: its key row of this kind and key with a reach at most
 * `reach` (0 the statement's own actor, 1 the plain filters, 2 the related_* filters; see
 * migration 0015).
 */
export interface KeyMatch {
  kind: KeyKind;
  key: string;
  reach: 0 | 1 | 2;
}

export interface StatementFilter {
  /** All must hold; the first is walked in order, the others are probed. */
  matches: KeyMatch[];
  /** Exclusive lower bound on `stored`. */
  since?: string;
  /** Inclusive upper bound on `stored`. */
  until?: string;
  ascending: boolean;
  after?: Position;
  limit: number;
}

export interface ListedStatement {
  /** The statement as stored, as JSON text: format=exact answers it without parsing it. */
  json: string;
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
 * Inserts the statements and the rows they are found by (xapi_statement_keys, migration 0015), in
 * as few statements as the batch allows. A statement whose id is already taken (by an earlier
 * request, or a concurrent one) is left alone; the ids actually inserted are returned.
 *
 * The key rows include the StatementRef closure: a new statement that targets another takes the
 * keys of its target (found in the batch or stored, recursively), and stored statements that
 * target a new one (sent before their target) take the new one's keys, as do statements
 * targeting them.
 */
export async function insertStatements(sql: SqlClient, tenantId: string, statements: readonly NewStatement[]): Promise<Set<string>> {
  if (statements.length === 0) return new Set();
  // The keys are known before the insert (a statement left out for an id already stored is the
  // same statement, or the write fails): the statements, their key rows and the stored
  // statements targeting them go in one round trip. The referrers are read in the insert's
  // snapshot, which holds none of the rows it inserts.
  const closure = new KeyClosure(sql, tenantId, statements);
  const targets = voidingTargets(statements);
  const keyRows: Array<[string, string, number]> = [];
  for (const item of statements) for (const [key, reach] of await closure.keysOf(item.id)) keyRows.push([key, item.id, reach]);
  const { rows } = await sql.query<{ id: string; seq: string; target: string | null; stored: Date | string }>(
    `WITH ${VOIDING_LOCKS}, inserted AS (
       INSERT INTO xapi_statements (tenant_id, id, statement, stored, verb_id, registration, object_statement_id, voiding)
       SELECT $1, r.id, r.statement, r.stored, r.verb_id, r.registration, r.object_statement_id, r.voiding
         FROM jsonb_to_recordset($2::jsonb) AS r(
                ord int, id uuid, statement jsonb, stored timestamptz, verb_id text,
                registration uuid, object_statement_id uuid, voiding boolean)
        WHERE (SELECT locks FROM voiding_locks) IS NOT NULL
        ORDER BY r.ord
       ON CONFLICT (tenant_id, id) DO NOTHING
       RETURNING id, seq, stored
     ), keyed AS (
       INSERT INTO xapi_statement_keys (tenant_id, kind, key, stored, seq, statement_id, reach)
       SELECT $1, substr(k.kind_key, 1, 1)::"char", substr(k.kind_key, 2), i.stored, i.seq, i.id, k.reach
         FROM unnest($3::text[], $4::uuid[], $5::smallint[]) AS k(kind_key, statement_id, reach)
         JOIN inserted AS i ON i.id = k.statement_id
     )
     SELECT i.id::text AS id, i.seq::text AS seq, NULL AS target, i.stored FROM inserted AS i
     UNION ALL
     SELECT s.id::text, s.seq::text, i.id::text, s.stored
       FROM inserted AS i
       CROSS JOIN LATERAL (
         SELECT id, stored, seq FROM xapi_statements WHERE tenant_id = $1 AND object_statement_id = i.id
       ) AS s`,
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
      keyRows.map((row) => row[0]),
      keyRows.map((row) => row[1]),
      keyRows.map((row) => row[2]),
      voidingCheckIds(statements),
      targets,
      VOIDING_LOCK_BUCKETS,
    ],
  );
  const inserted = new Set(rows.filter((row) => row.target === null).map((row) => row.id));
  if (inserted.size === 0) return inserted;
  const firstReferrers = rows
    .filter((row) => row.target !== null && !inserted.has(row.id))
    .map((row) => ({ id: row.id, stored: new Date(row.stored).toISOString(), seq: row.seq, target: row.target as string }));
  const referrerRows: KeyRow[] = [];
  for (const referrer of await storedReferrers(sql, tenantId, [...inserted], firstReferrers)) {
    const keys = lift(await closure.keysOf(referrer.target));
    for (const [key, reach] of keys) referrerRows.push([key, referrer.stored, referrer.seq, referrer.id, reach]);
  }
  await insertReferrerKeys(sql, tenantId, referrerRows);
  return inserted;
}

/** A key row: kind and key joined (`g` + agent key, …), stored, seq, statement id, reach. */
type KeyRow = [string, string, string, string, number];

/** Kind-prefixed key → the lowest reach. */
type Keys = Map<string, number>;

/** The statement's own keys, without what a StatementRef target adds. */
function ownKeys(index: StatementIndex): Keys {
  const keys: Keys = new Map();
  for (const [agent, direct] of index.agents) keys.set(`g${agent}`, index.actors.has(agent) ? 0 : direct ? 1 : 2);
  for (const [activity, direct] of index.activities) keys.set(`a${activity}`, direct ? 1 : 2);
  keys.set(`v${index.verbId}`, 1);
  if (index.registration !== null) keys.set(`r${index.registration}`, 1);
  return keys;
}

/** What a statement targeting one with these keys takes from it: all of them, at reach 1 or more. */
function lift(keys: Keys): Keys {
  return new Map([...keys].map(([key, reach]) => [key, Math.max(reach, 1)]));
}

function merge(into: Keys, from: Keys): void {
  for (const [key, reach] of from) into.set(key, Math.min(reach, into.get(key) ?? reach));
}

/** The deepest chain of StatementRefs followed; deeper targets are left out of the closure. */
const MAX_REF_DEPTH = 32;

/**
 * The keys of statements with their StatementRef closure, for statements of the batch being
 * stored and the stored ones they target, read once each.
 */
class KeyClosure {
  private readonly batch: Map<string, StatementIndex>;
  private readonly memo = new Map<string, Keys>();

  constructor(
    private readonly sql: SqlClient,
    private readonly tenantId: string,
    batch: readonly NewStatement[],
  ) {
    this.batch = new Map(batch.map((item) => [item.id, item.index]));
  }

  async keysOf(id: string, depth = 0): Promise<Keys> {
    const known = this.memo.get(id);
    if (known) return known;
    const index = this.batch.get(id) ?? (await this.readIndex(id));
    const keys = index ? ownKeys(index) : new Map<string, number>();
    // Set before following the target, so a cycle of StatementRefs ends here.
    this.memo.set(id, keys);
    if (index?.objectStatementId && depth < MAX_REF_DEPTH) merge(keys, lift(await this.keysOf(index.objectStatementId, depth + 1)));
    return keys;
  }

  private async readIndex(id: string): Promise<StatementIndex | undefined> {
    const [found] = await findStatements(this.sql, this.tenantId, [id]);
    return found ? indexStatement(found.statement) : undefined;
  }
}

/**
 * Stored statements (outside `ids`) that target one of `ids`, directly or through other stored
 * statements, with the one of `ids` they lead to. Usually none: a StatementRef rarely arrives
 * before its target.
 *
 * Followed one level a query, each id a probe of the object_statement_id index (LATERAL): as a
 * recursive query the planner, once the statistics know the table is large, would rather scan
 * it whole for every batch.
 */
async function storedReferrers(
  sql: SqlClient,
  tenantId: string,
  ids: readonly string[],
  /** The first level, read with the insert. */
  first: ReadonlyArray<Referrer>,
): Promise<Referrer[]> {
  const found = new Map<string, Referrer>();
  const excluded = new Set(ids);
  const add = (referrer: Referrer, next: Map<string, string>) => {
    if (excluded.has(referrer.id) || found.has(referrer.id)) return;
    found.set(referrer.id, referrer);
    next.set(referrer.id, referrer.target);
  };
  // Each referrer leads to one of `ids`; the level being followed maps referrer → that id.
  let level = new Map<string, string>();
  for (const referrer of first) add(referrer, level);
  for (let depth = 1; depth < MAX_REF_DEPTH && level.size > 0; depth++) {
    const { rows } = await sql.query<{ id: string; stored: Date | string; seq: string; object_statement_id: string }>(
      `SELECT s.id::text AS id, s.stored, s.seq::text AS seq, s.object_statement_id::text AS object_statement_id
         FROM unnest($2::uuid[]) AS t (id)
         CROSS JOIN LATERAL (
           SELECT id, stored, seq, object_statement_id FROM xapi_statements
            WHERE tenant_id = $1 AND object_statement_id = t.id
         ) AS s`,
      [tenantId, [...level.keys()]],
    );
    const next = new Map<string, string>();
    for (const row of rows) {
      const target = level.get(row.object_statement_id) as string;
      add({ id: row.id, stored: new Date(row.stored).toISOString(), seq: row.seq, target }, next);
    }
    level = next;
  }
  return [...found.values()];
}

interface Referrer {
  id: string;
  stored: string;
  seq: string;
  target: string;
}

/**
 * Inserts the key rows stored statements take from a new target: a row already there keeps the
 * lower reach. (A new statement's own rows go in with its insert, insertStatements.)
 */
async function insertReferrerKeys(sql: SqlClient, tenantId: string, keyRows: readonly KeyRow[]): Promise<void> {
  if (keyRows.length === 0) return;
  // One INSERT may not touch a row twice: merge duplicates (a referrer reached twice) first.
  const unique = new Map<string, KeyRow>();
  for (const row of keyRows) {
    const id = `${row[0]}\u0000${row[2]}`;
    const seen = unique.get(id);
    if (!seen || row[4] < seen[4]) unique.set(id, row);
  }
  const rows = [...unique.values()];
  await sql.query(
    `INSERT INTO xapi_statement_keys (tenant_id, kind, key, stored, seq, statement_id, reach)
     SELECT $1, substr(k.kind_key, 1, 1)::"char", substr(k.kind_key, 2), k.stored, k.seq, k.statement_id, k.reach
       FROM unnest($2::text[], $3::timestamptz[], $4::bigint[], $5::uuid[], $6::smallint[])
         AS k(kind_key, stored, seq, statement_id, reach)
     ON CONFLICT (tenant_id, kind, key, stored, seq) DO UPDATE SET reach = LEAST(xapi_statement_keys.reach, EXCLUDED.reach)`,
    [
      tenantId,
      rows.map((row) => row[0]),
      rows.map((row) => row[1]),
      rows.map((row) => row[2]),
      rows.map((row) => row[3]),
      rows.map((row) => row[4]),
    ],
  );
}

/**
 * The buckets a tenant's statement ids fall in for markVoided's locks: the most advisory locks one
 * statement write holds, half PostgreSQL's default max_locks_per_transaction.
 */
export const VOIDING_LOCK_BUCKETS = 32;

/**
 * The voiding locks insertStatements takes before it inserts (its CTE `voiding_locks`; $6 the
 * batch's voidingCheckIds, which hold those of the statements inserted that markVoided is given,
 * $7 the targets of the batch's voiding statements, $8 the buckets).
 *
 * A target and its voiding statement stored by two concurrent transactions would each miss
 * the other's uncommitted row, so the two must take turns. Locks are taken on buckets, not ids:
 * an advisory lock is an entry in PostgreSQL's lock table, which every database of the cluster
 * shares (max_locks_per_transaction × max_connections, 6,400 by default), and one per id let a
 * large batch fill it ("out of shared memory") and fail other tenants' transactions. Each id
 * falls in one of VOIDING_LOCK_BUCKETS buckets of its tenant; a transaction locks each of its
 * buckets once, in bucket order (so two transactions cannot deadlock): exclusively where an id
 * is the target of a voiding statement it can see (its own, or one committed), else shared. Two
 * plain writes never wait for each other; a voiding statement and the write of its target (or a
 * statement sharing its bucket) take turns, the second seeing the first's committed row. A lock
 * on a bucket covers every id in it, so it serialises at least what a lock per id did.
 *
 * They are taken before the insert, in its own statement (one round trip less): markVoided's
 * UPDATE, a later statement, reads with a snapshot taken once they are held.
 */
const VOIDING_LOCKS = `voiding_locks AS (
       SELECT count(CASE WHEN b.exclusive
                         THEN pg_advisory_xact_lock(hashtextextended('xapi_statements:' || $1::uuid::text || ':' || b.bucket, 0))
                         ELSE pg_advisory_xact_lock_shared(hashtextextended('xapi_statements:' || $1::uuid::text || ':' || b.bucket, 0)) END) AS locks
         FROM (SELECT i.bucket, bool_or(i.targeted) AS exclusive
                 FROM (SELECT abs(hashtextextended(ids.id::text, 0) % $8) AS bucket,
                              ids.id = ANY($7::uuid[]) OR EXISTS (
                                SELECT 1 FROM xapi_statements AS voiding
                                 WHERE voiding.tenant_id = $1 AND voiding.object_statement_id = ids.id AND voiding.voiding
                                ${PER_ROW_PROBE}) AS targeted
                         FROM (SELECT DISTINCT unnest($6::uuid[]) AS id) AS ids) AS i
                GROUP BY i.bucket
                ORDER BY i.bucket) AS b
     )`;

/** The ids the batch's voiding statements target. */
const voidingTargets = (items: readonly NewStatement[]): string[] =>
  items.flatMap((item) => (item.index.voiding && item.index.objectStatementId ? [item.index.objectStatementId] : []));

/**
 * The ids markVoided checks for these statements: the ones that are not voiding statements
 * themselves, and the targets of those that are.
 */
export const voidingCheckIds = (items: readonly NewStatement[]): string[] => [
  ...items.filter((item) => !item.index.voiding).map((item) => item.id),
  ...voidingTargets(items),
];

/**
 * Marks voided every statement among `ids` that is not itself a voiding statement and that a
 * stored voiding statement targets (xAPI 2.0 Part 2 §2.3.2.s2.b3). Run after insertStatements, in
 * its transaction (which took the voiding locks of these ids, VOIDING_LOCKS), it covers a voiding
 * statement arriving after its target, before it, and in the same batch.
 * Answers the ids it marked (lower case), so the caller need not read them back.
 */
export async function markVoided(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
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
                 AND voiding.voiding
              -- A probe of the object_statement_id index per target, not a join over all StatementRefs.
              ${PER_ROW_PROBE})
     RETURNING target.id::text AS id`,
    [tenantId, ids],
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * One page of a statement list, newest stored first unless `ascending`, voided statements left
 * out, read as JSON text. With matches, the first one's key rows are walked in (stored, seq)
 * order and the others probed at the same position (xapi_statement_keys holds the StatementRef
 * closure, so a statement targeting a match is found the same way, xAPI 2.0 Part 3 §2.1.3.s3);
 * without, the statements' own (tenant_id, stored, seq) index. Either way the walk stops after
 * `limit + 1` rows, so the caller knows whether more follow.
 */
export async function listStatements(sql: SqlClient, tenantId: string, filter: StatementFilter): Promise<ListedStatement[]> {
  const [walked, ...probed] = filter.matches;
  // The walked table's position columns: the key rows when a key is walked, else the statements.
  const at = walked ? 'k' : 's';
  const where = new SqlFilter([tenantId], `${at}.tenant_id = $1`, 'NOT s.voided');
  if (walked) where.and(`k.kind = ${where.bind(walked.kind)} AND k.key = ${where.bind(walked.key)}`, reachCondition('k', walked));
  for (const match of probed) {
    where.and(
      `EXISTS (SELECT 1 FROM xapi_statement_keys AS p
                WHERE p.tenant_id = $1 AND p.kind = ${where.bind(match.kind)} AND p.key = ${where.bind(match.key)}
                  AND p.stored = ${at}.stored AND p.seq = ${at}.seq AND ${reachCondition('p', match)}
               ${PER_ROW_PROBE})`,
    );
  }
  where.andIf(filter.since, (p) => `${at}.stored > ${p}::timestamptz`);
  where.andIf(filter.until, (p) => `${at}.stored <= ${p}::timestamptz`);
  const direction = filter.ascending ? 'ASC' : 'DESC';
  if (filter.after) {
    const comparison = filter.ascending ? '>' : '<';
    where.and(
      `(${at}.stored, ${at}.seq) ${comparison} (${where.bind(filter.after.stored)}::timestamptz, ${where.bind(filter.after.seq)}::bigint)`,
    );
  }
  const from = walked
    ? 'xapi_statement_keys AS k JOIN xapi_statements AS s ON s.tenant_id = k.tenant_id AND s.id = k.statement_id'
    : 'xapi_statements AS s';
  const { rows } = await sql.transaction(async (tx) => {
    await tx.script(WALK_ONLY);
    return tx.query<{ json: string; stored: Date | string; seq: string }>(
      `SELECT s.statement::text AS json, ${at}.stored, ${at}.seq::text AS seq
         FROM ${from} ${where.clause}
        ORDER BY ${at}.stored ${direction}, ${at}.seq ${direction}
        LIMIT ${where.bind(filter.limit + 1)}`,
      where.values,
    );
  });
  return rows.map((row) => ({ json: row.json, position: { stored: new Date(row.stored).toISOString(), seq: row.seq } }));
}

/**
 * The plan of a list, whatever the statistics say: the index walk in the order answered, joined to
 * the statements by primary key, stopping at the limit. Right after a bulk load the planner
 * believes a `since` window or a key holds a handful of rows and would rather collect them all
 * and sort (seconds, at a million statements); with sorts, bitmap scans and hash or merge joins
 * priced out for this one transaction, the walk is the only plan left. The other filters are
 * probes, each a per-row subquery on the primary key rather than a join (PER_ROW_PROBE).
 */
const WALK_ONLY = `SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off;
                   SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL enable_seqscan = off`;

function reachCondition(alias: string, match: KeyMatch): string {
  return match.reach === 2 ? 'true' : `${alias}.reach <= ${match.reach}`;
}

/**
 * Deletes a tenant's statement keys, inside the tenant deletion's transaction: the table has no
 * foreign key to tenants (migration 0015 says why), so the cascade does not reach it.
 */
export async function deleteTenantStatementKeys(tx: SqlClient, tenantId: string): Promise<void> {
  await tx.query('DELETE FROM xapi_statement_keys WHERE tenant_id = $1', [tenantId]);
}
