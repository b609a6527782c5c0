import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createAdmin } from '../../src/modules/auth/admins/admin.service.js';
import { createClient } from '../../src/modules/auth/oauth/clients/client.service.js';
import { issueCode } from '../../src/modules/auth/oauth/code.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import type { SqlClient } from '../../src/platform/database/sql-client.js';
import { hashSecret, newSecret } from '../../src/platform/issued-secrets.js';
import type { TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface GivenClient {
  clientId: string;
  clientSecret: string;
}

export interface OAuthFixture {
  tenant: GivenTenant;
  adminId: string;
  adminEmail: string;
  adminPassword: string;
  client: GivenClient;
  /** Another client of the same tenant, with the same redirect URI. */
  otherClient: GivenClient;
  /** A code as the authorize side would issue it; with PKCE S256 unless `pkce` is false. */
  code(options?: { clientId?: string; redirectUri?: string; pkce?: boolean }): Promise<{ code: string; verifier?: string }>;
}

export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** A tenant with an admin and two clients, built through the services. */
export async function givenOAuth(ctx: Pick<TestContext, 'db' | 'given'>): Promise<OAuthFixture> {
  const tenant = await ctx.given.tenant();
  const record = await new TenancyService(ctx.db, 0).findById(tenant.id);
  if (!record) throw new Error('tenant missing');
  const adminPassword = 'correct horse battery';
  const admin = await createAdmin(ctx.db, record, `admin-${newSecret(4)}@example.com`, adminPassword);
  const client = await createClient(ctx.db, record, [REDIRECT_URI, 'http://localhost:9/other']);
  const otherClient = await createClient(ctx.db, record, [REDIRECT_URI]);
  return {
    tenant,
    adminId: admin.id,
    adminEmail: admin.email,
    adminPassword,
    client,
    otherClient,
    async code(options = {}) {
      const verifier = options.pkce === false ? undefined : newSecret();
      const code = await issueCode(ctx.db, {
        tenantId: tenant.id,
        clientId: options.clientId ?? client.clientId,
        adminId: admin.id,
        redirectUri: options.redirectUri ?? REDIRECT_URI,
        codeChallenge: verifier && pkceChallenge(verifier),
      });
      return { code, verifier };
    },
  };
}

/** POST /auth/oauth/token with a JSON body (the interface's form). */
export function tokenRequest(app: FastifyInstance, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/auth/oauth/token',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

/**
 * The authorize page's sign-in form sent back as a browser does: the page's hidden fields (the
 * request, the client, the CSRF token) and its cookie, with `fields` (an e-mail and password, or the
 * single sign-on `connection` chosen).
 */
export function submitSignInForm(
  app: FastifyInstance,
  form: { body: string; headers: Record<string, unknown> },
  fields: Record<string, string>,
) {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form.body)?.[1] ?? '';
  const hidden = { request_id: field('request_id'), client_id: field('client_id'), csrf_token: field('csrf_token') };
  return formRequest(app, '/auth/oauth/authorize', { ...hidden, ...fields }, { cookie: String(form.headers['set-cookie']).split(';')[0]! });
}

/** POST with an application/x-www-form-urlencoded body (RFC 6749's form). */
export function formRequest(app: FastifyInstance, url: string, body: Record<string, string>, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(body).toString(),
  });
}

export const basicClient = (client: GivenClient) =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;

/** The interface's exchange request for `code`, as `client` (JSON, body authentication). */
export function redeemCode(app: FastifyInstance, client: GivenClient, code: string, verifier?: string, redirectUri = REDIRECT_URI) {
  return tokenRequest(app, {
    grant_type: 'authorization_code',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    redirect_uri: redirectUri,
    code,
    code_verifier: verifier,
  });
}

/** Exchanges a fresh code (JSON, body authentication) and answers the token response. */
export async function exchange(app: FastifyInstance, oauth: OAuthFixture): Promise<{ access_token: string; refresh_token: string }> {
  const { code, verifier } = await oauth.code();
  const res = await redeemCode(app, oauth.client, code, verifier);
  if (res.statusCode !== 200) throw new Error(`exchange failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** GET /api/me with a Bearer token, naming the tenant by X-SVC-Tenant unless `tenant` is null. */
export function me(app: FastifyInstance, token: string, tenant: string | null) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, host: '127.0.0.1:8080' };
  if (tenant !== null) headers['x-svc-tenant'] = tenant;
  return app.inject({ method: 'GET', url: '/api/me', headers });
}

/** Sets a token's expiry in the past, through SQL. */
export async function expireToken(sql: SqlClient, tenantId: string, token: string): Promise<void> {
  await sql.query("UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE tenant_id = $1 AND token_hash = $2", [
    tenantId,
    hashSecret(token),
  ]);
}
