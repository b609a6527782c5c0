import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

const Metadata = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    response_types_supported: Type.Array(Type.String()),
    grant_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    code_challenge_methods_supported: Type.Array(Type.String()),
    service_documentation: Type.String(),
  },
  { description: 'RFC 8414 authorization server metadata.' },
);

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'];

/**
 * `GET /.well-known/oauth-authorization-server` (RFC 8414). The issuer is the address the client
 * used: the server answers on several names (the bare host and each tenant's sub-domain) and
 * RFC 8414 §3.3 wants the issuer to equal the address the metadata was fetched from.
 */
export const metadataRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: { public: true },
      schema: {
        tags: ['oauth'],
        operationId: 'GET:well_known.oauth_authorization_server',
        summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
        security: [],
        response: { 200: Metadata },
      },
    },
    async (request) => {
      const issuer = request.publicBaseUrl;
      return {
        issuer,
        authorization_endpoint: `${issuer}/auth/oauth/authorize`,
        token_endpoint: `${issuer}/auth/oauth/token`,
        revocation_endpoint: `${issuer}/auth/oauth/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
        revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
        code_challenge_methods_supported: ['S256'],
        service_documentation: `${issuer}/docs`,
      };
    },
  );
};
