import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError, badRequest, conflict, notFound } from '../../../platform/http/app-error.js';
import { textProblem } from '../../../platform/json-guard.js';
import { hashPassword, unknownAccountHash, verifyPassword } from '../../../platform/passwords.js';
import type { Principal, Tenant } from '../../../kernel/principal.js';
import { recordAudit } from '../../audit/index.js';
import { existingOrganisationIds } from '../../organisation/index.js';
import { revokeAdminTokenRows } from '../oauth/token.repository.js';
import type { TokenService } from '../oauth/token.service.js';
import {
  deleteAccountFailures,
  deleteAdminCodes,
  deleteAdminRows,
  deleteConnectionAdminRows,
  findAdminByEmail,
  findAdminById,
  findConnectionAdmins,
  insertAdmin,
  listAdminRows,
  updateAdminPassword,
  updateAdminScope,
  type AdminListing,
  type AdminRow,
} from './admin.repository.js';

export type { AdminListing };

export interface Admin {
  id: string;
  email: string;
  /** The organisation entry the admin is limited to, when they are (docs/learning.md, "Scoped administration and managers"). */
  scope?: string;
}

/**
 * Who changed an admin, for the audit log: an admin over HTTP, the command line's operator, a
 * single sign-on connection (`source` `sso:<name>`).
 */
export interface AdminChangeBy {
  principal: Principal;
  /** The `svc-account-source` header, or the single sign-on's `sso:<connection>`. */
  source?: string;
}

/** Why single sign-on ended an admin it made, in their audit entry's `details.reason`. */
export type EndedBecause = 'connection_deleted' | 'connection_changed' | 'not_admin';

export const AdminErrors = {
  notFound: (tenant: Tenant, email: string) =>
    notFound('admin.not_found', `Tenant "${tenant.name}" has no admin with the e-mail ${normaliseEmail(email)}.`, {
      email: normaliseEmail(email),
    }),
  idNotFound: (tenant: Tenant, id: string) => notFound('admin.not_found', `Tenant "${tenant.name}" has no admin ${id}.`, { id }),
  unknownScope: (tenant: Tenant, scope: string) =>
    badRequest(
      'admin.invalid_scope',
      `Tenant "${tenant.name}" has no organisation entry "${scope}": scope names an entry of the imported structure (GET /api/organisation).`,
      { problems: [{ path: '/scope', message: 'names no organisation entry of the tenant' }] },
    ),
  self: (action: string) =>
    conflict(
      'admin.self',
      `An admin cannot ${action} their own account: another admin of the whole tenant does it, so that the tenant is never left without one by accident.`,
    ),
  /**
   * Single sign-on adopts only the admins its connection made: an admin with the provider's address
   * made otherwise (with a password, or by another connection) is not signed in through it.
   */
  notMadeHere: (email: string, connection: string) =>
    new AppError(
      'auth.admin_not_made_here',
      403,
      `The admin ${email} was not made by single sign-on through "${connection}": they sign in with their password, or an admin of the tenant removes that account first (DELETE /api/admins/{id}) and the provider makes it again.`,
    ),
};

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
export const MIN_PASSWORD_LENGTH = 12;
/**
 * The longest e-mail address (RFC 5321 §4.5.3.1.3's path of 256 octets less its angle brackets).
 * An address is a key of the admins and of the sign-in throttle's counts, index entries that
 * cannot hold kilobytes.
 */
export const MAX_EMAIL_LENGTH = 254;

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

const adminOf = (row: Pick<AdminRow, 'id' | 'email' | 'scope_organisation_id'>): Admin => ({
  id: row.id,
  email: row.email,
  ...(row.scope_organisation_id === null ? {} : { scope: row.scope_organisation_id }),
});

const auditDetails = (admin: Admin, extra: Record<string, unknown> = {}) => ({
  adminId: admin.id,
  email: admin.email,
  scope: admin.scope ?? null,
  ...extra,
});

