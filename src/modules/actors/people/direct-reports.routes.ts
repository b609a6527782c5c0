import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError } from '../../../platform/http/app-error.js';
import { ApiError } from '../../../platform/http/common-schemas.js';
import { PageQuery, pageOf, sendPageHeaders } from '../../../platform/http/paged-list.js';
import { principalOf } from '../../../kernel/principal.js';
import { Actor, ListHeaders } from '../actor.routes.js';
import { listDirectReports } from './direct-reports.service.js';
import type { ActorDomains } from '../actor.service.js';

const DirectReportsQuery = PageQuery(
  'reports',
  {
    agent: Type.Optional(
      Type.String({
        description:
          'The manager: an xAPI agent (its identifier) as JSON. At most one of agent and actorId; with neither, the caller’s own actor (a learner credential’s; an API key or admin must name one).',
      }),
    ),
    actorId: Type.Optional(
      Type.String({ description: 'The manager as `<ifi_property>|<ifi_value>` (account: `account|<homePage>|<name>`).' }),
    ),
  },
  { additionalProperties: false },
);

/** `GET /api/actors/reports`: a manager's reports, the people below their position (docs/learning.md, "Scoped administration and managers"). */
export const directReportsRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient } & ActorDomains> = async (
  app,
  { sql, baseDomain, serviceDomain },
) => {
  const domains = { baseDomain, serviceDomain };
  app.get(
    '/api/actors/reports',
    {
      schema: {
        tags: ['actors'],
        operationId: 'GET:actors.reports',
        summary:
          'A manager’s reports (the holders of the positions below theirs, at any depth), a page at a time, shaped as GET /api/actors',
        querystring: DirectReportsQuery,
        response: {
          200: { ...Type.Array(Actor), headers: ListHeaders },
          400: ApiError,
          401: ApiError,
          403: ApiError,
          404: ApiError,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (principal.kind === 'launch') {
        throw new AppError(
          'auth.forbidden',
          403,
          'A launch token acts for its activity only; reports need a learner credential, an admin token or an API key.',
        );
      }
      const page = pageOf(request.query);
      const { agent, actorId } = request.query;
      const { actors, total } = await listDirectReports(sql, principal, { agent, actorId, ...page }, domains);
      const query: Record<string, string> = {};
      if (agent !== undefined) query.agent = agent;
      if (actorId !== undefined) query.actorId = actorId;
      sendPageHeaders(reply, { url: `${request.publicBaseUrl}/api/actors/reports`, query, page, shown: actors.length, total });
      return actors as Static<typeof Actor>[];
    },
  );
};
