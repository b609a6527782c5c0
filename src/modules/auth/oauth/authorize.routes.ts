import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppError } from '../../../platform/http/app-error.js';
import { type PageWording, requestProblemsOf } from '../../../platform/http/error-handler.js';
import { type AuthorizeService, SIGN_IN_LIFETIME_SECONDS, signInCookieName, type AuthorizeOutcome } from './authorize.service.js';
import { clientAddress } from '../../../platform/http/client-address.js';
import { demoCallbackPage, signInPage } from './sign-in.page.js';
import { errorPage, PAGE_HEADERS } from '../../../platform/http/html-page.js';
import { htmlPageResponse } from '../../../platform/http/common-schemas.js';

export interface AuthorizeRoutesOptions {
  authorize: AuthorizeService;
}

/** A sign-in form is a few hundred bytes. */
const BODY_LIMIT = 16 * 1024;

const AuthorizeQuery = Type.Object({
  response_type: Type.String({ examples: ['code'] }),
  client_id: Type.String({ description: 'The client id (`lbc_…`); it names the tenant.' }),
  redirect_uri: Type.String({ description: 'Exactly one of the redirect URIs registered for the client.' }),
  state: Type.Optional(Type.String({ description: 'Returned unchanged with the code or the error.' })),
  code_challenge: Type.Optional(Type.String({ description: 'PKCE (RFC 7636): BASE64URL(SHA-256(code_verifier)).' })),
  code_challenge_method: Type.Optional(Type.Literal('S256')),
});

const SignInFields = Type.Object({
  request_id: Type.String(),
  client_id: Type.String(),
  csrf_token: Type.String(),
  email: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  action: Type.Optional(Type.Union([Type.Literal('authorize'), Type.Literal('cancel')])),
  connection: Type.Optional(Type.String({ description: 'A "Sign in with …" button: the single sign-on connection to sign in through.' })),
});

