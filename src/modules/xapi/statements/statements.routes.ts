import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ApiError } from '../../../platform/http/common-schemas.js';
import { principalOf } from '../../auth/auth.plugin.js';
import { StatementErrors } from './statements.errors.js';
import {
  PostStatementQuery,
  PutStatementQuery,
  Statement,
  StatementBody,
  StatementIds,
  StatementQuery,
  StatementResult,
} from './statements.schemas.js';
import {
  filterParameters,
  getStatement,
  listStatementPage,
  storeStatements,
  type StatementCaller,
} from './statements.service.js';

export interface StatementsRoutesOptions {
  sql: SqlClient;
}

const StatementOrResult = Type.Union([StatementResult, Statement], {
  description: 'A statement (with statementId or voidedStatementId) or a StatementResult.',
});

const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 413: ApiError, 415: ApiError };

/**
 * The xAPI Statement Resource, `/xapi/statements` (xAPI 2.0 Part 3 §2.1): PUT one statement,
 * POST one or many, GET one or a page. Registered as its own encapsulated plugin so its
 * content-type parsers (JSON, and a refusal of multipart/mixed) touch no other resource.
 */
export const statementsRoutes: FastifyPluginAsyncTypebox<StatementsRoutesOptions> = async (app, { sql }) => {
  // Statements with attachment data arrive as multipart/mixed (2.0 Part 2 §2.4.11): not supported yet.
  app.addContentTypeParser('multipart/mixed', (_request, _payload, done) => done(StatementErrors.attachmentsUnsupported()));
  // xAPI 2.0 Part 3 §3.2.s3.b6: a body in any other media type is a 400, not HTTP's 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', (request, _payload, done) =>
    done(StatementErrors.unsupportedMediaType(String(request.headers['content-type'] ?? 'none'))),
  );

  // 2.0 Part 3 §2.1.3.s2.b5: every response of the resource says how current its reads are.
  // Statements are stored in one transaction before the write is answered, so everything
  // stored before now is readable now.
  app.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('X-Experience-API-Consistent-Through')) {
      reply.header('X-Experience-API-Consistent-Through', new Date().toISOString());
    }
  });

  app.put(
    '/xapi/statements',
    {
      schema: {
        tags: ['xapi'],
        summary: 'Store one statement under the given id',
        querystring: PutStatementQuery,
        body: StatementBody,
        response: { 204: Type.Null({ description: 'Stored (or the identical statement already was).' }), ...errors },
      },
    },
    async (request, reply) => {
      await storeStatements(sql, callerOf(request), request.body, request.query.statementId);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/xapi/statements',
    {
      schema: {
        tags: ['xapi'],
        summary: 'Store one statement or a batch, all or nothing',
        querystring: PostStatementQuery,
        body: StatementBody,
        response: { 200: StatementIds, ...errors },
      },
    },
    async (request) => storeStatements(sql, callerOf(request), request.body),
  );

  app.get(
    '/xapi/statements',
    {
      schema: {
        tags: ['xapi'],
        summary: 'One statement by statementId or voidedStatementId, or a page of statements',
        querystring: StatementQuery,
        response: { 200: StatementOrResult, ...errors },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const caller = callerOf(request);
      const options = { format: query.format ?? 'exact', acceptLanguage: request.headers['accept-language'] };
      const single = query.statementId ?? query.voidedStatementId;
      if (single !== undefined) {
        const parameter = query.statementId !== undefined ? 'statementId' : 'voidedStatementId';
        const others = filterParameters(query).filter((key) => key !== parameter);
        if (others.length > 0) throw StatementErrors.singleWithFilters(parameter, others);
        const found = await getStatement(sql, caller, single, query.voidedStatementId !== undefined, options);
        reply.header('Last-Modified', found.stored.toUTCString());
        if (query.attachments === true) return sendMultipart(reply, found.statement);
        return found.statement;
      }
      const page = await listStatementPage(sql, caller, query, options);
      if (query.attachments === true) return sendMultipart(reply, page);
      return page;
    },
  );
};

function callerOf(request: FastifyRequest): StatementCaller {
  const principal = principalOf(request);
  return {
    tenantId: principal.tenant.id,
    principal,
    version: request.xapiVersion,
    baseUrl: request.publicBaseUrl,
  };
}

/**
 * JSON, or with attachments=true the multipart/mixed response of 2.0 Part 2 §2.4.11: the JSON
 * part first, then one part per attachment whose data the LRS holds. Statements are only stored
 * with fileUrl attachments (their data lives elsewhere), so the JSON part is the whole answer.
 */
function sendMultipart(reply: FastifyReply, body: unknown): never {
  const boundary = randomBytes(12).toString('hex');
  reply.header('Content-Type', `multipart/mixed; boundary=${boundary}`);
  reply.serializer((payload: unknown) => payload as string);
  // Handlers answer their schema's types; this answer is text that bypasses the serializer.
  return reply.send(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(body)}\r\n--${boundary}--\r\n`) as never;
}
