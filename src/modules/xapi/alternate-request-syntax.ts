import type { IncomingHttpHeaders } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../../platform/http/app-error.js';

type XapiVersion = '1.0.3' | '2.0.0';

export interface AlternateRequestSyntaxOptions {
  /** The version of a request that names none (the server's default). */
  defaultVersion: XapiVersion;
  /** Reads an X-Experience-API-Version value as the version it names, or undefined when unsupported. */
  versionOf(sent: string): XapiVersion | undefined;
}

/** The methods a client may tunnel (xAPI 1.0.3 Part 3 §1.3: "method=<HTTP method>"). */
const METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE']);

/**
 * The form fields read as headers (1.0.3 Part 3 §1.3.s3.b7), by their lower-case name. The
 * spec lists the first six; X-SVC-Tenant is this server's own, accepted in the form for the
 * same reason: any custom header would make a browser send the CORS preflight the syntax avoids.
 */
const HEADER_FIELDS = new Set([
  'authorization',
  'x-experience-api-version',
  'content-type',
  'content-length',
  'if-match',
  'if-none-match',
  'x-svc-tenant',
]);

/**
 * Outer headers the inner request does not get: those of the outer body and connection, and
 * cookies, which no xAPI resource reads (forwarding them would let another site's form act with
 * a browser's cookies on whatever route it tunnels to).
 */
const NOT_FORWARDED = new Set([
  'cookie',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'expect',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

/** Inner answer headers the outer reply sets itself. */
const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/** What Node's HTTP parser accepts in a header value: a form field read as a header must fit it. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;

const isXapiPath = (path: string) => path === '/xapi' || path.startsWith('/xapi/');

/**
 * The xAPI 1.0.3 alternate request syntax (Part 3 §1.3): `POST /xapi/<resource>?method=PUT`
 * with an `application/x-www-form-urlencoded` body whose fields carry the headers, the query
 * parameters and, in `content`, the body of the request meant. Browsers send such a POST
 * without a CORS preflight; this plugin rebuilds the request meant and hands it to the same
 * app (`app.inject`), so authentication, tenancy, the version rules, validation and body
 * limits are those of the direct request. The answer is the inner request's, as it is.
 *
 * An `onRequest` hook on the root, registered before the version check and authentication:
 * the outer request may carry neither (both can come in the form), and it is answered here
 * before any route parses its body, so no route needs to accept a form. xAPI 2.0.0 removed the
 * syntax: a request speaking 2.0.0 (the header or the form says so, or neither names a version
 * and the server's default is 2.0.0) with `method` on its URL is refused with 400.
 */
export const alternateRequestSyntax = fp<AlternateRequestSyntaxOptions>(
  async (app, options) => {
    // Percent-encoding triples a byte at most; the inner route applies its own limit to `content`.
    const formLimit = 3 * app.initialConfig.bodyLimit! + 64 * 1024;

    app.addHook('onRequest', async (request, reply) => {
      // Every request passes here: the query Fastify parsed already tells the few that use the syntax.
      if (!Object.hasOwn((request.query ?? {}) as object, 'method')) return;
      const query = queryOf(request.url);
      if (query === undefined || !query.has('method') || request.method === 'OPTIONS') return;
      const path = request.url.slice(0, request.url.indexOf('?'));
      if (!isXapiPath(path)) return;

      const headerVersion = single(request.headers['x-experience-api-version']);
      const refuse = (error: AppError, version: XapiVersion = '1.0.3'): never => {
        reply.header('X-Experience-API-Version', version);
        throw error;
      };
      if (headerVersion !== undefined && options.versionOf(headerVersion.trim()) === '2.0.0') refuse(removed(), '2.0.0');
      if (request.method !== 'POST') refuse(invalid(`a request with method=… on its URL must be sent as POST, not ${request.method}`));
      const names = [...query.keys()];
      if (names.length !== 1 || query.getAll('method').length !== 1) {
        refuse(invalid('method must be the only query parameter on the URL; send the others as form fields'));
      }
      // inject resolves dot segments (`/xapi/%2e%2e/api/me` is `/api/me`): the syntax reaches /xapi/ only.
      if (normalisedPath(path) !== path) refuse(invalid('the path must name an xAPI resource without dot segments'));
      const method = query.get('method')!;
      if (!METHODS.has(method)) refuse(invalid(`method must be GET, PUT, POST or DELETE, not "${method}"`));
      if (!FORM_TYPE.test(String(request.headers['content-type'] ?? '').trim())) {
        refuse(invalid('the body must be application/x-www-form-urlencoded'));
      }

      const form = parseForm(await readBody(request, formLimit).catch((error: AppError) => refuse(error)), refuse);
      const headers = innerHeaders(request, form.headers);
      const sentVersion = single(headers['x-experience-api-version']);
      const version = sentVersion === undefined ? options.defaultVersion : options.versionOf(sentVersion.trim());
      if (version === '2.0.0') refuse(removed(), '2.0.0');

      const needsContent = method === 'PUT' || method === 'POST';
      if (needsContent && form.content === undefined)
        refuse(invalid(`a ${method} carries its body in the form field "content", and there is none`));
      if (!needsContent && form.content !== undefined) refuse(invalid(`a ${method} has no body: leave out the form field "content"`));
      const payload = form.content === undefined ? undefined : Buffer.from(form.content, 'utf8');
      if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';

      const inner = await app.inject({
        method: method as 'GET',
        url: form.query.length === 0 ? path : `${path}?${form.query.join('&')}`,
        headers,
        ...(payload === undefined ? {} : { payload }),
        remoteAddress: request.raw.socket?.remoteAddress ?? request.ip,
      });
      return answerWith(reply, inner.statusCode, inner.headers, inner.rawPayload);
    });
  },
  { name: 'xapi-alternate-request-syntax' },
);

function answerWith(reply: FastifyReply, status: number, headers: Record<string, unknown>, payload: Buffer): FastifyReply {
  reply.code(status);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value);
  }
  return reply.send(payload);
}

