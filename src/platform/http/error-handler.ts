import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from './app-error.js';
import { httpErrorOf } from './storage-errors.js';
import { isNotUtf8Error } from './input-guards.js';
import { sendNotFoundPage, wantsPage } from './home-page.js';

/** The body of every error answered by the API: the interface's APIError shape (section 7). */
export interface ApiErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * The only place errors become responses: AppError by its status, Fastify's own errors
 * (validation, body too large, bad content type) by theirs, storage failures through
 * storage-errors.ts, anything else a logged 500 whose message stays hidden.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    const appError = toAppError(error);
    // A 503 (the database gone for a moment, a collision to retry) is expected during a failover
    // and answered with Retry-After: a warning. Any other 5xx is a bug: an error.
    if (appError.status === 503) request.log.warn({ err: error, code: appError.code }, 'request failed: retry later');
    else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: appError.code, status: appError.status }, appError.message);
    if (appError.headers) reply.headers(appError.headers);
    const body: ApiErrorBody = { code: appError.code, message: appError.message };
    if (appError.details) body.details = appError.details;
    return reply.status(appError.status).send(appError.body ?? body);
  });

  // A browser that opened an unknown address gets a page with the way back; API clients, JSON.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    if (wantsPage(request)) return sendNotFoundPage(request, reply, path);
    if (request.method === 'GET' || request.method === 'HEAD') reply.header('Vary', 'Accept');
    return reply.status(404).send({ code: 'route.not_found', message: `No resource at ${request.method} ${path}.` });
  });
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const problems = fastifyError.validation.map((item) => ({
      location: fastifyError.validationContext ?? 'request',
      path: item.instancePath || '/',
      // Ajv names the unknown property in its params only: say which it is.
      message:
        item.keyword === 'additionalProperties' && typeof item.params?.additionalProperty === 'string'
          ? `must NOT have the property "${item.params.additionalProperty}"`
          : (item.message ?? 'is invalid'),
    }));
    const message = problems.map((item) => `${item.location}${item.path === '/' ? '' : item.path} ${item.message}`).join('; ');
    return new AppError('request.invalid', 400, `Invalid request: ${message}.`, { details: { problems } });
  }
  const storage = httpErrorOf(error);
  if (storage) return storage;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('request.too_large', 413, 'The request body is larger than this server accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('request.unsupported_media_type', 415, fastifyError.message);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError(
        'request.invalid_json',
        400,
        `The request body is not valid JSON${isNotUtf8Error(error) ? ': its bytes are not UTF-8 (RFC 8259 §8.1)' : ''}.`,
      );
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError('request.invalid', status, fastifyError.message);
  }
  return new AppError('server.error', 500, 'Something went wrong on our side; the request id in the logs tells an operator what.');
}
