import type { SqlClient } from '../../platform/database/sql-client.js';
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
export async function findAuditEntries(
  sql: SqlClient,
  tenantId: string,
  filter: AuditFilter,
  page: { limit: number; skip: number },
): Promise<AuditEntry[]> {
  const conditions = ['tenant_id = $1'];
  const values: unknown[] = [tenantId];
  const where = (condition: (parameter: string) => string, value: unknown) => {
    values.push(value);
    conditions.push(condition(`$${values.length}`));
  };
  if (filter.actorId !== undefined) where((p) => `actor_key = ${p}`, filter.actorId);
  if (filter.source !== undefined) where((p) => `source = ${p}`, filter.source);
  if (filter.action !== undefined) where((p) => `action = ${p}`, filter.action);
  if (filter.since !== undefined) where((p) => `at > ${p}`, filter.since);
  if (filter.until !== undefined) where((p) => `at <= ${p}`, filter.until);
  values.push(page.limit, page.skip);
  const { rows } = await sql.query<AuditRow>(
    `SELECT id, at, action, actor_key, actor, source, principal_kind, principal_id, details
       FROM audit_log WHERE ${conditions.join(' AND ')}
      ORDER BY at DESC, seq DESC LIMIT $${values.length - 1} OFFSET $${values.length}`,
    values,
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
