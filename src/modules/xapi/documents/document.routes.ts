import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError } from '../../../platform/http/app-error.js';
import { ApiError, operationIdOf } from '../../../platform/http/common-schemas.js';
import { findJsonProblem } from '../../../platform/json-guard.js';
import { principalOf, type Principal } from '../../../kernel/principal.js';
import { parseActorId, parseAgentParameter } from '../../../kernel/agent.js';
import { assertXapiVersion } from '../xapi.plugin.js';
import { lengthProblem, MAX_DOCUMENT_ID_BYTES, MAX_IRI_BYTES } from '../../../kernel/limits.js';
import { parseTimestamp } from '../../../kernel/timestamp.js';
import type { Preconditions } from './document-rules.js';
import type { DocumentKind } from './document.repository.js';
import {
  getDocument,
  listDocumentIds,
  mergeDocument,
  overwriteDocument,
  removeDocument,
  removeDocuments,
  type DocumentKey,
  type DocumentScope,
  type DocumentWriters,
} from './document.service.js';
import { DocumentErrors } from './document.errors.js';

/** What tells the three document resources apart (xAPI 2.0 Part 3 §4.2.6-4.2.8; interface 4.3-4.5). */
export interface DocumentResource {
  kind: DocumentKind;
  path: string;
  /** `stateId` or `profileId`. */
  idParameter: 'stateId' | 'profileId';
  /** Which of activityId and agent address the resource. */
  byActivity: boolean;
  byAgent: boolean;
  /** Only state has registrations, and only state may be deleted without its id. */
  hasRegistration: boolean;
  /** `state document`, `activity profile`, … for the API reference. */
  noun: string;
  tag: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Query = Record<string, string | undefined>;

interface Addressed {
  scope: DocumentScope;
  /** Present when the request names one document. */
  key?: DocumentKey;
  since?: Date;
}

/**
 * The validation error for missing query parameters (section 7 in the interface's own numbering):
 * an array with one element per missing parameter, `value` holding what was received.
 */
function missingParameters(missing: string[], request: FastifyRequest): AppError {
  const value = { ...(request.query as Query), document: documentForError(request) };
  return new AppError('documents.missing_parameter', 400, `Missing query parameters: ${missing.join(', ')}.`, {
    body: {
      code: 400,
      name: 'Bad Request',
      body: missing.map((parameter) => ({
        name: 'ValidationError',
        description: `'query' must contain property '${parameter}'`,
        property: 'query',
        value,
      })),
    },
  });
}

function documentForError(request: FastifyRequest): unknown {
  const body = request.body;
  if (!Buffer.isBuffer(body) || body.length === 0) return null;
  const text = body.toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    // The error body is serialized with JSON.stringify, which recurses: a deeper document is echoed as its text.
    return findJsonProblem(value, 'document', { strings: false }) ? text : value;
  } catch {
    return text;
  }
}

/**
 * Reads and checks the addressing parameters. `needsId`: PUT and POST always name one
 * document, and so does a profile DELETE; GET without the id lists, a state DELETE without
 * it deletes every state in the scope.
 */
function address(resource: DocumentResource, request: FastifyRequest, needsId: boolean): Addressed {
  const query = request.query as Query;
  const missing: string[] = [];
  if (resource.byActivity && !query.activityId) missing.push('activityId');
  if (resource.byAgent && !query.agent && !query.actorId) missing.push('agent');
  if (needsId && !query[resource.idParameter]) missing.push(resource.idParameter);
  if (missing.length > 0) throw missingParameters(missing, request);
  // The interface's validation error answers a missing parameter, whatever the version header says.
  assertXapiVersion(request);
  // Both are parts of the documents' primary key (limits.ts has its budget); a value that could
  // never be stored is refused on every method alike, a GET included.
  const limits: Array<[string, number]> = [[resource.idParameter, MAX_DOCUMENT_ID_BYTES]];
  if (resource.byActivity) limits.unshift(['activityId', MAX_IRI_BYTES]);
  for (const [parameter, limit] of limits) {
    const value = query[parameter];
    const problem = typeof value === 'string' ? lengthProblem(value, limit) : undefined;
    if (problem) throw DocumentErrors.invalidParameter(parameter, problem);
  }

  const agentKey = !resource.byAgent ? '' : query.agent ? parseAgentParameter(query.agent).key : parseActorId(query.actorId as string).key;
  const registration = resource.hasRegistration ? query.registration : undefined;
  if (registration !== undefined && !UUID.test(registration)) {
    throw DocumentErrors.invalidParameter('registration', 'must be a UUID');
  }
  const since = query.since === undefined ? undefined : parseTimestamp(query.since, { requireZone: true });
  if (query.since !== undefined && since === undefined) {
    throw DocumentErrors.invalidParameter('since', 'must be an ISO 8601 timestamp with a time zone, such as 2026-01-31T12:00:00Z');
  }
  const scope: DocumentScope = {
    kind: resource.kind,
    activityId: resource.byActivity ? (query.activityId as string) : '',
    agentKey,
    registration: registration?.toLowerCase(),
  };
  const documentId = query[resource.idParameter];
  const key = documentId ? { ...scope, registration: scope.registration ?? '', documentId } : undefined;
  return { scope, key, since };
}

