import type { SqlClient } from '../../../platform/database/sql-client.js';

export interface AdminRow {
  id: string;
  email: string;
  password_hash: string;
}

export async function insertAdmin(sql: SqlClient, tenantId: string, id: string, email: string, passwordHash: string): Promise<void> {
  await sql.query('INSERT INTO admins (tenant_id, id, email, password_hash) VALUES ($1, $2, $3, $4)', [tenantId, id, email, passwordHash]);
}

export async function findAdminByEmail(sql: SqlClient, tenantId: string, email: string): Promise<AdminRow | undefined> {
  const { rows } = await sql.query<AdminRow>('SELECT id, email, password_hash FROM admins WHERE tenant_id = $1 AND email = $2', [
    tenantId,
    email,
  ]);
  return rows[0];
}

export async function findAdminById(sql: SqlClient, tenantId: string, id: string): Promise<AdminRow | undefined> {
  const { rows } = await sql.query<AdminRow>('SELECT id, email, password_hash FROM admins WHERE tenant_id = $1 AND id = $2', [tenantId, id]);
  return rows[0];
}
