import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { ApiError } from '../../platform/http/common-schemas.js';
import { tenantWidePrincipalOf } from '../../kernel/principal.js';
import { PersonItemBody, PersonItemQuery, agentKeyRequired } from '../actors/index.js';
import { sourceOfHeader } from '../audit/index.js';
import { SourceHeader } from '../auth/index.js';
import { changePersonState, type PersonStateOptions } from './person-state.service.js';

const StateBody = Type.Object(
  {
    active: Type.Unsafe<boolean>({
      // An enum, not `type: boolean`: the app's Ajv coerces types, and would read "false", 0 or null as false.
      enum: [false, true],
      description: 'false: deactivate the person; true: make them active again. A JSON boolean, nothing else.',
    }),
  },
  { additionalProperties: false, description: 'Exactly one field, `active`.', examples: [{ active: false }] },
);

/**
 * `PATCH /api/actors/item`: an admin or API key deactivates or reactivates one person (docs/actors.md,
 * "One person"; docs/identity.md). Here, not in actors beside `GET /api/actors/item`: a deactivation
 * revokes the person's learner credentials, which are auth's, and identity sits above both.
 */
export const personStateRoutes: FastifyPluginAsyncTypebox<PersonStateOptions> = async (app, options) => {
  app.patch(
    '/api/actors/item',
    {
      schema: {
        tags: ['actors'],
        operationId: 'PATCH:actors.item',
        summary: 'Deactivate or reactivate one person, as an identity system does; answers the person as GET /api/actors/item',
        description:
          'A deactivation revokes every learner credential of the person in the same transaction; a reactivation leaves them revoked. ' +
          'Audited `actor.deactivated` / `actor.reactivated` with the `svc-account-source` header. A person already so: 200, nothing written. ' +
          'docs/actors.md, "One person", and docs/identity.md, "Changing, deactivating, deleting".',
        querystring: PersonItemQuery,
        headers: SourceHeader,
        body: StateBody,
        response: { 200: PersonItemBody, 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 415: ApiError },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const agentKey = agentKeyRequired(request.query);
      const person = await changePersonState(options, principal, agentKey, request.body.active, source);
      return person as Static<typeof PersonItemBody>;
    },
  );
};