/**
 * `scope` if it names one of the tenant's organisation entries (an admin limited to it and what is
 * below it); 400 `admin.invalid_scope` otherwise.
 */
export async function checkedScope(sql: SqlClient, tenant: Tenant, scope: string): Promise<string> {
  if (scope === '' || textProblem(scope) || !(await existingOrganisationIds(sql, tenant.id, [scope])).has(scope)) {
    throw AdminErrors.unknownScope(tenant, scope);
  }
  return scope;
}

/**
 * Creates an admin who can sign in on the authorize page of the tenant's clients; with `scope`,
 * limited to that organisation entry and what is below it (the caller checks that the entry
 * exists: the command line does, checkedScope does over HTTP). With `by`, audited `admin.created`
 * in the same transaction.
 */
export async function createAdmin(
  sql: SqlClient,
  tenant: Tenant,
  email: string,
  password: string,
  scope?: string,
  by?: AdminChangeBy,
): Promise<Admin> {
  const address = normaliseEmail(email);
  if (!EMAIL.test(address)) throw badRequest('admin.invalid_email', `"${email}" is not an e-mail address.`);
  if (address.length > MAX_EMAIL_LENGTH) {
    throw badRequest(
      'admin.invalid_email',
      `The e-mail address has ${address.length} characters; an e-mail address has at most ${MAX_EMAIL_LENGTH}.`,
    );
  }
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  return sql.transaction(async (tx) => {
    if (await findAdminByEmail(tx, tenant.id, address)) {
      throw conflict('admin.exists', `An admin with the e-mail ${address} already exists in tenant "${tenant.name}".`);
    }
    const admin: Admin = { id: randomUUID(), email: address, ...(scope === undefined ? {} : { scope }) };
    await insertAdmin(tx, tenant.id, admin.id, address, passwordHash, scope);
    if (by) await recordAudit(tx, { action: 'admin.created', ...by, details: auditDetails(admin) });
    return admin;
  });
}

/**
 * The admin a single sign-on through `connection` vouched for (AuthorizeService.finishSignOn), as
 * the provider made them (`scope`: an organisation entry, or null for the whole tenant): the one
 * with that address the connection made, else a new admin without a password made by it, who signs
 * in only through single sign-on (until the command line sets a password). Single sign-on never
 * yields more than its mapping grants: an admin with that address made otherwise (with a password,
 * by the command line or over HTTP, or by another connection) is refused (403
 * `auth.admin_not_made_here`), never adopted. The provider decides the scope of the admins it
 * made: one whose scope is another is given this one (`scopeChanged`: the caller revokes their tokens).
 */
export async function signedOnAdmin(
  sql: SqlClient,
  tenant: Tenant,
  email: string,
  scope: string | null,
  connection: string,
): Promise<{ admin: Admin; created: boolean; scopeChanged: boolean }> {
  const address = normaliseEmail(email);
  const existing = await findAdminByEmail(sql, tenant.id, address);
  if (existing) {
    if (existing.sso_connection !== connection) throw AdminErrors.notMadeHere(address, connection);
    const scopeChanged = existing.scope_organisation_id !== scope;
    if (scopeChanged) await updateAdminScope(sql, tenant.id, address, scope);
    return { admin: adminOf({ ...existing, scope_organisation_id: scope }), created: false, scopeChanged };
  }
  if (!EMAIL.test(address) || address.length > MAX_EMAIL_LENGTH) {
    throw badRequest('admin.invalid_email', `The identity provider's address "${email}" is not an e-mail address an admin can have.`);
  }
  const id = randomUUID();
  await insertAdmin(sql, tenant.id, id, address, null, scope ?? undefined, connection);
  return { admin: { id, email: address, ...(scope === null ? {} : { scope }) }, created: true, scopeChanged: false };
}

