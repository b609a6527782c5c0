import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { authenticateClient, type OAuthClient } from './clients/client.service.js';
import { metadataRoutes } from './metadata.routes.js';
import { exchangeAuthorizationCode } from './grants/authorization-code.js';
import { refreshTokens } from './grants/refresh-token.js';
import { InvalidClient, InvalidRequest, UnsupportedGrantType, UnsupportedTokenType } from './oauth-errors.js';
import type { TokenService } from './token.service.js';

export interface TokenRoutesOptions {
  tokens: TokenService;
}

const OAuthErrorBody = Type.Object(
  {
    error: Type.String({ examples: ['invalid_grant'] }),
    error_description: Type.String(),
  },
  { description: 'RFC 6749 §5.2 error.' },
);

const ClientCredentials = {
  client_id: Type.Optional(Type.String({ description: 'With client_secret, when the client does not authenticate with HTTP Basic.' })),
  client_secret: Type.Optional(Type.String()),
};

const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ examples: ['authorization_code', 'refresh_token'] }),
    code: Type.Optional(Type.String({ description: 'authorization_code: the code from the redirect.' })),
    redirect_uri: Type.Optional(Type.String({ description: 'authorization_code: the redirect_uri of the authorize request.' })),
    code_verifier: Type.Optional(
      Type.String({ description: 'authorization_code: the PKCE verifier, when the authorize request had a code_challenge.' }),
    ),
    refresh_token: Type.Optional(Type.String({ description: 'refresh_token: the current refresh token.' })),
    ...ClientCredentials,
  },
  { description: 'application/json (the interface) or application/x-www-form-urlencoded (RFC 6749).' },
);

const TokenResponse = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ examples: [3600] }),
});

const RevokeRequest = Type.Object({
  token: Type.String(),
  token_type_hint: Type.Optional(Type.String({ examples: ['access_token', 'refresh_token'] })),
  ...ClientCredentials,
});

/** Token requests are small; a megabyte of form is no token request. */
const BODY_LIMIT = 16 * 1024;

/**
 * `POST /auth/oauth/token` (RFC 6749 §3.2) and `POST /auth/oauth/revoke` (RFC 7009). Encapsulated:
 * the form parser applies to these routes only. Their errors, Fastify's own included (validation,
 * media type, JSON), are RFC 6749 §5.2 errors: the app's error handler renders them so
 * (`errors: 'oauth'`).
 */
export const tokenRoutes: FastifyPluginAsyncTypebox<TokenRoutesOptions> = async (app, { tokens }) => {
  await app.register(formbody, { bodyLimit: BODY_LIMIT });

  // RFC 6749 §5.1: token responses, errors included, are never cached.
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    reply.header('Pragma', 'no-cache');
  });

  app.post(
    '/auth/oauth/token',
    {
      bodyLimit: BODY_LIMIT,
      config: { errors: 'oauth' },
      schema: {
        tags: ['oauth'],
        operationId: 'POST:auth.oauth.token',
        summary: 'Exchange an authorization code, or refresh, for an access and a refresh token',
        consumes: ['application/json', 'application/x-www-form-urlencoded'],
        security: [{}, { basic: [] }],
        body: TokenRequest,
        response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody },
      },
    },
    async (request) => {
      const body = request.body;
      if (body.grant_type !== 'authorization_code' && body.grant_type !== 'refresh_token') {
        throw new UnsupportedGrantType(body.grant_type);
      }
      const client = await authenticateCaller(request, body);
      return body.grant_type === 'authorization_code'
        ? exchangeAuthorizationCode(tokens, client, body)
        : refreshTokens(tokens, client, body);
    },
  );

  app.post(
    '/auth/oauth/revoke',
    {
      bodyLimit: BODY_LIMIT,
      config: { errors: 'oauth' },
      schema: {
        tags: ['oauth'],
        operationId: 'POST:auth.oauth.revoke',
        summary: 'Revoke an access token, or a refresh token and its whole authorization (RFC 7009)',
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        security: [{}, { basic: [] }],
        body: RevokeRequest,
        response: {
          // RFC 7009 §2.2: the client ignores the body; an empty JSON object suits clients that insist on JSON.
          200: Type.Object({}, { description: 'Revoked, or the token was not valid anyway.' }),
          400: OAuthErrorBody,
          401: OAuthErrorBody,
        },
      },
    },
    async (request) => {
      const { token, token_type_hint: hint } = request.body;
      if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token') throw new UnsupportedTokenType(hint);
      const client = await authenticateCaller(request, request.body);
      await tokens.revoke(client, token);
      return {};
    },
  );

  /**
   * RFC 6749 §2.3.1: HTTP Basic (client id and secret each form-urlencoded) or client_id and
   * client_secret in the body; one method only.
   */
  async function authenticateCaller(request: FastifyRequest, body: { client_id?: string; client_secret?: string }): Promise<OAuthClient> {
    let clientId = body.client_id;
    let clientSecret = body.client_secret;
    const header = request.headers.authorization;
    if (header) {
      const [scheme, value = ''] = header.trim().split(/\s+/, 2) as [string, string?];
      if (scheme.toLowerCase() !== 'basic')
        throw new InvalidClient('Authenticate the client with HTTP Basic, or with client_id and client_secret in the body.', true);
      if (body.client_secret !== undefined) {
        throw new InvalidRequest('Authenticate the client one way only: HTTP Basic or client_secret in the body, not both.');
      }
      const credentials = decodeBasic(value);
      if (!credentials) throw new InvalidClient('The Basic credential is malformed: expected base64 of "client_id:client_secret".', true);
      if (body.client_id !== undefined && body.client_id !== credentials.id) {
        throw new InvalidRequest('The client_id in the body differs from the one in the Authorization header.');
      }
      clientId = credentials.id;
      clientSecret = credentials.secret;
    }
    const usedBasic = header !== undefined;
    if (!clientId || !clientSecret) {
      throw new InvalidClient(
        'Client authentication is required: HTTP Basic, or client_id and client_secret in the body.',
        usedBasic || !clientSecret,
      );
    }
    const client = await authenticateClient(tokens.sql, tokens.tenancy, clientId, clientSecret);
    if (!client) throw new InvalidClient('Client authentication failed: unknown client or wrong secret.', usedBasic);
    return client;
  }
};

function decodeBasic(value: string): { id: string; secret: string } | undefined {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const decodePart = (text: string) => decodeURIComponent(text.replaceAll('+', ' '));
    return { id: decodePart(decoded.slice(0, colon)), secret: decodePart(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** The token side of OAuth in one registration: the token and revocation endpoints and the metadata. */
export const oauthTokenEndpoints: FastifyPluginAsyncTypebox<TokenRoutesOptions> = async (app, options) => {
  await app.register(tokenRoutes, options);
  await app.register(metadataRoutes);
};
