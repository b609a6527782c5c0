import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../platform/http/common-schemas.js';
import { principalOf, type Principal } from '../../kernel/principal.js';

const Me = Type.Object(
  {
    tenant: Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() }),
    principal: Type.Object({
      kind: Type.Union([Type.Literal('admin'), Type.Literal('api_key'), Type.Literal('actor'), Type.Literal('launch')]),
      id: Type.String({ description: 'The API key, admin id or credential username.' }),
      scope: Type.Optional(
        Type.Object(
          { organisationId: Type.String() },
          {
            description:
              'An admin or API key limited to an organisation subtree: its entry (docs/learning.md, "Scoped administration and managers"). Absent: the whole tenant.',
          },
        ),
      ),
    }),
  },
  { description: 'Who the credential is and which tenant it belongs to.' },
);

/** `GET /api/me`: lets an integrator check a credential and the tenant it resolves to. */
export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/me',
    {
      schema: {
        tags: ['auth'],
        operationId: 'GET:me',
        summary: 'The calling principal and its tenant',
        response: { 200: Me, 400: ApiError, 401: ApiError, 404: ApiError },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return {
        tenant: { id: principal.tenant.id, name: principal.tenant.name },
        // The operator principal is the command line's, a SCIM token is taken on /scim/v2/ only, an HR webhook signs messages, single sign-on writes a person: none comes here.
        principal: {
          kind: principal.kind as Exclude<Principal['kind'], 'operator' | 'scim' | 'hr_webhook' | 'sso'>,
          id: principal.id,
          ...(principal.scope ? { scope: { organisationId: principal.scope.organisationId } } : {}),
        },
      };
    },
  );
};
