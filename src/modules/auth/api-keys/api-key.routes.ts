import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { notFound } from '../../../platform/http/app-error.js';
import { apiErrorResponse } from '../../../platform/http/common-schemas.js';
import { recordAudit, sourceOfHeader } from '../../audit/index.js';
import type { Tenant } from '../../../kernel/principal.js';
import { issueApiKey, tenantIdOfApiKey, type ApiKeyService } from './api-key.service.js';
import { ADMIN_ERRORS, ADMIN_ONLY, adminPrincipalOf, SourceHeader } from '../admin-routes.schemas.js';

export interface ApiKeyRoutesOptions {
  sql: SqlClient;
  apiKeys: ApiKeyService;
}

const ApiKeyListingBody = Type.Object({
  key: Type.String({ description: 'The key: the Basic user-id.', examples: ['lb_6a00d2262b384415becfe4092ff24f32_08fd9fefab790beb'] }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When it last authenticated a request, to the minute; null when never.',
  }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was revoked; null while it works.' }),
  scope: Type.Union([Type.String(), Type.Null()], {
    description:
      'The organisation entry the key is limited to (with everything below it: docs/learning.md, "Scoped administration and managers"); null for the whole tenant.',
  }),
});

const IssuedApiKeyBody = Type.Object({
  key: Type.String({ description: 'The Basic user-id.' }),
  secret: Type.String({ description: 'The Basic password. Shown only in this answer: it is stored as a hash.' }),
});

const KeyParams = Type.Object({ key: Type.String({ minLength: 1, maxLength: 200, description: 'The API key (`lb_…`).' }) });

const keyNotFound = (tenant: Tenant, key: string) =>
  notFound('api_key.not_found', `Tenant "${tenant.name}" has no API key ${key}.`, { key });

/** A key names its tenant: another tenant's key, or text that is no key, is unknown here without a read. */
const ownKey = (tenant: Tenant, key: string) => tenantIdOfApiKey(key) === tenant.id;

const isoOrNull = (date: Date | undefined) => date?.toISOString() ?? null;

/** `GET/POST /api/api-keys`, `DELETE /api/api-keys/{key}`: a tenant's admins manage its API keys. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<ApiKeyRoutesOptions> = async (app, { sql, apiKeys }) => {
  app.get(
    '/api/api-keys',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'GET:api_keys',
        summary: "List the tenant's API keys, revoked ones included (never a secret)",
        response: { 200: Type.Array(ApiKeyListingBody), ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      const { tenant } = adminPrincipalOf(request);
      const keys = await apiKeys.list(tenant);
      return keys.map((key) => ({
        key: key.key,
        createdAt: key.createdAt.toISOString(),
        lastUsedAt: isoOrNull(key.lastUsedAt),
        revokedAt: isoOrNull(key.revokedAt),
        scope: key.scope ?? null,
      }));
    },
  );

  app.post(
    '/api/api-keys',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'POST:api_keys',
        summary: 'Create an API key; its secret is answered only this once',
        headers: SourceHeader,
        response: { 201: IssuedApiKeyBody, ...ADMIN_ERRORS },
      },
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const issued = await sql.transaction(async (tx) => {
        const created = await issueApiKey(tx, principal.tenant);
        await recordAudit(tx, { action: 'api_key.created', principal, source, details: { key: created.key } });
        return created;
      });
      return reply.status(201).send(issued);
    },
  );

  app.delete(
    '/api/api-keys/:key',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'DELETE:api_keys',
        summary: 'Revoke an API key, in every server process at once',
        description: 'Revoking a key that is already revoked answers 204 again and keeps the first revocation date.',
        headers: SourceHeader,
        params: KeyParams,
        response: {
          204: Type.Null({ description: 'Revoked (or already was).' }),
          ...ADMIN_ERRORS,
          404: apiErrorResponse(
            'The tenant has no such key (`api_key.not_found`), or no tenant by the name the request gives (`tenant.not_found`).',
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const { key } = request.params;
      if (!ownKey(principal.tenant, key)) throw keyNotFound(principal.tenant, key);
      // ApiKeyService announces the revocation to every process before the audit entry is written.
      const revoked = await apiKeys.revoke(principal.tenant, key);
      await recordAudit(sql, { action: 'api_key.revoked', principal, source, details: { key, revokedAt: isoOrNull(revoked.revokedAt) } });
      return reply.status(204).send(null);
    },
  );
};
