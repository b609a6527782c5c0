import { randomBytes } from 'node:crypto';
import type { SqlClient } from '../../../../platform/database/sql-client.js';
import { badRequest, conflict, notFound } from '../../../../platform/http/app-error.js';
import { hashSecret, newSecret, secretMatches } from '../../../../platform/issued-secrets.js';
import { type TenancyService, tenantHex, tenantIdFromHex } from '../../../tenancy/index.js';
import type { Tenant } from '../../../../kernel/principal.js';
import {
  type ClientRow,
  deleteClientRows,
  findClientRow,
  findConsoleClientRow,
  insertClient,
  insertConsoleClient,
  listClientRows,
  updateClientSecret,
  type ClientListing,
} from './client.repository.js';
import type { TokenService } from '../token.service.js';

export interface OAuthClient {
  tenant: Tenant;
  clientId: string;
  name: string;
  /** Absolute URIs; the console's client holds a path, resolved per request (redirectUrisOf). */
  redirectUris: string[];
  /** The tenant's console client (docs/console.md, "Signing in"). */
  console?: boolean;
}

/** Where the console's sign-in comes back to, below the address the request came to. */
export const CONSOLE_REDIRECT_PATH = '/console/auth/callback';
const CONSOLE_CLIENT_NAME = 'the learnbase console';

/**
 * The redirect URIs a request may name for the client: its registered ones, the console's path
 * resolved against the address the request came to (`publicBaseUrl`: LEARNBASE_PUBLIC_URL, else the
 * request's own scheme and host), so the console signs in on whatever address serves it, and its
 * codes come back to that same address only.
 */
export function redirectUrisOf(client: OAuthClient, publicBaseUrl: string): string[] {
  return client.redirectUris.map((uri) => (uri.startsWith('/') ? `${publicBaseUrl}${uri}` : uri));
}

/**
 * The tenant's console client, made when missing: with the tenant (`learnbase tenant create`, the
 * demo seed), by migration 0041 for the tenants before it, and by the console's sign-in for one made
 * otherwise. Nobody learns its secret: the server exchanges its codes itself.
 */
export async function ensureConsoleClient(sql: SqlClient, tenant: Tenant): Promise<OAuthClient> {
  const row =
    (await findConsoleClientRow(sql, tenant.id)) ??
    (await insertConsoleClient(sql, tenant.id, {
      clientId: `lbc_${tenantHex(tenant.id)}_${randomBytes(8).toString('hex')}`,
      secretHash: hashSecret(newSecret()),
      name: CONSOLE_CLIENT_NAME,
      redirectUris: [CONSOLE_REDIRECT_PATH],
    }));
  return { tenant, clientId: row.clientId, name: row.name, redirectUris: row.redirectUris, console: true };
}

export interface IssuedClient {
  clientId: string;
  clientSecret: string;
}

/** `lbc_<tenant id hex>_<random>`: the client id names its tenant, as API keys do. */
const CLIENT_ID = /^lbc_([0-9a-f]{32})_[0-9a-f]{16}$/;

export function tenantIdOfClient(clientId: string): string | undefined {
  const hex = CLIENT_ID.exec(clientId)?.[1];
  return hex && tenantIdFromHex(hex);
}

/** RFC 6749 §3.1.2: an absolute URI without a fragment; http only for loopback and localhost. */
export function checkRedirectUri(uri: string): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw badRequest('client.invalid_redirect_uri', `"${uri}" is not an absolute URI.`);
  }
  if (url.hash || uri.includes('#')) throw badRequest('client.invalid_redirect_uri', `"${uri}" has a fragment; redirect URIs may not.`);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.endsWith('.localhost');
  if (url.protocol === 'http:' && !loopback) {
    throw badRequest('client.invalid_redirect_uri', `"${uri}" must use https (http is allowed for localhost and loopback only).`);
  }
  if (url.protocol === 'javascript:' || url.protocol === 'data:') {
    throw badRequest('client.invalid_redirect_uri', `"${uri}" is not a redirect URI.`);
  }
}