const invalid = (why: string) =>
  badRequest('xapi.alternate_syntax_invalid', `Invalid alternate request syntax (xAPI 1.0.3 Part 3 §1.3): ${why}.`);

const removed = () =>
  badRequest(
    'xapi.alternate_syntax_removed',
    'The alternate request syntax (POST with method=… on the URL) belongs to xAPI 1.0.3 and was removed in 2.0.0: ' +
      'send the request itself, or name X-Experience-API-Version 1.0.3.',
  );

const tooLarge = () => new AppError('request.too_large', 413, 'The request body is larger than this server accepts.');

/** The URL's query, or undefined when it has none. */
function queryOf(url: string): URLSearchParams | undefined {
  const start = url.indexOf('?');
  return start < 0 ? undefined : new URLSearchParams(url.slice(start + 1));
}

/** The path as a URL parser resolves it (dot segments, `\\`, percent-encoding), as inject will. */
function normalisedPath(path: string): string | undefined {
  try {
    return new URL(path, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The raw body, refused with 413 past `limit` bytes (before reading any, when Content-Length says so). */
function readBody(request: FastifyRequest, limit: number): Promise<Buffer> {
  const raw = request.raw;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      raw.removeListener('data', onData);
      raw.removeListener('end', onEnd);
      raw.removeListener('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stop();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    raw.on('data', onData);
    raw.on('end', onEnd);
    raw.on('error', onError);
  });
}

interface AlternateForm {
  /** Form fields read as headers, by lower-case name. */
  headers: Record<string, string>;
  /** The other fields, re-encoded as `name=value` pairs for the inner URL, in order. */
  query: string[];
  content?: string;
}

/**
 * Splits the form into headers, query parameters and `content`. Stricter than a browser's form
 * decoder: bytes that are not UTF-8, or an escape that does not decode to UTF-8, are refused
 * rather than replaced with U+FFFD, so `content` reaches the route as the client wrote it.
 */
function parseForm(body: Buffer, refuse: (error: AppError) => never): AlternateForm {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return refuse(invalid('the form is not UTF-8'));
  }
  const form: AlternateForm = { headers: {}, query: [] };
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = decodeField(at < 0 ? pair : pair.slice(0, at), refuse);
    const value = at < 0 ? '' : decodeField(pair.slice(at + 1), refuse);
    if (name === '') refuse(invalid('a form field has no name'));
    const lower = name.toLowerCase();
    if (lower === 'method') refuse(invalid('method goes on the URL, not in the form'));
    if (name === 'content') {
      if (form.content !== undefined) refuse(invalid('the form field "content" is repeated'));
      form.content = value;
    } else if (HEADER_FIELDS.has(lower)) {
      if (lower in form.headers) refuse(invalid(`the form field "${name}" is repeated`));
      if (!HEADER_VALUE.test(value)) refuse(invalid(`the form field "${name}" holds characters a header cannot carry`));
      form.headers[lower] = value;
    } else {
      form.query.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    }
  }
  return form;
}

function decodeField(text: string, refuse: (error: AppError) => never): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return refuse(invalid(`the form field "${text.slice(0, 40)}" is not percent-encoded UTF-8`));
  }
}

/**
 * The inner request's headers: the outer ones (Host, forwarding headers, Accept-Language,
 * Origin…) but those of the outer body and cookies, then the form's over them. X-Request-Id
 * carries the outer id, so both requests log under one id. Content-Length is the `content`'s
 * own: inject counts it, whatever the form said.
 */
function innerHeaders(request: FastifyRequest, fromForm: Record<string, string>): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = value;
  }
  for (const [name, value] of Object.entries(fromForm)) {
    if (name !== 'content-length') headers[name] = value;
  }
  headers['x-request-id'] = request.id;
  return headers;
}
