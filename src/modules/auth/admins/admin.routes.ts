import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { badRequest } from '../../../platform/http/app-error.js';
import { apiErrorResponse, describedOnly } from '../../../platform/http/common-schemas.js';
import { textProblem } from '../../../platform/json-guard.js';
import { sourceOfHeader } from '../../audit/index.js';
import { ADMIN_ERRORS, ADMIN_ONLY, adminPrincipalOf, SourceHeader } from '../admin-routes.schemas.js';
import type { TokenService } from '../oauth/token.service.js';
import {
  AdminErrors,
  adminById,
  adminListing,
  checkedScope,
  createAdmin,
  deleteAdmin,
  listAdmins,
  MAX_EMAIL_LENGTH,
  setAdminScope,
  type AdminListing,
} from './admin.service.js';

export interface AdminRoutesOptions {
  sql: SqlClient;
  tokens: TokenService;
}

/** Far above any passphrase; a password is hashed (scrypt), not stored, but the hash's input is bounded. */
const MAX_PASSWORD_LENGTH = 1000;

const AdminBody = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String({ examples: ['ops@example.com'] }),
  scope: Type.Union([Type.String(), Type.Null()], {
    description:
      'The organisation entry the admin is limited to (with everything below it: docs/learning.md, "Scoped administration and managers"); null for the whole tenant.',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  lockedUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'Until when sign-in with a password is refused after failed attempts (`learnbase admin unlock` clears it); null: it is not.',
  }),
  password: Type.Boolean({ description: 'Whether the admin has a password: signs in with the authorize page’s form.' }),
  connection: Type.Union([Type.String(), Type.Null()], {
    description:
      'The single sign-on connection that made the admin, through which they sign in (docs/identity.md, "Admins through single sign-on"); null: none.',
  }),
});

const CreateAdminBody = Type.Object(
  {
    email: Type.String({ maxLength: MAX_EMAIL_LENGTH, description: 'Their address: how they sign in.', examples: ['ops@example.com'] }),
    password: Type.String({ minLength: 12, maxLength: MAX_PASSWORD_LENGTH, description: 'At least 12 characters; stored as a hash.' }),
    scope: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'An organisation entry (its id) to limit the admin to; absent or null: the whole tenant.',
      }),
    ),
  },
  { additionalProperties: false },
);

const ChangeAdminBody = Type.Object(
  {
    scope: Type.Union([Type.String(), Type.Null()], {
      description: 'The organisation entry (its id) to limit the admin to; null: the whole tenant.',
    }),
  },
  { additionalProperties: false },
);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const AdminParams = Type.Object({ id: Type.String({ format: 'uuid', description: 'The admin’s id.' }) });

const ADMIN_NOT_FOUND = {
  404: apiErrorResponse(
    'The tenant has no admin of this id (`admin.not_found`), or no tenant by the name the request gives (`tenant.not_found`).',
  ),
};

const listing = (admin: AdminListing) => ({
  id: admin.id,
  email: admin.email,
  scope: admin.scope ?? null,
  createdAt: admin.createdAt.toISOString(),
  lockedUntil: admin.lockedUntil?.toISOString() ?? null,
  password: admin.password,
  connection: admin.connection ?? null,
});

type Problem = { field: string; problem: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field of text, or the problem with it. */
function textField(body: Record<string, unknown>, field: string, max: number, problems: Problem[]): string | undefined {
  const value = body[field];
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    problems.push({ field, problem: `must be text of 1 to ${max} characters` });
    return undefined;
  }
  const problem = textProblem(value);
  if (problem) problems.push({ field, problem: problem.why });
  return problem ? undefined : value;
}

/** `scope`: an entry's id, or null (the whole tenant). */
function scopeField(body: Record<string, unknown>, problems: Problem[]): string | null | undefined {
  if (body.scope === null) return null;
  return textField(body, 'scope', 200, problems);
}

function refuse(problems: Problem[], shape: string): never {
  throw badRequest('request.invalid', problems.map((entry) => `${entry.field} ${entry.problem}`).join('; ') || shape, { problems });
}

/**
 * The bodies are checked here rather than by Ajv, whose type coercion would take `"scope": 7` as
 * the entry "7" and `"password": 123456789012` as text: every problem named in one 400.
 */
function parseCreateBody(body: unknown): { email: string; password: string; scope: string | null } {
  const shape = 'The body must be a JSON object {"email", "password", "scope"?}.';
  if (!isObject(body)) refuse([{ field: 'body', problem: 'is no JSON object' }], shape);
  const problems: Problem[] = Object.keys(body)
    .filter((field) => !['email', 'password', 'scope'].includes(field))
    .map((field) => ({ field, problem: 'is not a property of an admin' }));
  const email = textField(body, 'email', MAX_EMAIL_LENGTH, problems);
  const password = textField(body, 'password', MAX_PASSWORD_LENGTH, problems);
  const scope = body.scope === undefined ? null : scopeField(body, problems);
  if (problems.length > 0 || email === undefined || password === undefined || scope === undefined) refuse(problems, shape);
  return { email, password, scope };
}

