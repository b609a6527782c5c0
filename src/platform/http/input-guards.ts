import { errorCodes, type FastifyError, type FastifyInstance, type FastifyRequest } from 'fastify';
import { textProblem, utf8Text } from '../json-guard.js';

/**
 * Refuses, with a 400 naming the parameter, any query parameter (name or value) and any field
 * of a form-encoded body that holds U+0000 or a lone surrogate: PostgreSQL's text cannot hold
 * U+0000 (SQLSTATE 22021), so such a value would otherwise end as a 500 wherever it reaches a
 * query. Fastify decodes `%00` to U+0000; it leaves undecodable escapes (`%ED%A0%80`,
 * `%zz`, a lone `%`) as the literal text, which is harmless. Headers and the request line need no
 * check: Node's HTTP parser answers 400 itself to a NUL (or any control character) in them.
 *
 * A `preValidation` hook, so the xAPI version header, CORS and authentication have run and the
 * 400 reads like every other error of the route (and an unauthenticated caller still gets 401).
 * JSON bodies are the business of the code that reads them (platform/json-guard.ts), which can
 * name the property (`statement.result.response`) rather than a position in a body.
 * Registered once on the root instance, before any route, so every module gets it.
 */
export function registerInputGuards(app: FastifyInstance): void {
  registerUtf8JsonParser(app);
  app.addHook('preValidation', async (request) => {
    checkFields(request.query, 'querystring');
    checkRawQuery(request.raw.url ?? '');
    if (isFormBody(request)) checkFields(request.body, 'body');
  });
}

/**
 * True on the invalid-JSON error of a body whose bytes are not UTF-8, for the message: the error
 * is Fastify's own FST_ERR_CTP_INVALID_JSON_BODY, so the error handler answers it as the invalid
 * JSON it is, whichever rendering the route asks for (the API's, RFC 6749's, a page).
 */
export const isNotUtf8Error = (error: unknown): boolean => (error as { notUtf8?: unknown } | null)?.notUtf8 === true;

/**
 * `application/json` bodies are parsed as Fastify parses them (with the app's own
 * onProtoPoisoning and onConstructorPoisoning, which createFastify in app.ts sets), from bytes
 * that must be UTF-8: Fastify decodes a body leniently, so a byte that is not UTF-8 became U+FFFD
 * in what was stored. Such a body is refused whole (400 `request.invalid_json`) instead.
 */
function registerUtf8JsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, utf8JsonParser(app));
}

/**
 * The parser of `application/json` bodies (registerUtf8JsonParser), for a route that takes JSON
 * under another media type too (SCIM's `application/scim+json`): `app.addContentTypeParser(type,
 * { parseAs: 'buffer' }, utf8JsonParser(app))`.
 *
 * An empty body of a DELETE is no body, whatever Content-Type names: a DELETE's content has no
 * defined meaning (RFC 9110 §9.3.5), and clients such as identity providers send their JSON
 * Content-Type on every request, the DELETE of a SCIM User included. Fastify runs the parser of
 * that type all the same, and its JSON parser refuses an empty body (400).
 */
export function utf8JsonParser(
  app: FastifyInstance,
): (request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void) => void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  return (request, body, done) => {
    if (body.length === 0 && request.method === 'DELETE') {
      done(null, undefined);
      return;
    }
    const text = utf8Text(body as Buffer);
    if (text === undefined) {
      done(Object.assign(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), { notUtf8: true }), undefined);
      return;
    }
    parseJson(request, text, done);
  };
}

/**
 * `%00` anywhere in the raw query string. Decoders disagree on a value that also holds an
 * undecodable escape (`state=%00%ED%A0%80`): Fastify's keeps the whole value as literal text, the
 * WHATWG `URLSearchParams` some routes read decodes `%00` to U+0000 all the same. A `%00` is NUL
 * under any standard decoding, so it is refused whatever Fastify's parser made of it.
 */
function checkRawQuery(url: string): void {
  const start = url.indexOf('?');
  if (start < 0 || !/%00/i.test(url.slice(start))) return;
  const pair =
    url
      .slice(start + 1)
      .split('&')
      .find((part) => /%00/i.test(part)) ?? '';
  const name = pair.split('=')[0];
  throw refusal('querystring', /%00/i.test(name) ? JSON.stringify(name) : name, 'must not contain U+0000 (NUL)');
}

const isFormBody = (request: FastifyRequest) =>
  /^application\/x-www-form-urlencoded\s*(;|$)/i.test(String(request.headers['content-type'] ?? '').trim());

function checkFields(fields: unknown, location: 'querystring' | 'body'): void {
  if (typeof fields !== 'object' || fields === null || Buffer.isBuffer(fields)) return;
  for (const [name, sent] of Object.entries(fields)) {
    const nameProblem = textProblem(name);
    // JSON.stringify shows the NUL or lone surrogate in the name as a visible escape.
    if (nameProblem) throw refusal(location, JSON.stringify(name), `is a parameter name that ${nameProblem.why}`);
    for (const value of Array.isArray(sent) ? sent : [sent]) {
      const problem = typeof value === 'string' ? textProblem(value) : undefined;
      if (problem) throw refusal(location, name, problem.why);
    }
  }
}

/**
 * The refusal in the shape of Fastify's own validation errors (statusCode, validation,
 * validationContext), so the error handler maps it as it maps a schema failure: `request.invalid`
 * with the problem's path, which the OAuth token endpoint renders as RFC 6749 `invalid_request`
 * and the sign-in and launch pages as their 400 page.
 */
function refusal(location: 'querystring' | 'body', name: string, why: string): FastifyError {
  const error = new Error(`${location}/${name} ${why}`) as FastifyError;
  return Object.assign(error, {
    code: 'FST_ERR_VALIDATION',
    statusCode: 400,
    validationContext: location,
    validation: [{ keyword: 'text', instancePath: `/${name}`, schemaPath: '#', params: {}, message: why }],
  });
}