/**
 * Ends the admins `connection` made (it is deleted): they are deleted with their codes and tokens
 * in the caller's transaction `tx`, each audited `admin.deleted` (`details.reason`
 * `connection_deleted`). Answers the access tokens to announce once it committed (TokenService.announce).
 */
export async function endConnectionAdmins(tx: SqlClient, tenant: Tenant, connection: string, by: AdminChangeBy): Promise<Buffer[]> {
  const { admins, revoked } = await deleteConnectionAdminRows(tx, tenant.id, connection);
  for (const admin of admins) {
    await recordAudit(tx, {
      action: 'admin.deleted',
      ...by,
      details: auditDetails(admin, { connection, reason: 'connection_deleted' satisfies EndedBecause }),
    });
  }
  return revoked;
}

/**
 * Revokes every token of the admins `connection` made (what makes an admin through it changed), and
 * deletes their codes not yet exchanged, in the caller's transaction `tx`: they sign in again under the connection as it is now. Each is
 * audited `admin.tokens_revoked` (`details.reason` `connection_changed`). Answers the access
 * tokens to announce once it committed.
 */
export async function signOutConnectionAdmins(tx: SqlClient, tenant: Tenant, connection: string, by: AdminChangeBy): Promise<Buffer[]> {
  const revoked: Buffer[] = [];
  for (const admin of await findConnectionAdmins(tx, tenant.id, connection)) {
    // A code issued under the former rule and not yet exchanged would give fresh tokens: it goes too.
    await deleteAdminCodes(tx, tenant.id, admin.id);
    revoked.push(...(await revokeAdminTokenRows(tx, tenant.id, admin.id)));
    await recordAudit(tx, {
      action: 'admin.tokens_revoked',
      ...by,
      details: auditDetails(adminOf(admin), { connection, reason: 'connection_changed' satisfies EndedBecause }),
    });
  }
  return revoked;
}

/**
 * Ends the admin with that address if `connection` made them: its provider signed them in with
 * claims that no longer make them an admin. Deleted with their codes and tokens in the caller's
 * transaction `tx`, audited `admin.deleted` (`details.reason` `not_admin`). Answers the access
 * tokens to announce once it committed (none when the connection made no admin of that address).
 */
export async function endSignedOnAdmin(
  tx: SqlClient,
  tenant: Tenant,
  connection: string,
  email: string,
  by: AdminChangeBy,
): Promise<Buffer[]> {
  const address = normaliseEmail(email);
  const existing = await findAdminByEmail(tx, tenant.id, address);
  if (existing?.sso_connection !== connection) return [];
  const deleted = await deleteAdminRows(tx, tenant.id, address);
  if (!deleted) return [];
  await recordAudit(tx, {
    action: 'admin.deleted',
    ...by,
    details: auditDetails(adminOf(existing), { connection, reason: 'not_admin' satisfies EndedBecause }),
  });
  return deleted.revoked;
}

/**
 * The admin with that e-mail and password, or undefined. An unknown address costs the same
 * password hash as a known one, so response time does not tell which addresses exist.
 */
export async function verifyAdminPassword(sql: SqlClient, tenantId: string, email: string, password: string): Promise<Admin | undefined> {
  const admin = await findAdminByEmail(sql, tenantId, normaliseEmail(email));
  const matches = await verifyPassword(password, admin?.password_hash ?? unknownAccountHash());
  return admin && matches ? { id: admin.id, email: admin.email } : undefined;
}

export async function findAdmin(sql: SqlClient, tenantId: string, id: string): Promise<Admin | undefined> {
  const admin = await findAdminById(sql, tenantId, id);
  return admin && { id: admin.id, email: admin.email };
}

