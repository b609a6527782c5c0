import type { Tenant } from '../../kernel/principal.js';
import type { SqlClient } from '../../platform/database/sql-client.js';

export type { Tenant };

interface TenantRow {
  id: string;
  name: string;
  created_at: Date;
}

const toTenant = (row: TenantRow): Tenant => ({ id: row.id, name: row.name, createdAt: new Date(row.created_at) });

export async function insertTenant(sql: SqlClient, id: string, name: string): Promise<Tenant> {
  const { rows } = await sql.query<TenantRow>('INSERT INTO tenants (id, name) VALUES ($1, $2) RETURNING id, name, created_at', [id, name]);
  return toTenant(rows[0]);
}

export async function findTenantByName(sql: SqlClient, name: string): Promise<Tenant | undefined> {
  const { rows } = await sql.query<TenantRow>('SELECT id, name, created_at FROM tenants WHERE name = $1', [name]);
  return rows[0] && toTenant(rows[0]);
}

export async function findTenantById(sql: SqlClient, id: string): Promise<Tenant | undefined> {
  const { rows } = await sql.query<TenantRow>('SELECT id, name, created_at FROM tenants WHERE id = $1', [id]);
  return rows[0] && toTenant(rows[0]);
}

export async function countTenants(sql: SqlClient): Promise<number> {
  const { rows } = await sql.query<{ count: number }>('SELECT count(*)::int AS count FROM tenants');
  return rows[0].count;
}

export async function listTenantRows(sql: SqlClient): Promise<Tenant[]> {
  const { rows } = await sql.query<TenantRow>('SELECT id, name, created_at FROM tenants ORDER BY name');
  return rows.map(toTenant);
}

/**
 * Deletes the tenant and every row it owns; run it in a transaction. Every tenant-owned table
 * references `tenants` with ON DELETE CASCADE, directly or through a parent row, except
 * `xapi_statement_keys` (0015: no foreign key, to keep statement writes cheap), deleted here first.
 */
/** Deletes the tenant row; every table with a foreign key to it follows (ON DELETE CASCADE). */
export async function deleteTenantRows(tx: SqlClient, id: string): Promise<boolean> {
  const { rowCount } = await tx.query('DELETE FROM tenants WHERE id = $1', [id]);
  return rowCount > 0;
}