/**
 * Actor credentials and launch tokens reach only their own agent's (and activity's) documents
 * (docs/provisioning.md, "What learner credentials and launch tokens may do"):
 * - state: their agent's; a launch token's, only for its activity and its registration;
 * - agent profile: their agent's; read only for a launch token;
 * - activity profile: read only (shared by every learner); a launch token's, its activity's only.
 */
function authorize(principal: Principal, scope: DocumentScope, method: string): void {
  if (principal.agentKey === undefined) return;
  const reads = method === 'GET' || method === 'HEAD';
  if (scope.agentKey !== '' && scope.agentKey !== principal.agentKey) throw DocumentErrors.forbidden('another agent');
  if (principal.activityId !== undefined && scope.activityId !== '' && scope.activityId !== principal.activityId) {
    throw DocumentErrors.forbidden('another activity');
  }
  if (scope.kind === 'activity_profile' && !reads)
    throw DocumentErrors.forbidden('an activity profile for writing (they are read only to learners)');
  if (principal.kind !== 'launch') return;
  if (scope.kind === 'agent_profile' && !reads)
    throw DocumentErrors.forbidden('an agent profile for writing (read only to a launch token)');
  if (scope.kind === 'state' && scope.registration !== principal.registration) {
    throw DocumentErrors.forbidden(
      scope.registration === undefined ? 'no registration (send the registration the launch handed over)' : 'another registration',
    );
  }
}

function preconditionsOf(request: FastifyRequest): Preconditions {
  const ifMatch = request.headers['if-match'];
  const ifNoneMatch = request.headers['if-none-match'];
  return {
    ifMatch: typeof ifMatch === 'string' ? ifMatch : undefined,
    ifNoneMatch: typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined,
  };
}

function querySchema(resource: DocumentResource): TSchema {
  const text = (description: string) => Type.Optional(Type.String({ description }));
  const properties: Record<string, TSchema> = {};
  if (resource.byActivity)
    properties.activityId = text(`The activity IRI the document belongs to, at most ${MAX_IRI_BYTES} bytes of UTF-8. Required.`);
  if (resource.byAgent) {
    properties.agent = text('The agent, as JSON with exactly one inverse functional identifier. Required (or actorId).');
    properties.actorId = text('The agent as `<ifi_property>|<ifi_value>` (account: `account|<homePage>|<name>`), instead of agent.');
  }
  if (resource.hasRegistration) properties.registration = text('A registration UUID: documents of that attempt only.');
  properties[resource.idParameter] = text(
    `The document's id, at most ${MAX_DOCUMENT_ID_BYTES} bytes of UTF-8. Without it, GET lists the ids${resource.hasRegistration ? ' and DELETE deletes every state of the activity and agent' : ''}.`,
  );
  properties.since = text('GET without the id: only ids of documents changed after this ISO 8601 timestamp.');
  return Type.Object(properties, { additionalProperties: true });
}

const headers = Type.Object(
  {
    'x-experience-api-version': Type.Optional(Type.String({ description: '1.0.3 or 2.0.0. Required.' })),
    'if-match': Type.Optional(Type.String({ description: 'The ETag the write expects the stored document to have.' })),
    'if-none-match': Type.Optional(Type.String({ description: '`*`: write only when no document is stored.' })),
  },
  { additionalProperties: true },
);

