import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './app-error.js';
import { httpErrorOf } from './storage-errors.js';
import { isNotUtf8Error } from './input-guards.js';
import { sendNotFoundPage, wantsPage } from './home-page.js';
import { errorPage, PAGE_HEADERS } from './html-page.js';

/** The body of every error answered by the API: the interface's APIError shape (section 7). */
export interface ApiErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** What an error page says: a title and a paragraph, in the words of the person in front of the browser. */
export interface PageWording {
  title: string;
  message: string;
}

/**
 * How a route answers its errors, named in its config (`config: { errors: ... }`). The status, the
 * headers and the log line come from the one mapping below whichever it is:
 * - absent: the API's JSON, `{code, message, details}`;
 * - `'oauth'`: RFC 6749 §5.2's `{error, error_description}`, never cached (the token and
 *   revocation endpoints); an error the RFC has no name for (the database gone, a bug) keeps the API's JSON;
 * - `'scim'`: RFC 7644 §3.12's `{schemas, status, scimType, detail}` as `application/scim+json`
 *   (the SCIM service provider); `scimType` from a `scim.<scimType>` code, `uniqueness` for a 409,
 *   `invalidSyntax` for a request that failed its schema or is no JSON, `invalidValue` for any
 *   other 400 (a value the actor store refuses: a unique value over its length);
 * - a function: an HTML page (html-page.ts) with the words it picks for the error (the sign-in
 *   and launch pages, which a person opens in a browser).
 */
export type ErrorRendering = 'oauth' | 'scim' | ((error: AppError) => PageWording);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the route's errors are answered (error-handler.ts); the API's JSON when absent. */
    errors?: ErrorRendering;
  }
}

/** One reason a request failed its schema or the input guards, as `details.problems` lists it. */
export interface RequestProblem {
  location: string;
  path: string;
  message: string;
}

/**
 * A request that failed its schema or the input guards (input-guards.ts): 400 `request.invalid`,
 * every problem in `details.problems`.
 */
class SchemaRefusal extends AppError {
  constructor(readonly problems: RequestProblem[]) {
    super('request.invalid', 400, `Invalid request: ${describeProblems(problems)}.`, { details: { problems } });
  }
}

/** One of Fastify's own 4xx refusals of a request (its body, its content type), mapped. */
class RequestRefusal extends AppError {}

const describeProblems = (problems: RequestProblem[]) =>
  problems.map((item) => `${item.location}${item.path === '/' ? '' : item.path} ${item.message}`).join('; ');

/**
 * The problems of a request that failed its schema or the input guards, in one line
 * (`querystring/state must not contain U+0000 (NUL)`); undefined for any other error.
 */
export const requestProblemsOf = (error: AppError): string | undefined =>
  error instanceof SchemaRefusal ? describeProblems(error.problems) : undefined;

/**
 * The only place errors become responses. One mapping gives each error its status, headers and
 * log line: AppError by its status, Fastify's own errors (validation, body too large, bad content
 * type) by theirs, storage failures through storage-errors.ts, anything else a logged 500 whose
 * message stays hidden. The route's config (`errors`) then picks the rendering: the API's JSON,
 * RFC 6749's JSON or an HTML page.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    const appError = toAppError(error);
    const rendering = request.routeOptions.config?.errors;
    logFailure(request, error, appError, typeof rendering === 'function');
    if (typeof rendering === 'function') return sendPage(reply, appError, rendering(appError));
    if (rendering === 'oauth') {
      const oauth = oauthErrorOf(appError, request);
      if (oauth) return sendOAuthError(reply, appError, oauth);
    }
    if (appError.headers) reply.headers(appError.headers);
    if (rendering === 'scim') return sendScimError(reply, appError);
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

/**
 * A 503 (the database gone for a moment, a collision to retry) is expected during a failover and
 * answered with Retry-After: a warning. Any other 5xx is a bug: an error. A 4xx is the client's:
 * info, with its details when the answer is a page, which shows neither the code nor the details.
 */
function logFailure(request: FastifyRequest, error: unknown, appError: AppError, page: boolean): void {
  if (appError.status === 503) request.log.warn({ err: error, code: appError.code }, 'request failed: retry later');
  else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
  else if (page) request.log.info({ code: appError.code, status: appError.status, details: appError.details }, appError.message);
  else request.log.info({ code: appError.code, status: appError.status }, appError.message);
}