export async function createClient(sql: SqlClient, tenant: Tenant, redirectUris: string[], name?: string): Promise<IssuedClient> {
  if (redirectUris.length === 0) throw badRequest('client.redirect_uri_required', 'A client needs at least one redirect URI.');
  redirectUris.forEach(checkRedirectUri);
  const clientId = `lbc_${tenantHex(tenant.id)}_${randomBytes(8).toString('hex')}`;
  const clientSecret = newSecret();
  await insertClient(sql, tenant.id, {
    clientId,
    secretHash: hashSecret(clientSecret),
    name: name?.trim() || 'Unnamed integration',
    redirectUris: [...new Set(redirectUris)],
  });
  return { clientId, clientSecret };
}

/** The client and its tenant, or undefined for an unknown or malformed id. */
export async function findClient(sql: SqlClient, tenancy: TenancyService, clientId: string): Promise<OAuthClient | undefined> {
  const tenantId = tenantIdOfClient(clientId);
  const tenant = tenantId ? await tenancy.findById(tenantId) : undefined;
  const row = tenant ? await findClientRow(sql, tenant.id, clientId) : undefined;
  return row && tenant && { tenant, clientId: row.clientId, name: row.name, redirectUris: row.redirectUris, ...consoleFlag(row) };
}

const consoleFlag = (row: ClientRow): Pick<OAuthClient, 'console'> => (row.console ? { console: true } : {});

/** The client, when the secret is its own (compared in constant time); otherwise undefined. */
export async function authenticateClient(
  sql: SqlClient,
  tenancy: TenancyService,
  clientId: string,
  clientSecret: string,
): Promise<OAuthClient | undefined> {
  const tenantId = tenantIdOfClient(clientId);
  const tenant = tenantId ? await tenancy.findById(tenantId) : undefined;
  const row = tenant ? await findClientRow(sql, tenant.id, clientId) : undefined;
  if (!row || !tenant || !secretMatches(clientSecret, row.secretHash)) return undefined;
  return { tenant, clientId: row.clientId, name: row.name, redirectUris: row.redirectUris, ...consoleFlag(row) };
}

export type { ClientListing };

export function listClients(sql: SqlClient, tenant: Tenant): Promise<ClientListing[]> {
  return listClientRows(sql, tenant.id);
}

const clientNotFound = (tenant: Tenant, clientId: string) =>
  notFound('client.not_found', `Tenant "${tenant.name}" has no OAuth client ${clientId}.`, { clientId });

/** The console's client is the server's own: neither deleted nor given a secret (its updates and deletes skip it). */
async function refuseConsoleClient(sql: SqlClient, tenant: Tenant, clientId: string): Promise<void> {
  if ((await findClientRow(sql, tenant.id, clientId))?.console) {
    throw conflict(
      'client.console',
      `${clientId} is the console's own client (docs/console.md, "Signing in"): it has no secret to rotate and cannot be deleted.`,
      { clientId },
    );
  }
}

/**
 * Gives the client a new secret, shown only in the answer; the old one is refused from now on (the
 * secret is read from the database on every use, so no process caches it). Tokens already issued
 * stay valid: deleting the client ends them.
 */
export async function rotateClientSecret(sql: SqlClient, tenant: Tenant, clientId: string): Promise<IssuedClient> {
  await refuseConsoleClient(sql, tenant, clientId);
  const clientSecret = newSecret();
  if (!(await updateClientSecret(sql, tenant.id, clientId, hashSecret(clientSecret)))) throw clientNotFound(tenant, clientId);
  return { clientId, clientSecret };
}

/** Deletes the client and everything issued to it, in one transaction; its access tokens are refused at once in every process. */
export async function deleteClient(sql: SqlClient, tokens: TokenService, tenant: Tenant, clientId: string): Promise<void> {
  await refuseConsoleClient(sql, tenant, clientId);
  const revoked = await sql.transaction((tx) => deleteClientRows(tx, tenant.id, clientId));
  if (!revoked) throw clientNotFound(tenant, clientId);
  await tokens.announce(revoked);
}
