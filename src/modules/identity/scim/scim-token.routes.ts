import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { apiErrorResponse } from '../../../platform/http/common-schemas.js';
import { recordAudit, sourceOfHeader } from '../../audit/index.js';
import { ADMIN_ERRORS, ADMIN_ONLY, adminPrincipalOf, SourceHeader } from '../../auth/index.js';
import { issueScimToken, listScimTokens, revokeScimToken, type ScimTokenListing } from './scim-token.service.js';

const ScimTokenListingBody = Type.Object({
  id: Type.String({
    description: 'The token id: the part of the token before the dot.',
    examples: ['scim_6a00d2262b384415becfe4092ff24f32_08fd9fefab790beb'],
  }),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was revoked; null while it works.' }),
});

const IssuedScimTokenBody = Type.Object({
  ...ScimTokenListingBody.properties,
  token: Type.String({ description: 'The bearer token the identity provider sends. Shown only in this answer: it is stored as a hash.' }),
});

const listing = (token: ScimTokenListing) => ({
  id: token.id,
  createdAt: token.createdAt.toISOString(),
  revokedAt: token.revokedAt?.toISOString() ?? null,
});

/** `GET/POST /api/scim-tokens`, `DELETE /api/scim-tokens/{id}`: a tenant's admins manage the tokens its identity provider provisions people with (docs/identity.md). */
export const scimTokenRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient }> = async (app, { sql }) => {
  app.get(
    '/api/scim-tokens',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'GET:scim_tokens',
        summary: "List the tenant's SCIM tokens, revoked ones included (never a secret)",
        response: { 200: Type.Array(ScimTokenListingBody), ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      const { tenant } = adminPrincipalOf(request);
      return (await listScimTokens(sql, tenant)).map(listing);
    },
  );

  app.post(
    '/api/scim-tokens',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'POST:scim_tokens',
        summary: 'Create a SCIM token; it is answered only this once',
        headers: SourceHeader,
        response: { 201: IssuedScimTokenBody, ...ADMIN_ERRORS },
      },
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const issued = await sql.transaction(async (tx) => {
        const created = await issueScimToken(tx, principal.tenant);
        await recordAudit(tx, { action: 'scim_token.created', principal, source, details: { id: created.id } });
        return created;
      });
      return reply.status(201).send({ ...listing(issued), token: issued.token });
    },
  );

  app.delete(
    '/api/scim-tokens/:id',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'DELETE:scim_tokens',
        summary: 'Revoke a SCIM token: the next request with it is refused',
        description: 'Revoking a token that is already revoked answers 204 again and keeps the first revocation date.',
        headers: SourceHeader,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'The token id (`scim_…`).' }) }),
        response: {
          204: Type.Null({ description: 'Revoked (or already was).' }),
          ...ADMIN_ERRORS,
          404: apiErrorResponse('The tenant has no SCIM token with this id (`identity.scim_token_not_found`).'),
        },
      },
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      await sql.transaction(async (tx) => {
        await revokeScimToken(tx, principal.tenant, request.params.id);
        await recordAudit(tx, { action: 'scim_token.revoked', principal, source, details: { id: request.params.id } });
      });
      return reply.status(204).send(null);
    },
  );
};