/** The tenant's admin `id` with their scope; 404 `admin.not_found` for an id of none (or of another tenant's). */
export async function adminById(sql: SqlClient, tenant: Tenant, id: string): Promise<Admin> {
  const admin = await findAdminById(sql, tenant.id, id);
  if (!admin) throw AdminErrors.idNotFound(tenant, id);
  return adminOf(admin);
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw badRequest('admin.weak_password', `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
}

export function listAdmins(sql: SqlClient, tenant: Tenant): Promise<AdminListing[]> {
  return listAdminRows(sql, tenant.id);
}

/** The tenant's admin `id` as listed; 404 `admin.not_found` for an id of none (or of another tenant's). */
export async function adminListing(sql: SqlClient, tenant: Tenant, id: string): Promise<AdminListing> {
  const [admin] = await listAdminRows(sql, tenant.id, id);
  if (!admin) throw AdminErrors.idNotFound(tenant, id);
  return admin;
}

/** Replaces the password (same rules as creation). Tokens already issued stay valid: deleting the admin ends them. */
export async function setAdminPassword(sql: SqlClient, tenant: Tenant, email: string, password: string): Promise<Admin> {
  checkPassword(password);
  const address = normaliseEmail(email);
  const admin = await findAdminByEmail(sql, tenant.id, address);
  if (!admin) throw AdminErrors.notFound(tenant, email);
  if (!(await updateAdminPassword(sql, tenant.id, address, await hashPassword(password)))) throw AdminErrors.notFound(tenant, email);
  return { id: admin.id, email: admin.email };
}

/**
 * Deletes the admin and everything issued to them, in one transaction (with `by`, audited
 * `admin.deleted` in it); their access tokens are refused at once in every process.
 */
export async function deleteAdmin(
  sql: SqlClient,
  tokens: Pick<TokenService, 'announce'>,
  tenant: Tenant,
  email: string,
  by?: AdminChangeBy,
): Promise<Admin> {
  const address = normaliseEmail(email);
  const { admin, revoked } = await sql.transaction(async (tx) => {
    const existing = await findAdminByEmail(tx, tenant.id, address);
    const deleted = existing && (await deleteAdminRows(tx, tenant.id, address));
    if (!existing || !deleted) throw AdminErrors.notFound(tenant, email);
    const ended = adminOf(existing);
    if (by) await recordAudit(tx, { action: 'admin.deleted', ...by, details: auditDetails(ended) });
    return { admin: ended, revoked: deleted.revoked };
  });
  await tokens.announce(revoked);
  return admin;
}

/**
 * Limits the admin to the organisation entry `scope` and what is below it, or (null) gives them the
 * whole tenant again. Every token issued to them is revoked in the same transaction and refused at
 * once in every process, so the new scope applies from their next sign-in, never to a token that
 * was issued before it.
 */
export async function setAdminScope(
  sql: SqlClient,
  tokens: Pick<TokenService, 'revokeAdminTokens' | 'announce'>,
  tenant: Tenant,
  email: string,
  scope: string | null,
  by?: AdminChangeBy,
): Promise<Admin> {
  const address = normaliseEmail(email);
  const { admin, revoked } = await sql.transaction(async (tx) => {
    const adminId = await updateAdminScope(tx, tenant.id, address, scope);
    if (adminId === undefined) throw AdminErrors.notFound(tenant, email);
    const changed: Admin = { id: adminId, email: address, ...(scope === null ? {} : { scope }) };
    if (by) await recordAudit(tx, { action: 'admin.scope_changed', ...by, details: auditDetails(changed) });
    return { admin: changed, revoked: await tokens.revokeAdminTokens(tx, tenant.id, adminId) };
  });
  await tokens.announce(revoked);
  return admin;
}

/**
 * Clears the sign-in throttle of the account (its failures and lock); the counts of the addresses
 * it was tried from stay. Answers whether there was anything to clear.
 */
export async function unlockAdmin(sql: SqlClient, tenant: Tenant, email: string): Promise<boolean> {
  const address = normaliseEmail(email);
  if (!(await findAdminByEmail(sql, tenant.id, address))) throw AdminErrors.notFound(tenant, email);
  return deleteAccountFailures(sql, tenant.id, address);
}
