import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { badRequest } from '../../../platform/http/app-error.js';
import { ApiError } from '../../../platform/http/common-schemas.js';
import { principalOf } from '../../../kernel/principal.js';
import { isIri } from '../../../kernel/formats.js';
import { getActivity } from './activity-definition.service.js';

const ActivitiesQuery = Type.Object(
  { activityId: Type.String({ description: 'The id (IRI) of the Activity.', examples: ['http://example.com/courses/intro'] }) },
  { additionalProperties: false },
);

const Activity = Type.Object(
  {
    objectType: Type.Literal('Activity'),
    id: Type.String(),
    definition: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { description: 'The Activity with the canonical definition the LRS learnt from statements.' },
);

/** `GET /xapi/activities` (xAPI 2.0 Part 3 §2.5), the Activities Resource. */
export const activitiesRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient }> = async (app, { sql }) => {
  app.get(
    '/xapi/activities',
    {
      schema: {
        tags: ['xapi'],
        operationId: 'GET:xapi.activities',
        summary: 'The Activity object with its canonical definition',
        querystring: ActivitiesQuery,
        response: { 200: Activity, 400: ApiError, 401: ApiError, 403: ApiError },
      },
    },
    async (request) => {
      const { activityId } = request.query;
      if (!isIri(activityId)) throw badRequest('activities.invalid_query', 'The activityId parameter must be an IRI.');
      return getActivity(sql, principalOf(request).tenant.id, activityId) as Promise<Static<typeof Activity>>;
    },
  );
};