const SeedValidationError = Type.Object(
  {
    code: Type.Literal(400),
    name: Type.Literal('Bad Request'),
    body: Type.Array(
      Type.Object({
        name: Type.Literal('ValidationError'),
        description: Type.String(),
        property: Type.Literal('query'),
        value: Type.Object({}, { additionalProperties: true }),
      }),
    ),
  },
  {
    description:
      'A required query parameter is missing (one element per parameter), or another parameter is malformed (a JSON error with code and message).',
  },
);

const errors = {
  401: ApiError,
  403: ApiError,
  404: ApiError,
  409: Type.String({
    description:
      'The document exists and the PUT had neither If-Match nor If-None-Match: a plain-text explanation (the ADL conformance suite expects a string).',
  }),
  412: ApiError,
  413: ApiError,
};

const noContent = Type.Null({ description: 'Done.' });

/** Registers GET (and HEAD), PUT, POST and DELETE for one document resource. */
export function registerDocumentRoutes(app: FastifyInstance, sql: SqlClient, writers: DocumentWriters, resource: DocumentResource): void {
  const querystring = querySchema(resource);
  const write = (request: FastifyRequest, key: DocumentKey) => ({
    key,
    content: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
    contentType: request.headers['content-type']?.trim() || 'application/octet-stream',
    preconditions: preconditionsOf(request),
    version: request.xapiVersion,
  });
  const tenantOf = (request: FastifyRequest, scope: DocumentScope) => {
    const principal = principalOf(request);
    authorize(principal, scope, request.method);
    return principal.tenant.id;
  };
  const badRequest = Type.Union([SeedValidationError, ApiError]);

  app.get(
    resource.path,
    {
      config: { parametersFirst: true },
      schema: {
        operationId: operationIdOf('GET', resource.path),
        tags: [resource.tag],
        summary: `Retrieve one ${resource.noun}, or list the ids`,
        description: `With \`${resource.idParameter}\`: the stored bytes with their Content-Type, ETag and Last-Modified. Without it: a JSON array of ids.`,
        querystring,
        headers,
        response: { 200: { description: 'The document, or the array of ids.' }, 400: badRequest, ...errors },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { scope, key, since } = address(resource, request, false);
      const tenantId = tenantOf(request, scope);
      if (!key) return reply.send(await listDocumentIds(sql, tenantId, scope, since));
      const document = await getDocument(sql, tenantId, key);
      return reply
        .header('Content-Type', document.contentType)
        .header('ETag', document.etag)
        .header('Last-Modified', document.updatedAt.toUTCString())
        .send(document.content);
    },
  );

  app.put(
    resource.path,
    {
      config: { parametersFirst: true },
      schema: {
        operationId: operationIdOf('PUT', resource.path),
        tags: [resource.tag],
        summary: `Store a ${resource.noun}, replacing any stored one`,
        querystring,
        headers,
        response: { 204: noContent, 400: badRequest, ...errors },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { scope, key } = address(resource, request, true);
      await overwriteDocument(sql, writers.newDocuments, tenantOf(request, scope), write(request, key as DocumentKey));
      return reply.status(204).send();
    },
  );

  app.post(
    resource.path,
    {
      config: { parametersFirst: true },
      schema: {
        operationId: operationIdOf('POST', resource.path),
        tags: [resource.tag],
        summary: `Merge a JSON object into a ${resource.noun} (or store it)`,
        description: 'Answers 204, not the 200 the interface lists: xAPI and its conformance suite require 204.',
        querystring,
        headers,
        response: { 204: noContent, 400: badRequest, ...errors },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { scope, key } = address(resource, request, true);
      await mergeDocument(writers.merges, tenantOf(request, scope), write(request, key as DocumentKey));
      return reply.status(204).send();
    },
  );

  app.delete(
    resource.path,
    {
      config: { parametersFirst: true },
      schema: {
        operationId: operationIdOf('DELETE', resource.path),
        tags: [resource.tag],
        summary: resource.hasRegistration
          ? `Delete a ${resource.noun}, or every state of the activity and agent`
          : `Delete a ${resource.noun}`,
        description: 'Answers 204, not the 200 the interface lists: xAPI and its conformance suite require 204.',
        querystring,
        headers,
        response: { 204: noContent, 400: badRequest, ...errors },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { scope, key } = address(resource, request, !resource.hasRegistration);
      const tenantId = tenantOf(request, scope);
      if (key) await removeDocument(sql, tenantId, key, preconditionsOf(request));
      else await removeDocuments(sql, tenantId, scope);
      return reply.status(204).send();
    },
  );
}
