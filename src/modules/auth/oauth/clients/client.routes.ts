import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../../../platform/database/sql-client.js';
import { AppError, badRequest, notFound } from '../../../../platform/http/app-error.js';
import { apiErrorResponse, describedOnly } from '../../../../platform/http/common-schemas.js';
import { textProblem } from '../../../../platform/json-guard.js';
import { recordAudit, sourceOfHeader } from '../../../audit/index.js';
import type { Tenant } from '../../../../kernel/principal.js';
import { ADMIN_ERRORS, ADMIN_ONLY, adminPrincipalOf, SourceHeader } from '../../admin-routes.schemas.js';
import { checkRedirectUri, createClient, deleteClient, listClients, rotateClientSecret, tenantIdOfClient } from './client.service.js';
import type { TokenService } from '../token.service.js';

export interface ClientRoutesOptions {
  sql: SqlClient;
  tokens: TokenService;
}

/** A client with more is a configuration mistake; the cap keeps a request from storing an unbounded list. */
const MAX_REDIRECT_URIS = 20;

const ClientListingBody = Type.Object({
  clientId: Type.String({ examples: ['lbc_6a00d2262b384415becfe4092ff24f32_1c9e6f0a2b3d4e5f'] }),
  name: Type.String(),
  redirectUris: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
});

const IssuedClientBody = Type.Object({
  clientId: Type.String(),
  clientSecret: Type.String({ description: 'Shown only in this answer: it is stored as a hash.' }),
});

const CreateClientBody = Type.Object(
  {
    redirectUris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), {
      minItems: 1,
      maxItems: MAX_REDIRECT_URIS,
      description: 'Absolute URIs without a fragment; https, or http for localhost and loopback addresses only.',
      examples: [['https://app.example.com/oauth/callback']],
    }),
    name: Type.Optional(
      Type.String({ maxLength: 200, description: 'For people; "Unnamed integration" when left out.', examples: ['Reporting dashboard'] }),
    ),
  },
  { additionalProperties: false },
);

const ClientParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'The client id (`lbc_…`).' }) });

const CLIENT_NOT_FOUND = {
  404: apiErrorResponse(
    'The tenant has no such client (`client.not_found`), or no tenant by the name the request gives (`tenant.not_found`).',
  ),
  409: apiErrorResponse("The client is the console's own (`client.console`): it is neither deleted nor given a secret."),
};

const clientNotFound = (tenant: Tenant, clientId: string) =>
  notFound('client.not_found', `Tenant "${tenant.name}" has no OAuth client ${clientId}.`, { clientId });

/** A client id names its tenant: another tenant's client, or text that is no client id, is unknown here without a read. */
function requireOwnClient(tenant: Tenant, clientId: string): void {
  if (tenantIdOfClient(clientId) !== tenant.id) throw clientNotFound(tenant, clientId);
}

interface CreateClientRequest {
  redirectUris: string[];
  name?: string;
}

/**
 * The body of POST /api/oauth-clients, checked here rather than by Ajv, whose type coercion would
 * take `"redirectUris": "https://…"` as a list and `"name": 7` as text: every problem named in one 400,
 * each bad redirect URI with its reason.
 */
function parseCreateClientBody(body: unknown): CreateClientRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('request.invalid', 'The body must be a JSON object with "redirectUris" (and optionally "name").', {
      problems: [{ field: 'body', problem: 'is no JSON object' }],
    });
  }
  const { redirectUris, name, ...rest } = body as Record<string, unknown>;
  const problems = [
    ...Object.keys(rest).map((field) => ({ field, problem: 'is not a property of a client' })),
    ...redirectUriProblems(redirectUris),
    ...nameProblems(name),
  ];
  if (problems.length > 0) {
    const code = problems.every((entry) => entry.field.startsWith('redirectUris[')) ? 'client.invalid_redirect_uri' : 'request.invalid';
    throw badRequest(code, problems.map((entry) => `${entry.field} ${entry.problem}`).join('; '), { problems });
  }
  return { redirectUris: redirectUris as string[], ...(name === undefined ? {} : { name: name as string }) };
}

type Problem = { field: string; problem: string; uri?: string };

