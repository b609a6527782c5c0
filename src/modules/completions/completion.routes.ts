import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { ApiError } from '../../platform/http/common-schemas.js';
import { principalOf } from '../../kernel/principal.js';
import { CompletionErrors } from './completion.errors.js';
import { listCompletions } from './completion.service.js';
import { COMPLETION_VERSIONS, CompletionHeaders, CompletionQuery, CompletionRecord } from './completion.schemas.js';

/** `GET /api/actors/completions`: one actor's completion records, derived from statements (docs/completions.md). */
export const completionRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient }> = async (app, { sql }) => {
  app.get(
    '/api/actors/completions',
    {
      schema: {
        tags: ['actors'],
        operationId: 'GET:actors.completions',
        summary: "An actor's completion records (in-progress, completed, passed, failed), from its statements",
        headers: CompletionHeaders,
        querystring: CompletionQuery,
        response: { 200: Type.Array(CompletionRecord), 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const version = request.headers['accept-version'];
      if (version !== undefined && !(COMPLETION_VERSIONS as readonly string[]).includes(version.trim())) {
        throw CompletionErrors.unsupportedVersion(version, COMPLETION_VERSIONS);
      }
      return listCompletions(sql, principal, request.query);
    },
  );
};
