import type { SqlClient } from '../../platform/database/sql-client.js';
import { SqlFilter, type Page } from '../../platform/database/sql-filters.js';
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

/** Newest first (`seq`, the order of writing, breaks ties), every filter optional; the indexes on (tenant, at), (tenant, actor, at) and (tenant, source, at) serve them. */
export async function findAuditEntries(sql: SqlClient, tenantId: string, filter: AuditFilter, page: Page): Promise<AuditEntry[]> {
  const where = new SqlFilter([tenantId], 'tenant_id = $1')
    .andIf(filter.actorId, (p) => `actor_key = ${p}`)
    .andIf(filter.source, (p) => `source = ${p}`)
    .andIf(filter.action, (p) => `action = ${p}`)
    .andIf(filter.since, (p) => `at > ${p}`)
    .andIf(filter.until, (p) => `at <= ${p}`);
  const people = filter.people?.('actor_key', (value) => where.bind(value));
  if (people !== undefined) where.and(people);
  const { rows } = await sql.query<AuditRow>(
    `SELECT id, at, action, actor_key, actor, source, principal_kind, principal_id, details
       FROM audit_log ${where.clause}
      ${where.paged('at DESC, seq DESC', page)}`,
    where.values,
  );
  return rows.map((row) => ({
    id: row.id,
    at: new Date(row.at),
    action: row.action,
    ...(row.actor_key === null ? {} : { actorId: row.actor_key }),
    ...(row.actor === null ? {} : { actor: row.actor }),
    ...(row.source === null ? {} : { source: row.source }),
    principal: { kind: row.principal_kind, id: row.principal_id },
    details: row.details,
  }));
}
