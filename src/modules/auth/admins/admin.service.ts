import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { badRequest, conflict, notFound } from '../../../platform/http/app-error.js';
import { hashPassword, UNKNOWN_ACCOUNT_HASH, verifyPassword } from '../../../platform/passwords.js';
import type { Tenant } from '../../../kernel/principal.js';
import type { TokenService } from '../oauth/token.service.js';
import {
  deleteAccountFailures,
  deleteAdminRows,
  findAdminByEmail,
  findAdminById,
  insertAdmin,
  listAdminRows,
  updateAdminPassword,
  updateAdminScope,
  type AdminListing,
} from './admin.repository.js';

export type { AdminListing };

export interface Admin {
  id: string;
  email: string;
  /** The organisation entry the admin is limited to, when they are (docs/learning.md, "Scoped administration and managers"). */
  scope?: string;
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
export const MIN_PASSWORD_LENGTH = 12;
/**
 * The longest e-mail address (RFC 5321 §4.5.3.1.3's path of 256 octets less its angle brackets).
 * An address is a key of the admins and of the sign-in throttle's counts, index entries that
 * cannot hold kilobytes.
 */
export const MAX_EMAIL_LENGTH = 254;

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/**
 * Creates an admin who can sign in on the authorize page of the tenant's clients; with `scope`,
 * limited to that organisation entry and what is below it (the caller checks that the entry
 * exists: the command line does).
 */
export async function createAdmin(sql: SqlClient, tenant: Tenant, email: string, password: string, scope?: string): Promise<Admin> {
  const address = normaliseEmail(email);
  if (!EMAIL.test(address)) throw badRequest('admin.invalid_email', `"${email}" is not an e-mail address.`);
  if (address.length > MAX_EMAIL_LENGTH) {
    throw badRequest(
      'admin.invalid_email',
      `The e-mail address has ${address.length} characters; an e-mail address has at most ${MAX_EMAIL_LENGTH}.`,
    );
  }
  checkPassword(password);
  if (await findAdminByEmail(sql, tenant.id, address)) {
    throw conflict('admin.exists', `An admin with the e-mail ${address} already exists in tenant "${tenant.name}".`);
  }
  const id = randomUUID();
  await insertAdmin(sql, tenant.id, id, address, await hashPassword(password), scope);
  return { id, email: address, ...(scope === undefined ? {} : { scope }) };
}

/**
 * The admin a single sign-on vouched for (AuthorizeService.finishSignOn), as the provider made them
 * (`scope`: an organisation entry, or null for the whole tenant): the one with that address, else a
 * new admin without a password, who signs in only through single sign-on (until the command line
 * sets a password). The provider decides the scope of the admins it made: one without a password
 * whose scope is another is given this one (`scopeChanged`: the caller revokes their tokens); an
 * admin with a password (made by the command line) keeps theirs.
 */
export async function signedOnAdmin(
  sql: SqlClient,
  tenant: Tenant,
  email: string,
  scope: string | null,
): Promise<{ admin: Admin; created: boolean; scopeChanged: boolean }> {
  const address = normaliseEmail(email);
  const existing = await findAdminByEmail(sql, tenant.id, address);
  if (existing) {
    const scopeChanged = existing.password_hash === null && existing.scope_organisation_id !== scope;
    if (scopeChanged) await updateAdminScope(sql, tenant.id, address, scope);
    const kept = scopeChanged ? scope : existing.scope_organisation_id;
    return { admin: { id: existing.id, email: existing.email, ...(kept === null ? {} : { scope: kept }) }, created: false, scopeChanged };
  }
  if (!EMAIL.test(address) || address.length > MAX_EMAIL_LENGTH) {
    throw badRequest('admin.invalid_email', `The identity provider's address "${email}" is not an e-mail address an admin can have.`);
  }
  const id = randomUUID();
  await insertAdmin(sql, tenant.id, id, address, null, scope ?? undefined);
  return { admin: { id, email: address, ...(scope === null ? {} : { scope }) }, created: true, scopeChanged: false };
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

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw badRequest('admin.weak_password', `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
}

const adminNotFound = (tenant: Tenant, email: string) =>
  notFound('admin.not_found', `Tenant "${tenant.name}" has no admin with the e-mail ${normaliseEmail(email)}.`, {
    email: normaliseEmail(email),
  });

export function listAdmins(sql: SqlClient, tenant: Tenant): Promise<AdminListing[]> {
  return listAdminRows(sql, tenant.id);
}

/** Replaces the password (same rules as creation). Tokens already issued stay valid: deleting the admin ends them. */
export async function setAdminPassword(sql: SqlClient, tenant: Tenant, email: string, password: string): Promise<Admin> {
  checkPassword(password);
  const address = normaliseEmail(email);
  const admin = await findAdminByEmail(sql, tenant.id, address);
  if (!admin) throw adminNotFound(tenant, email);
  if (!(await updateAdminPassword(sql, tenant.id, address, await hashPassword(password)))) throw adminNotFound(tenant, email);
  return { id: admin.id, email: admin.email };
}

/** Deletes the admin and everything issued to them, in one transaction; their access tokens are refused at once in every process. */
export async function deleteAdmin(sql: SqlClient, tokens: TokenService, tenant: Tenant, email: string): Promise<void> {
  const revoked = await sql.transaction((tx) => deleteAdminRows(tx, tenant.id, normaliseEmail(email)));
  if (!revoked) throw adminNotFound(tenant, email);
  await tokens.announce(revoked);
}

/**
 * Limits the admin to the organisation entry `scope` and what is below it, or (null) gives them the
 * whole tenant again. Every token issued to them is revoked in the same transaction and refused at
 * once in every process, so the new scope applies from their next sign-in, never to a token that
 * was issued before it.
 */
export async function setAdminScope(
  sql: SqlClient,
  tokens: TokenService,
  tenant: Tenant,
  email: string,
  scope: string | null,
): Promise<Admin> {
  const address = normaliseEmail(email);
  const { id, revoked } = await sql.transaction(async (tx) => {
    const adminId = await updateAdminScope(tx, tenant.id, address, scope);
    if (adminId === undefined) throw adminNotFound(tenant, email);
    return { id: adminId, revoked: await tokens.revokeAdminTokens(tx, tenant.id, adminId) };
  });
  await tokens.announce(revoked);
  return { id, email: address, ...(scope === null ? {} : { scope }) };
}

/**
 * Clears the sign-in throttle of the account (its failures and lock); the counts of the addresses
 * it was tried from stay. Answers whether there was anything to clear.
 */
export async function unlockAdmin(sql: SqlClient, tenant: Tenant, email: string): Promise<boolean> {
  const address = normaliseEmail(email);
  if (!(await findAdminByEmail(sql, tenant.id, address))) throw adminNotFound(tenant, email);
  return deleteAccountFailures(sql, tenant.id, address);
}
