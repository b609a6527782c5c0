import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { ApiError } from '../../platform/http/common-schemas.js';
import { PageQuery, pageOf } from '../../platform/http/paged-list.js';
import { tenantWidePrincipalOf } from '../../kernel/principal.js';
import { listImportRuns } from './import-run.service.js';

const HistoryQuery = PageQuery('runs');

const ImportRunBody = Type.Object({
  id: Type.String({ format: 'uuid' }),
  kind: Type.Union([Type.Literal('users'), Type.Literal('organisation'), Type.Literal('jobs')]),
  verify: Type.Boolean({ description: 'A check (`verify: true`, or `?verify=true` for organisation and jobs): nothing imported.' }),
  principal: Type.Object({
    kind: Type.String({ description: '`admin` or `api_key`.' }),
    id: Type.String({ description: 'The admin id or the API key.' }),
  }),
  startedAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.String({ format: 'date-time' }),
  summary: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'users: the summary counts; organisation, jobs: `{ entries }`, and a check the counts of its answer (no examples).',
    },
  ),
});

/** `GET /api/import/history`: the audit trail of imports, newest first (a scoped credential's own only). */
export const importHistoryRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient }> = async (app, { sql }) => {
  app.get(
    '/api/import/history',
    {
      schema: {
        tags: ['imports'],
        operationId: 'GET:import.history',
        summary: 'Every import of the tenant, newest first',
        querystring: HistoryQuery,
        response: { 200: Type.Array(ImportRunBody), 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      // A scoped credential sees only the runs it made itself (docs/learning.md, "Scoped administration and managers").
      const runs = await listImportRuns(sql, principal.tenant.id, pageOf(request.query), principal.scope ? principal : undefined);
      return runs.map((run) => ({ ...run, startedAt: run.startedAt.toISOString(), finishedAt: run.finishedAt.toISOString() }));
    },
  );
};