/** One value of a form field; a repeated or non-text field counts as absent. */
function field(body: unknown, name: string): string | undefined {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The client's address as the sign-in throttle counts it (the rate limits count the same). */
const addressOf = (request: FastifyRequest) => clientAddress(request.ip, request.socket.remoteAddress);

/** The query exactly as sent, repeated parameters included (RFC 6749 §3.1 forbids them). */
const rawQuery = (request: FastifyRequest) => new URL(request.raw.url ?? '/', 'http://query.invalid').searchParams;

/**
 * The browser step: `GET /auth/oauth/authorize` shows the sign-in page, `POST` signs in and
 * redirects with the code (303, so the password is never re-sent); `/auth/demo/callback` is the
 * demo client's landing page. Every answer is an HTML page or a redirect, never JSON.
 */
export const authorizeRoutes: FastifyPluginAsyncTypebox<AuthorizeRoutesOptions> = async (app, { authorize }) => {
  await app.register(formbody, { bodyLimit: BODY_LIMIT });

  app.get(
    '/auth/oauth/authorize',
    {
      exposeHeadRoute: false,
      attachValidation: true,
      config: { errors: signInErrorPage },
      schema: {
        tags: ['oauth'],
        operationId: 'GET:auth.oauth.authorize',
        summary: 'Start the authorization code flow in the browser: the sign-in page',
        description:
          "Opened in the admin's browser. An unknown client or a redirect_uri that is not exactly a registered one gets an error page; " +
          'other errors go back to the redirect URI as `error` and `state` (RFC 6749 §4.1.2.1).',
        security: [],
        querystring: AuthorizeQuery,
        response: {
          200: htmlPageResponse('The sign-in page.'),
          302: { description: 'An error, back to the redirect URI.' },
          400: htmlPageResponse('An error page.'),
          429: htmlPageResponse('Too many requests from this address (Retry-After).'),
        },
      },
    },
    async (request, reply) => {
      const outcome = await authorize.start(rawQuery(request), request.headers.host, request.publicBaseUrl);
      // A new pending request: its cookie, for as long as the request lives. The form re-shown after a
      // failed attempt belongs to the same request, whose cookie the browser already holds.
      if (outcome.kind === 'sign-in') {
        if (outcome.evicted)
          request.log.warn(
            { tenant: outcome.client.tenant.name, evicted: outcome.evicted },
            'pending sign-ins over the cap: oldest dropped',
          );
        reply.setCookie(signInCookieName(outcome.requestId), outcome.csrfToken, { ...COOKIE, maxAge: SIGN_IN_LIFETIME_SECONDS });
      }
      return answer(reply, outcome);
    },
  );

  app.post(
    '/auth/oauth/authorize',
    {
      bodyLimit: BODY_LIMIT,
      attachValidation: true,
      config: { errors: signInErrorPage },
      schema: {
        tags: ['oauth'],
        operationId: 'POST:auth.oauth.authorize',
        summary: 'The sign-in form: sign in and authorise, or cancel',
        consumes: ['application/x-www-form-urlencoded'],
        security: [],
        body: SignInFields,
        response: {
          302: { description: 'To the identity provider of the connection chosen (single sign-on).' },
          303: { description: 'To the redirect URI, with `code` and `state`, or `error=access_denied` after Cancel.' },
          400: htmlPageResponse('The form again, naming what is missing.'),
          401: htmlPageResponse('The form again: wrong e-mail address or password.'),
          403: htmlPageResponse('The form is not the one served to this browser, has expired, or was used.'),
          429: htmlPageResponse('Too many failed attempts: sign-in is paused; or too many requests from this address (Retry-After).'),
        },
      },
    },
    async (request, reply) => {
      const requestId = field(request.body, 'request_id');
      const outcome = await authorize.submit({
        requestId,
        clientId: field(request.body, 'client_id'),
        csrfToken: field(request.body, 'csrf_token'),
        email: field(request.body, 'email'),
        password: field(request.body, 'password'),
        action: field(request.body, 'action'),
        connection: field(request.body, 'connection'),
        cookie: requestId ? request.cookies[signInCookieName(requestId)] : undefined,
        host: request.headers.host,
        ip: addressOf(request),
      });
      if (outcome.kind === 'redirect') {
        request.log.info({ outcome: new URL(outcome.location).searchParams.has('code') ? 'authorized' : 'cancelled' }, 'sign-in form');
      } else if (outcome.kind === 'sign-in' && (outcome.status === 401 || outcome.status === 429)) {
        // For the operators' alerting: failed and refused sign-ins, with the tenant (the request log has the address).
        request.log.warn(
          { tenant: outcome.client.tenant.name, status: outcome.status },
          outcome.status === 429 ? 'sign-in refused: locked' : 'sign-in failed',
        );
      } else if (outcome.kind === 'refuse') {
        request.log.info({ status: outcome.status }, outcome.message);
      } else if (outcome.kind === 'sign-on') {
        await authorize.adminSignOn.beginAdmin(request, reply, outcome.connection, outcome.pending);
        return reply;
      }
      return answer(reply, outcome);
    },
  );

  app.get(
    '/auth/demo/callback',
    {
      config: { errors: signInErrorPage },
      schema: {
        tags: ['oauth'],
        operationId: 'GET:auth.demo.callback',
        summary: "The demo client's redirect URI: shows the code and how to exchange it",
        security: [],
        response: {
          200: htmlPageResponse('The code and a curl line exchanging it.'),
          400: htmlPageResponse('No code: the error the authorization ended with.'),
        },
      },
    },
    async (request, reply) => {
      const query = rawQuery(request);
      const code = query.get('code') ?? undefined;
      const page = demoCallbackPage({
        origin: `${request.protocol}://${request.host}`,
        code,
        state: query.get('state') ?? undefined,
        error: query.get('error') ?? undefined,
        errorDescription: query.get('error_description') ?? undefined,
      });
      return reply
        .status(code ? 200 : 400)
        .headers(PAGE_HEADERS)
        .send(page);
    },
  );

  function answer(reply: FastifyReply, outcome: Exclude<AuthorizeOutcome, { kind: 'sign-on' }>) {
    switch (outcome.kind) {
      case 'refuse':
        return reply.status(outcome.status).headers(PAGE_HEADERS).send(errorPage(outcome.title, outcome.message));
      case 'redirect':
        if (outcome.ended) reply.clearCookie(signInCookieName(outcome.ended), COOKIE);
        // 303 after the form POST: the browser follows with a GET and never re-sends the password.
        return reply
          .header('Cache-Control', 'no-store')
          .header('Referrer-Policy', 'no-referrer')
          .redirect(outcome.location, reply.request.method === 'POST' ? 303 : 302);
      case 'sign-in':
        if (outcome.retryAfterSeconds) reply.header('Retry-After', String(outcome.retryAfterSeconds));
        return reply
          .status(outcome.status)
          .headers(PAGE_HEADERS)
          .send(
            signInPage({
              clientName: outcome.client.name,
              tenantName: outcome.client.tenant.name,
              requestId: outcome.requestId,
              clientId: outcome.client.clientId,
              csrfToken: outcome.csrfToken,
              email: outcome.email,
              error: outcome.error,
              connections: outcome.connections,
              console: outcome.client.console,
            }),
          );
    }
  }
};

/**
 * The page for an error of these routes, which error-handler.ts renders. The rate limits
 * (platform/http/rate-limits.ts) refuse before anything is parsed or stored: each GET stores a
 * pending request, each POST may hash a password. The database gone for a moment (a failover, a
 * restart) is worth a retry.
 */
function signInErrorPage(error: AppError): PageWording {
  if (error.code === 'request.rate_limited') {
    const wait = Number(error.headers?.['Retry-After']);
    return {
      title: 'Too many requests',
      message: `Too many sign-in requests from your network address. Wait ${wait} second${wait === 1 ? '' : 's'} and try again.`,
    };
  }
  if (error.status === 503) {
    return {
      title: 'Temporarily unavailable',
      message: 'The sign-in service cannot reach its database right now. Please try again in a moment.',
    };
  }
  const problems = requestProblemsOf(error);
  const message =
    error.status === 413
      ? 'The form is larger than this server accepts.'
      : error.status >= 500
        ? 'Something went wrong on our side.'
        : problems
          ? `The request could not be read: ${problems}.`
          : 'The request could not be read.';
  return { title: 'Something went wrong', message };
}

/**
 * `__Host-`: Secure, Path=/ and no Domain, so the cookie never reaches another tenant's sub-domain.
 * Browsers accept Secure cookies from http://localhost and loopback, so `npm start` works too.
 */
const COOKIE = { path: '/', secure: true, httpOnly: true, sameSite: 'strict' } as const;