function parseChangeBody(body: unknown): { scope: string | null } {
  const shape = 'The body must be a JSON object {"scope"}: an organisation entry id, or null for the whole tenant.';
  if (!isObject(body)) refuse([{ field: 'body', problem: 'is no JSON object' }], shape);
  const problems: Problem[] = Object.keys(body)
    .filter((field) => field !== 'scope')
    .map((field) => ({ field, problem: 'is not a property that can be changed (only scope)' }));
  if (!('scope' in body)) problems.push({ field: 'scope', problem: 'is required: an organisation entry id, or null' });
  const scope = 'scope' in body ? scopeField(body, problems) : undefined;
  if (problems.length > 0 || scope === undefined) refuse(problems, shape);
  return { scope };
}

/**
 * `GET/POST /api/admins`, `PATCH/DELETE /api/admins/{id}`: a tenant's admins of the whole tenant
 * manage its admins over HTTP, with the effects of `learnbase admin create|list|set-scope|delete`
 * (docs/operations.md, "Lifecycle over HTTP"), audited `admin.created`, `admin.scope_changed`,
 * `admin.deleted`. An admin never changes or deletes their own account here: the tenant is not left
 * without an admin of the whole tenant by a slip.
 */
export const adminRoutes: FastifyPluginAsyncTypebox<AdminRoutesOptions> = async (app, { sql, tokens }) => {
  app.get(
    '/api/admins',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'GET:admins',
        summary: "List the tenant's admins: their scope, lock-out, and how they sign in (never a password)",
        response: { 200: Type.Array(AdminBody), ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      const { tenant } = adminPrincipalOf(request);
      return (await listAdmins(sql, tenant)).map(listing);
    },
  );

  app.post(
    '/api/admins',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'POST:admins',
        summary: 'Create an admin who signs in with a password, of the whole tenant or limited to an organisation entry',
        description:
          'The rules of `learnbase admin create`: an e-mail address of at most 254 characters (kept in lower case), a password of 12 ' +
          'characters or more, a scope naming one of the tenant’s organisation entries (`admin.invalid_scope` otherwise).',
        headers: SourceHeader,
        body: CreateAdminBody,
        response: {
          201: AdminBody,
          ...ADMIN_ERRORS,
          400: apiErrorResponse(
            'The body is malformed (`request.invalid`, `details.problems`), the address is none (`admin.invalid_email`), the password too short ' +
              '(`admin.weak_password`), or the scope names no organisation entry (`admin.invalid_scope`).',
          ),
          409: apiErrorResponse('The tenant has an admin with this address (`admin.exists`).'),
        },
      },
      validatorCompiler: describedOnly,
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const { email, password, scope } = parseCreateBody(request.body);
      const limited = scope === null ? undefined : await checkedScope(sql, principal.tenant, scope);
      const admin = await createAdmin(sql, principal.tenant, email, password, limited, { principal, source });
      return reply.status(201).send(listing(await adminListing(sql, principal.tenant, admin.id)));
    },
  );

  app.patch(
    '/api/admins/:id',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'PATCH:admins',
        summary: 'Limit an admin to an organisation entry, or give them the whole tenant again; every token they hold is revoked',
        description:
          'As `learnbase admin set-scope`: the new scope applies from their next sign-in, never to a token issued before it. An admin ' +
          'a single sign-on connection made has the scope its provider gives at their next sign-in there.',
        headers: SourceHeader,
        params: AdminParams,
        body: ChangeAdminBody,
        response: {
          200: AdminBody,
          ...ADMIN_ERRORS,
          400: apiErrorResponse(
            'The body is malformed (`request.invalid`), or the scope names no organisation entry (`admin.invalid_scope`).',
          ),
          ...ADMIN_NOT_FOUND,
          409: apiErrorResponse('The admin is the one calling (`admin.self`): another admin changes their scope.'),
        },
      },
      // parseChangeBody checks the body and the id is checked below; the schema documents them.
      validatorCompiler: describedOnly,
    },
    async (request) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      if (!UUID.test(request.params.id)) {
        throw badRequest('request.invalid', `"${request.params.id}" is not an admin id (a UUID).`, {
          problems: [{ field: 'id', problem: 'must be a UUID' }],
        });
      }
      const { scope } = parseChangeBody(request.body);
      const admin = await adminById(sql, principal.tenant, request.params.id);
      // The stored id, not the path's text: a UUID in capitals names the same admin.
      if (admin.id === principal.id) throw AdminErrors.self('change the scope of');
      const limited = scope === null ? null : await checkedScope(sql, principal.tenant, scope);
      await setAdminScope(sql, tokens, principal.tenant, admin.email, limited, { principal, source });
      return listing(await adminListing(sql, principal.tenant, admin.id));
    },
  );

  app.delete(
    '/api/admins/:id',
    {
      schema: {
        tags: ['auth'],
        security: ADMIN_ONLY,
        operationId: 'DELETE:admins',
        summary: 'Delete an admin; their tokens are refused at once, in every server process',
        headers: SourceHeader,
        params: AdminParams,
        response: {
          204: Type.Null({ description: 'Deleted, with every code and token issued to them.' }),
          ...ADMIN_ERRORS,
          ...ADMIN_NOT_FOUND,
          409: apiErrorResponse('The admin is the one calling (`admin.self`): another admin deletes their account.'),
        },
      },
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const admin = await adminById(sql, principal.tenant, request.params.id);
      if (admin.id === principal.id) throw AdminErrors.self('delete');
      // deleteAdmin announces the revoked tokens after its commit, the audit entry in it.
      await deleteAdmin(sql, tokens, principal.tenant, admin.email, { principal, source });
      return reply.status(204).send(null);
    },
  );
};
