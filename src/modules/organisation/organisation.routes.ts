import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { ApiError } from '../../platform/http/common-schemas.js';
import { tenantWidePrincipalOf } from '../../kernel/principal.js';
import { JobBody, OrganisationQuery, OrganisationResponse } from './organisation.schemas.js';
import { flatJson, listJobs, readOrganisation, treeJson } from './organisation.service.js';

/** `GET /api/organisation`, `GET /api/jobs`: the stored structure (imported by the imports module). */
export const organisationRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient }> = async (app, { sql }) => {
  app.get(
    '/api/organisation',
    {
      schema: {
        tags: ['imports'],
        operationId: 'GET:organisation',
        summary: 'The organisation structure as a tree, or one entry’s subtree',
        querystring: OrganisationQuery,
        response: { 200: OrganisationResponse, 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request, reply) => {
      const principal = tenantWidePrincipalOf(request);
      const entries = await readOrganisation(sql, principal.tenant.id, request.query.id);
      // A string payload with a JSON content type bypasses Fastify's (recursive) serializer:
      // treeJson writes a hierarchy of any depth iteratively.
      const json = request.query.format === 'flat' ? flatJson(entries) : treeJson(entries);
      return reply.type('application/json; charset=utf-8').send(json as never);
    },
  );

  app.get(
    '/api/jobs',
    {
      schema: {
        tags: ['imports'],
        operationId: 'GET:jobs',
        summary: 'The job architecture, in import order',
        response: { 200: Type.Array(JobBody), 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request) => [...(await listJobs(sql, tenantWidePrincipalOf(request).tenant.id))],
  );
};