function redirectUriProblems(uris: unknown): Problem[] {
  if (!Array.isArray(uris) || uris.length === 0) return [{ field: 'redirectUris', problem: 'must be a non-empty array of URIs' }];
  if (uris.length > MAX_REDIRECT_URIS) return [{ field: 'redirectUris', problem: `must hold at most ${MAX_REDIRECT_URIS} URIs` }];
  return uris.flatMap((uri: unknown, index) => {
    const field = `redirectUris[${index}]`;
    if (typeof uri !== 'string' || uri.length > 2000) return [{ field, problem: 'must be a URI of at most 2,000 characters' }];
    const problem = textProblem(uri)?.why ?? redirectUriProblem(uri);
    return problem ? [{ field, uri, problem }] : [];
  });
}

function redirectUriProblem(uri: string): string | undefined {
  try {
    checkRedirectUri(uri);
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error.message;
    throw error;
  }
}

function nameProblems(name: unknown): Problem[] {
  if (name === undefined) return [];
  if (typeof name !== 'string' || name.length > 200) return [{ field: 'name', problem: 'must be text of at most 200 characters' }];
  const problem = textProblem(name);
  return problem ? [{ field: 'name', problem: problem.why }] : [];
}

/**
 * `GET/POST /api/oauth-clients`, `DELETE /api/oauth-clients/{id}`, `POST /api/oauth-clients/{id}/secret`:
 * a tenant's admins manage its OAuth clients.
 */
export const clientRoutes: FastifyPluginAsyncTypebox<ClientRoutesOptions> = async (app, { sql, tokens }) => {
  app.get(
    '/api/oauth-clients',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'GET:oauth_clients',
        summary: "List the tenant's OAuth clients (never a secret)",
        response: { 200: Type.Array(ClientListingBody), ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      const { tenant } = adminPrincipalOf(request);
      const clients = await listClients(sql, tenant);
      return clients.map((client) => ({ ...client, createdAt: client.createdAt.toISOString() }));
    },
  );

  app.post(
    '/api/oauth-clients',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'POST:oauth_clients',
        summary: 'Register an OAuth client; its secret is answered only this once',
        description: 'Every redirect URI that is refused is named in one 400 (`client.invalid_redirect_uri`, `details.problems`).',
        headers: SourceHeader,
        body: CreateClientBody,
        response: { 201: IssuedClientBody, ...ADMIN_ERRORS },
      },
      // parseCreateClientBody checks the body and names every problem; the schema documents it.
      validatorCompiler: describedOnly,
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const { redirectUris, name } = parseCreateClientBody(request.body);
      const issued = await sql.transaction(async (tx) => {
        const created = await createClient(tx, principal.tenant, redirectUris, name);
        await recordAudit(tx, { action: 'oauth_client.created', principal, source, details: { clientId: created.clientId, redirectUris } });
        return created;
      });
      return reply.status(201).send(issued);
    },
  );

  app.delete(
    '/api/oauth-clients/:id',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'DELETE:oauth_clients',
        summary: 'Delete an OAuth client; its tokens are refused at once, in every server process',
        headers: SourceHeader,
        params: ClientParams,
        response: {
          204: Type.Null({ description: 'Deleted, with every code and token issued to it.' }),
          ...ADMIN_ERRORS,
          ...CLIENT_NOT_FOUND,
        },
      },
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const clientId = request.params.id;
      requireOwnClient(principal.tenant, clientId);
      // deleteClient announces the revoked tokens after its own commit; the audit entry follows.
      await deleteClient(sql, tokens, principal.tenant, clientId);
      await recordAudit(sql, { action: 'oauth_client.deleted', principal, source, details: { clientId } });
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/oauth-clients/:id/secret',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'POST:oauth_clients.secret',
        summary: 'Give an OAuth client a new secret, answered only this once; the old one is refused from now on',
        description: 'Tokens already issued to the client stay valid; delete the client to end them.',
        headers: SourceHeader,
        params: ClientParams,
        response: { 200: IssuedClientBody, ...ADMIN_ERRORS, ...CLIENT_NOT_FOUND },
      },
    },
    async (request) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const clientId = request.params.id;
      requireOwnClient(principal.tenant, clientId);
      return sql.transaction(async (tx) => {
        const issued = await rotateClientSecret(tx, principal.tenant, clientId);
        await recordAudit(tx, { action: 'oauth_client.secret_rotated', principal, source, details: { clientId } });
        return issued;
      });
    },
  );
};
