import { randomBytes } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { notFound } from '../../../platform/http/app-error.js';
import { hashSecret, newSecret, secretMatches } from '../../../platform/issued-secrets.js';
import type { Tenant } from '../../../kernel/principal.js';
import { tenantHex, tenantIdFromHex } from '../../tenancy/index.js';
import {
  findActiveScimToken,
  insertScimToken,
  listScimTokenRows,
  revokeScimTokenRow,
  type ScimTokenListing,
} from './scim-token.repository.js';

export type { ScimTokenListing };

/**
 * A SCIM token is one bearer string, `scim_<tenant id in hex>_<16 hex>.<secret>`: the part before
 * the dot is its id (listed, revoked by), and names its tenant, so the token resolves to one
 * tenant without trusting the headers; the secret is stored only as its SHA-256.
 */
const SCIM_TOKEN = /^(scim_([0-9a-f]{32})_[0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;
const SCIM_TOKEN_ID = /^scim_[0-9a-f]{32}_[0-9a-f]{16}$/;

export interface IssuedScimToken extends ScimTokenListing {
  /** The bearer token, shown once. */
  token: string;
}

/** A new SCIM token of the tenant. */
export async function issueScimToken(sql: SqlClient, tenant: Tenant): Promise<IssuedScimToken> {
  const id = `scim_${tenantHex(tenant.id)}_${randomBytes(8).toString('hex')}`;
  const secret = newSecret();
  const listing = await insertScimToken(sql, tenant.id, id, hashSecret(secret));
  return { ...listing, token: `${id}.${secret}` };
}

/**
 * The tenant id and token id of a bearer string that is an unrevoked SCIM token of that tenant;
 * undefined otherwise. One primary-key read: a revocation applies to the next request, in every
 * process.
 */
export async function verifyScimToken(sql: SqlClient, bearer: string): Promise<{ tenantId: string; id: string } | undefined> {
  const match = SCIM_TOKEN.exec(bearer);
  if (!match) return undefined;
  const [, id, hex, secret] = match as unknown as [string, string, string, string];
  const tenantId = tenantIdFromHex(hex);
  const stored = await findActiveScimToken(sql, tenantId, id);
  if (!stored || !secretMatches(secret, stored)) return undefined;
  return { tenantId, id };
}

export function listScimTokens(sql: SqlClient, tenant: Tenant): Promise<ScimTokenListing[]> {
  return listScimTokenRows(sql, tenant.id);
}

/** Revokes the token at once; 404 naming it when the tenant has no such token. */
export async function revokeScimToken(sql: SqlClient, tenant: Tenant, id: string): Promise<ScimTokenListing> {
  const revoked = SCIM_TOKEN_ID.test(id) ? await revokeScimTokenRow(sql, tenant.id, id) : undefined;
  if (!revoked) throw notFound('identity.scim_token_not_found', `Tenant "${tenant.name}" has no SCIM token ${id}.`, { id });
  return revoked;
}
