import type { RouteOptions } from 'fastify';
import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';
import { apiErrorResponse } from './common-schemas.js';

/** Requests whose tenant and credential the auth plugin checks before the route runs. */
const CHECKED_PATH = /^\/(api|xapi)(\/|$)/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

const retryAfter = { 'Retry-After': { type: 'integer', description: 'Seconds to wait before trying again.' } };

/** What the auth plugin and Fastify answer on any route they guard, before the route's own rules. */
const CHECK_ERRORS = {
  400: apiErrorResponse(
    'The request is malformed (`request.invalid`, with the failing paths under `details`), or the Host and X-SVC-Tenant name different tenants (`tenant.mismatch`).',
  ),
  401: apiErrorResponse(
    'No credential, or one that is not valid, expired, revoked or of another tenant (`auth.unauthorized`, `auth.invalid_token`); WWW-Authenticate names the schemes.',
  ),
  404: apiErrorResponse('No tenant by the name the request gives (`tenant.not_found`).'),
  413: apiErrorResponse('The request body is larger than this server accepts (`request.too_large`).'),
  429: {
    ...apiErrorResponse(
      'Too many failed sign-ins with this learner credential lately (`auth.too_many_attempts`), or too many failed authentications from this address (`request.rate_limited`).',
    ),
    headers: retryAfter,
  },
};

type Status = keyof typeof CHECK_ERRORS;

/** The statuses the checks can answer on one route: a public route is not authenticated, only a body can be too large. */
function checkStatuses(route: RouteOptions): Status[] {
  const isPublic = (route.config as { public?: boolean } | undefined)?.public === true;
  if (isPublic) return [400];
  const methods = [route.method].flat();
  return methods.some((method) => BODY_METHODS.has(method)) ? [400, 401, 404, 413, 429] : [400, 401, 404, 429];
}

/**
 * @fastify/swagger's `transform`: adds to an `/api` or `/xapi` route's documented responses the
 * errors the checks before it can answer, where the route does not describe them itself. Only the
 * document changes, not the route's serialisation.
 */
export const describeCheckErrors: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema || schema.hide || !CHECKED_PATH.test(url)) return { schema, url };
  const declared = (schema.response ?? {}) as Record<string, unknown>;
  const added = Object.fromEntries(
    checkStatuses(route)
      .filter((status) => !(status in declared))
      .map((status) => [status, CHECK_ERRORS[status]]),
  );
  const response = Object.fromEntries(Object.entries({ ...declared, ...added }).sort(([a], [b]) => a.localeCompare(b)));
  return { schema: { ...schema, response }, url };
};

type Operation = { operationId?: string };
type PathItem = Record<string, Operation>;
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/**
 * @fastify/swagger's `transformObject`: an operationId written without its `METHOD:` (a route
 * answering several methods with one schema) gets the method of each operation, so every
 * operationId reads `METHOD:area.action` and stays unique.
 */
export const prefixOperationIds: SwaggerTransformObject = (documentObject) => {
  const document = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject;
  const paths = (document.paths ?? {}) as Record<string, PathItem>;
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method) || !operation.operationId || /^[A-Z]+:/.test(operation.operationId)) continue;
      item[method] = { ...operation, operationId: `${method.toUpperCase()}:${operation.operationId}` };
    }
  }
  return document;
};

/** The document as /openapi.json serves it: its one server is the public URL of this request. */
export function withServer(document: object, publicBaseUrl: string): Record<string, unknown> {
  const { openapi, info, ...rest } = document as Record<string, unknown>;
  return { openapi, info, servers: [{ url: publicBaseUrl, description: 'This server' }], ...rest };
}
