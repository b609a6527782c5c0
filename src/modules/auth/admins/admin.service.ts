import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { badRequest, conflict } from '../../../platform/http/app-error.js';
import { hashPassword, UNKNOWN_ACCOUNT_HASH, verifyPassword } from '../../../platform/passwords.js';
import type { Tenant } from '../../tenancy/tenancy.service.js';
import { findAdminByEmail, findAdminById, insertAdmin } from './admin.repository.js';

export interface Admin {
  id: string;
  email: string;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
export const MIN_PASSWORD_LENGTH = 12;

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** Creates an admin who can sign in on the authorize page of the tenant's clients. */
export async function createAdmin(sql: SqlClient, tenant: Tenant, email: string, password: string): Promise<Admin> {
  const address = normaliseEmail(email);
  if (!EMAIL.test(address)) throw badRequest('admin.invalid_email', `"${email}" is not an e-mail address.`);
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw badRequest('admin.weak_password', `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if (await findAdminByEmail(sql, tenant.id, address)) {
    throw conflict('admin.exists', `An admin with the e-mail ${address} already exists in tenant "${tenant.name}".`);
  }
  const id = randomUUID();
  await insertAdmin(sql, tenant.id, id, address, await hashPassword(password));
  return { id, email: address };
}

/**
 * The admin with that e-mail and password, or undefined. An unknown address costs the same
 * password hash as a known one, so response time does not tell which addresses exist.
 */
export async function verifyAdminPassword(sql: SqlClient, tenantId: string, email: string, password: string): Promise<Admin | undefined> {
  const admin = await findAdminByEmail(sql, tenantId, normaliseEmail(email));
  const matches = await verifyPassword(password, admin?.password_hash ?? UNKNOWN_ACCOUNT_HASH);
  return admin && matches ? { id: admin.id, email: admin.email } : undefined;
}

export async function findAdmin(sql: SqlClient, tenantId: string, id: string): Promise<Admin | undefined> {
  const admin = await findAdminById(sql, tenantId, id);
  return admin && { id: admin.id, email: admin.email };
}
