import type { SqlClient } from '../../platform/database/sql-client.js';
import { countWhere, SqlFilter, type Page } from '../../platform/database/sql-filters.js';
import type { AuditEntry, AuditFilter } from './audit.service.js';

interface AuditRow {
  id: string;
  at: Date;
  action: string;
  actor_key: string | null;
  actor: Record<string, unknown> | null;
  source: string | null;
  principal_kind: string;
  principal_id: string;
  details: Record<string, unknown>;
}

export async function insertAuditEntry(sql: SqlClient, tenantId: string, entry: Omit<AuditEntry, 'at'>): Promise<void> {
  await sql.query(
    `INSERT INTO audit_log (tenant_id, id, action, actor_key, actor, source, principal_kind, principal_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      tenantId,
      entry.id,
      entry.action,
      entry.actorId ?? null,
      entry.actor ? JSON.stringify(entry.actor) : null,
      entry.source ?? null,
      entry.principal.kind,
      entry.principal.id,
      JSON.stringify(entry.details),
    ],
  );
}

/** Entries written per statement: a sync deactivating thousands of people writes one entry each, a batch at a time. */
const INSERT_BATCH = 5_000;

/** Many entries of one tenant, one statement per INSERT_BATCH. */
export async function insertAuditEntries(sql: SqlClient, tenantId: string, entries: ReadonlyArray<Omit<AuditEntry, 'at'>>): Promise<void> {
  for (let start = 0; start < entries.length; start += INSERT_BATCH) {
    const batch = entries.slice(start, start + INSERT_BATCH).map((entry) => ({
      id: entry.id,
      action: entry.action,
      actor_key: entry.actorId ?? null,
      actor: entry.actor ?? null,
      source: entry.source ?? null,
      principal_kind: entry.principal.kind,
      principal_id: entry.principal.id,
      details: entry.details,
    }));
    await sql.query(
      `INSERT INTO audit_log (tenant_id, id, action, actor_key, actor, source, principal_kind, principal_id, details)
       SELECT $1, r.id, r.action, r.actor_key, r.actor, r.source, r.principal_kind, r.principal_id, r.details
         FROM jsonb_to_recordset($2::jsonb)
              AS r(id uuid, action text, actor_key text, actor jsonb, source text, principal_kind text, principal_id text, details jsonb)`,
      [tenantId, JSON.stringify(batch)],
    );
  }
}

/** The conditions of `filter` on the tenant's log, as the list and its count read them. */
function auditWhere(tenantId: string, filter: AuditFilter): SqlFilter {
  const where = new SqlFilter([tenantId], 'tenant_id = $1')
    .andIf(filter.actorId, (p) => `actor_key = ${p}`)
    .andIf(filter.source, (p) => `source = ${p}`)
    .andIf(filter.action, (p) => `action = ${p}`)
    .andIf(filter.since, (p) => `at > ${p}`)
    .andIf(filter.until, (p) => `at <= ${p}`);
  const people = filter.people?.('actor_key', (value) => where.bind(value));
  if (people !== undefined) where.and(people);
  return where;
}

/**
 * A page of the entries `filter` keeps, newest first (`seq`, the order of writing, breaks ties),
 * and how many it keeps in all; the indexes on (tenant, at), (tenant, actor, at) and (tenant,
 * source, at) serve them.
 */
export async function findAuditEntries(
  sql: SqlClient,
  tenantId: string,
  filter: AuditFilter,
  page: Page,
): Promise<{ entries: AuditEntry[]; total: number }> {
  const where = auditWhere(tenantId, filter);
  const total = await countWhere(sql, 'audit_log', where);
  const { rows } = await sql.query<AuditRow>(
    `SELECT id, at, action, actor_key, actor, source, principal_kind, principal_id, details
       FROM audit_log ${where.clause}
      ${where.paged('at DESC, seq DESC', page)}`,
    where.values,
  );
  const entries = rows.map((row) => ({
    id: row.id,
    at: new Date(row.at),
    action: row.action,
    ...(row.actor_key === null ? {} : { actorId: row.actor_key }),
    ...(row.actor === null ? {} : { actor: row.actor }),
    ...(row.source === null ? {} : { source: row.source }),
    principal: { kind: row.principal_kind, id: row.principal_id },
    details: row.details,
  }));
  return { entries, total };
}