function sendPage(reply: FastifyReply, error: AppError, wording: PageWording): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.status(error.status).headers(PAGE_HEADERS).send(errorPage(wording.title, wording.message));
}

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 §3.12: the SCIM error of an AppError (see ErrorRendering). */
function sendScimError(reply: FastifyReply, error: AppError): FastifyReply {
  const scimType = error.code.startsWith('scim.')
    ? error.code.slice('scim.'.length)
    : error.status === 409
      ? 'uniqueness'
      : error instanceof SchemaRefusal || error.code === 'request.invalid_json'
        ? 'invalidSyntax'
        : error.status === 400
          ? 'invalidValue'
          : undefined;
  return reply
    .status(error.status)
    .type('application/scim+json; charset=utf-8')
    .send({
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(error.status),
      ...(scimType === undefined ? {} : { scimType }),
      detail: error.message,
    });
}

interface OAuthErrorBody {
  error: string;
  error_description: string;
}

/** RFC 6749 §5.1: token responses, errors included, are never cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

function sendOAuthError(reply: FastifyReply, error: AppError, oauth: { status: number; body: OAuthErrorBody }): FastifyReply {
  return reply
    .status(oauth.status)
    .headers({ ...error.headers, ...NO_STORE })
    .send(oauth.body);
}

/**
 * An error as RFC 6749 §5.2 (and RFC 7009) names it, or undefined for one it has no name for: an
 * `oauth.<error>` code is that error (modules/auth/oauth/oauth-errors.ts), a rate limit's refusal
 * is `rate_limited`, and a request Fastify or the input guards could not read is `invalid_request`,
 * always 400.
 */
function oauthErrorOf(error: AppError, request: FastifyRequest): { status: number; body: OAuthErrorBody } | undefined {
  const answer = (status: number, name: string, description: string) => ({
    status,
    body: { error: name, error_description: description },
  });
  if (error.code.startsWith('oauth.')) return answer(error.status, error.code.slice('oauth.'.length), error.message);
  if (error.code === 'request.rate_limited') return answer(error.status, 'rate_limited', error.message);
  const unreadable = unreadableRequest(error, request);
  return unreadable === undefined ? undefined : answer(400, 'invalid_request', unreadable);
}

/** What RFC 6749's `invalid_request` says of a request Fastify or the input guards refused, or undefined for any other error. */
function unreadableRequest(error: AppError, request: FastifyRequest): string | undefined {
  if (error instanceof SchemaRefusal) {
    const problems = error.problems.map((item) => `${item.path === '/' ? 'body' : item.path.slice(1)} ${item.message}`);
    return `Invalid request: ${problems.join('; ')}.`;
  }
  if (!(error instanceof RequestRefusal)) return undefined;
  switch (error.code) {
    case 'request.unsupported_media_type':
      return 'Send the parameters as application/x-www-form-urlencoded or application/json.';
    case 'request.invalid_json':
      return 'The request body is not valid JSON.';
    case 'request.too_large':
      return `The request body is larger than ${request.routeOptions.bodyLimit} bytes.`;
    default:
      return error.message;
  }
}

function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return new SchemaRefusal(
      fastifyError.validation.map((item) => ({
        location: fastifyError.validationContext ?? 'request',
        path: item.instancePath || '/',
        // Ajv names the unknown property in its params only: say which it is.
        message:
          item.keyword === 'additionalProperties' && typeof item.params?.additionalProperty === 'string'
            ? `must NOT have the property "${item.params.additionalProperty}"`
            : (item.message ?? 'is invalid'),
      })),
    );
  }
  const storage = httpErrorOf(error);
  if (storage) return storage;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new RequestRefusal('request.too_large', 413, 'The request body is larger than this server accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new RequestRefusal('request.unsupported_media_type', 415, fastifyError.message);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new RequestRefusal(
        'request.invalid_json',
        400,
        `The request body is not valid JSON${isNotUtf8Error(error) ? ': its bytes are not UTF-8 (RFC 8259 §8.1)' : ''}.`,
      );
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new RequestRefusal('request.invalid', status, fastifyError.message);
  }
  return new AppError('server.error', 500, 'Something went wrong on our side; the request id in the logs tells an operator what.');
}
