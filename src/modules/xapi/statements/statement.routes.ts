import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { StatementProjection } from '../../../kernel/statement-projection.port.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ApiError } from '../../../platform/http/common-schemas.js';
import { principalOf } from '../../../kernel/principal.js';
import { StatementErrors } from './statement.errors.js';
import type { JsonObject } from '../../../kernel/formats.js';
import { attachmentPartsOf, attachmentsOf, multipartBody, multipartStatementsParser } from './attachments/attachment.js';
import { databaseAttachmentStore, type AttachmentStore } from './attachments/attachment.store.js';
import {
  PostStatementQuery,
  PutStatementQuery,
  Statement,
  StatementBody,
  StatementIds,
  StatementQuery,
  StatementResult,
} from './statement.schemas.js';
import {
  filterParameters,
  getStatement,
  listStatementPage,
  statementWriter,
  storeStatements,
  type StatementCaller,
} from './statement.service.js';

export interface StatementsRoutesOptions {
  sql: SqlClient;
  /** What the other modules keep from the statements (the port `statementProjections`). */
  projections: readonly StatementProjection[];
  /** Largest multipart/mixed request, statements and attachment data together (413 above it). */
  attachmentLimitBytes: number;
  /** Where attachment data is kept: the database unless given. */
  attachmentStore?: AttachmentStore;
  /** The most statements one POST may carry (413 above it, before any is checked). */
  batchLimit: number;
}

const StatementOrResult = Type.Union([StatementResult, Statement], {
  description: 'A statement (with statementId or voidedStatementId) or a StatementResult.',
});

const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError, 413: ApiError, 415: ApiError };

/**
 * The xAPI Statement Resource, `/xapi/statements` (xAPI 2.0 Part 3 §2.1): PUT one statement,
 * POST one or many, GET one or a page. Registered as its own encapsulated plugin so its
 * content-type parsers (JSON, and multipart/mixed with attachments) touch no other resource.
 */
export const statementsRoutes: FastifyPluginAsyncTypebox<StatementsRoutesOptions> = async (
  app,
  { sql, projections, attachmentLimitBytes, attachmentStore = databaseAttachmentStore, batchLimit },
) => {
  // Statements with attachment data arrive as multipart/mixed (2.0 Part 3 §1.5.2): attachment.ts.
  app.addContentTypeParser('multipart/mixed', multipartStatementsParser(attachmentLimitBytes));
  // xAPI 2.0 Part 3 §3.2.s3.b6: a body in any other media type is a 400, not HTTP's 415.
  app.removeContentTypeParser('text/plain');
  const store = { sql, projections };
  const writer = statementWriter(store);
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
      // A multipart/mixed body (attachment data) is admitted under the attachments budget (admission.ts).
      config: { admission: 'attachments' },
      schema: {
        tags: ['xapi'],
        operationId: 'PUT:xapi.statements',
        summary: 'Store one statement under the given id',
        querystring: PutStatementQuery,
        body: StatementBody,
        response: { 204: Type.Null({ description: 'Stored (or the identical statement already was).' }), ...errors },
      },
    },
    async (request, reply) => {
      const attachments = { parts: attachmentPartsOf(request), store: attachmentStore };
      await storeStatements(store, callerOf(request), request.body, request.query.statementId, attachments, writer);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/xapi/statements',
    {
      config: { admission: 'attachments' },
      // Before the schema checks every statement of the batch.
      preValidation: async (request) => {
        if (Array.isArray(request.body) && request.body.length > batchLimit)
          throw StatementErrors.batchTooLarge(request.body.length, batchLimit);
      },
      schema: {
        tags: ['xapi'],
        operationId: 'POST:xapi.statements',
        summary: 'Store one statement or a batch, all or nothing',
        querystring: PostStatementQuery,
        body: StatementBody,
        response: { 200: StatementIds, ...errors },
      },
    },
    async (request) =>
      storeStatements(
        store,
        callerOf(request),
        request.body,
        undefined,
        { parts: attachmentPartsOf(request), store: attachmentStore },
        writer,
      ),
  );

  app.get(
    '/xapi/statements',
    {
      schema: {
        tags: ['xapi'],
        operationId: 'GET:xapi.statements',
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
        if (query.attachments === true)
          return sendMultipart(reply, sql, attachmentStore, JSON.stringify(found.statement), [found.statement]);
        return found.statement;
      }
      const page = await listStatementPage(sql, caller, query, options);
      if (query.attachments === true) {
        return sendMultipart(reply, sql, attachmentStore, page.json, (JSON.parse(page.json) as { statements: JsonObject[] }).statements);
      }
      // Already JSON text: a string with a JSON content type is sent as it is, not serialized
      // (the handler's type is the schema's object, hence the cast).
      return reply.type('application/json; charset=utf-8').send(page.json as never);
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
 * With attachments=true, the multipart/mixed response of 2.0 Part 3 §1.5.2: `json` (the statement
 * or StatementResult) first, then the data of every attachment `statements` use whose data the
 * LRS holds (fileUrl attachments sent without data have none). A Buffer is sent as it is, past
 * the response serializer.
 */
async function sendMultipart(
  reply: FastifyReply,
  sql: SqlClient,
  store: AttachmentStore,
  json: string,
  statements: JsonObject[],
): Promise<never> {
  const attachments = await attachmentsOf(sql, store, principalOf(reply.request).tenant.id, statements);
  const { contentType, body } = multipartBody(json, attachments);
  return reply.type(contentType).send(body) as never;
}
