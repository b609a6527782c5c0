import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError, apiErrorResponse } from '../../../platform/http/common-schemas.js';
import { type TenancyService, tenantNameOfHost } from '../../tenancy/index.js';
import { checkCsrf } from './console-csrf.js';
import {
  ConsoleSessions,
  CSRF_HEADER,
  PENDING_COOKIE_PREFIX,
  PENDING_LIFETIME_SECONDS,
  SESSION_COOKIE,
  type SignInFailure,
} from './console-session.service.js';

export interface ConsoleSessionRoutesOptions {
  sessions: ConsoleSessions;
  tenancy: TenancyService;
  baseDomain: string;
}

/** Browsers take Secure cookies from http://localhost and loopback too, so `npm start` signs in as well. */
const SESSION_COOKIE_OPTIONS = { path: '/', secure: true, httpOnly: true, sameSite: 'strict' } as const;
/**
 * Lax: a sign-in through single sign-on comes back through the identity provider's site, and a
 * Strict cookie is not sent on a navigation that began there.
 */
const PENDING_COOKIE_OPTIONS = { path: '/', secure: true, httpOnly: true, sameSite: 'lax' } as const;

const SignInQuery = Type.Object({
  tenant: Type.Optional(
    Type.String({ maxLength: 200, description: 'The organisation; a `{tenant}.{base domain}` host names it instead.' }),
  ),
  return: Type.Optional(
    Type.String({ maxLength: 2100, description: 'The console page to come back to, below `/console` (`/people?q=…`); else its home.' }),
  ),
});

const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 200 })),
    state: Type.Optional(Type.String({ maxLength: 200 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);

const SignedIn = Type.Object(
  {
    signedIn: Type.Literal(true),
    tenant: Type.Object({
      id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      address: Type.String({
        description:
          "The organisation's own address, `{scheme}://{tenant}.{base domain}[:{port}]/` (the path of a public address kept): " +
          'where a link handed to a browser (a launch link) names the organisation without a header.',
      }),
    }),
    admin: Type.Object({
      id: Type.String({ format: 'uuid' }),
      email: Type.String(),
      scope: Type.Optional(
        Type.Object(
          { organisationId: Type.String() },
          { description: 'The organisation subtree the admin is limited to; absent: the whole tenant.' },
        ),
      ),
    }),
    csrfToken: Type.String({ description: `Sent as \`${CSRF_HEADER}\` with every write the console makes with the session cookie.` }),
  },
  { description: 'Who the console is signed in as.' },
);

const Session = Type.Union([SignedIn, Type.Object({ signedIn: Type.Literal(false) }, { description: 'No session, or it ended.' })]);

const REDIRECT = { description: 'On to the page named by `Location`.' };
const INVALID_HOST = apiErrorResponse('A Host under the base domain that is not one label deep (`tenant.invalid_host`).');

/** The console's own address below the public one: `/console`, or `/learning/console` behind a public path. */
function consolePath(request: FastifyRequest): string {
  let below = '';
  try {
    below = new URL(request.publicBaseUrl).pathname.replace(/\/$/, '');
  } catch {
    // A Host no URL can hold (`?.localhost`): no public path either, and the console is at /console.
  }
  return `${below}/console`;
}

/**
 * The organisation's own address: the address the request came to (LEARNBASE_PUBLIC_URL's when set),
 * its host the tenant's label under the base domain, scheme, port and path kept.
 */
export function tenantAddress(publicBaseUrl: string, tenant: string, baseDomain: string): string {
  let url: URL;
  try {
    url = new URL(publicBaseUrl);
  } catch {
    // A Host no URL can hold: the organisation's address on plain HTTP, as the base domain serves it.
    url = new URL(`http://${baseDomain}/`);
  }
  url.hostname = `${tenant}.${baseDomain}`;
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return url.href;
}

const seeOther = (reply: FastifyReply, location: string) =>
  reply.status(303).header('Location', location).header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer').send();

/**
 * The console's backend-for-frontend (docs/console.md, "Signing in"): `GET /console/auth/sign-in`
 * sends the browser to the OAuth sign-in page as the tenant's console client, `GET
 * /console/auth/callback` makes the session of the code it brings back, `GET /console/auth/session`
 * says who is signed in (with the CSRF token), and `POST /console/auth/sign-out` ends it. These are
 * public: the session cookie is their credential, and the API's own routes take it in the auth hook.
 */
export const consoleSessionRoutes: FastifyPluginAsyncTypebox<ConsoleSessionRoutesOptions> = async (
  app,
  { sessions, tenancy, baseDomain },
) => {
  const tenantOfHost = (request: FastifyRequest) => tenantNameOfHost(request.headers.host, baseDomain);

  /** Back to the console's first page, which names the failure in words (`?error=`) and offers to sign in again. */
  function toStartPage(request: FastifyRequest, reply: FastifyReply, tenant: string | undefined, failure?: SignInFailure) {
    const query = new URLSearchParams();
    if (tenant && !tenantOfHost(request)) query.set('tenant', tenant);
    if (failure) query.set('error', failure);
    return seeOther(reply, `${consolePath(request)}/${query.size > 0 ? `?${query}` : ''}`);
  }

  app.get(
    '/console/auth/sign-in',
    {
      config: { public: true },
      // Each GET starts a sign-in: a HEAD (a link checker) must not.
      exposeHeadRoute: false,
      schema: {
        tags: ['console'],
        operationId: 'GET:console.auth.sign_in',
        summary: "The console's sign-in: to the OAuth sign-in page as the tenant's console client",
        description:
          'Sets the pending sign-in cookie (its PKCE verifier and where to come back to) and answers 303 to `/auth/oauth/authorize`. ' +
          'No tenant named, or an unknown one: 303 back to the console, which asks (`?error=unknown_tenant`).',
        security: [],
        querystring: SignInQuery,
        response: { 303: REDIRECT, 400: INVALID_HOST },
      },
    },
    async (request, reply) => {
      const fromHost = tenantOfHost(request);
      const fromQuery = request.query.tenant?.trim().toLowerCase() || undefined;
      const name = fromHost ?? fromQuery;
      if (!name) return toStartPage(request, reply, undefined);
      const started = await sessions.begin(name, request.query.return ?? '/', request.publicBaseUrl);
      if (!started) return toStartPage(request, reply, name, 'unknown_tenant');
      reply.setCookie(started.cookie.name, started.cookie.value, { ...PENDING_COOKIE_OPTIONS, maxAge: PENDING_LIFETIME_SECONDS });
      return seeOther(reply, started.location);
    },
  );

  app.get(
    '/console/auth/callback',
    {
      config: { public: true },
      exposeHeadRoute: false,
      schema: {
        tags: ['console'],
        operationId: 'GET:console.auth.callback',
        summary: "Where the OAuth sign-in page sends the console's code: the session is made, and on to the console",
        description:
          'The code is exchanged by the server (the pending sign-in cookie holds its PKCE verifier); the session cookie is set ' +
          '(httpOnly, SameSite=Strict) and the browser goes on to the page the sign-in began on. A cancelled, expired or failed ' +
          "sign-in goes back to the console's first page with `?error=`.",
        security: [],
        querystring: CallbackQuery,
        response: { 303: REDIRECT, 400: INVALID_HOST },
      },
    },
    async (request, reply) => {
      const { state, code, error } = request.query;
      const cookieName = ConsoleSessions.isState(state) ? `${PENDING_COOKIE_PREFIX}${state}` : undefined;
      const pending = ConsoleSessions.pendingOf(cookieName && request.cookies[cookieName]);
      if (!cookieName || !pending) return toStartPage(request, reply, tenantOfHost(request), 'sign_in_expired');
      reply.clearCookie(cookieName, PENDING_COOKIE_OPTIONS);
      if (error !== undefined || !code) {
        return toStartPage(
          request,
          reply,
          await tenantNameOf(pending.tenantId),
          error === 'access_denied' ? 'access_denied' : 'sign_in_failed',
        );
      }
      const finished = await sessions.finish(pending, code, request.publicBaseUrl);
      if ('failure' in finished) return toStartPage(request, reply, finished.tenant?.name, finished.failure);
      reply.setCookie(SESSION_COOKIE, finished.secret, { ...SESSION_COOKIE_OPTIONS, maxAge: sessions.lifetimeSeconds });
      return seeOther(reply, `${consolePath(request)}${pending.returnTo}`);
    },
  );

  /** The tenant's name for the start page, when it still exists. */
  async function tenantNameOf(tenantId: string): Promise<string | undefined> {
    return (await tenancy.findById(tenantId))?.name;
  }

  app.get(
    '/console/auth/session',
    {
      config: { public: true },
      schema: {
        tags: ['console'],
        operationId: 'GET:console.auth.session',
        summary: 'Who the console is signed in as, with the CSRF token its writes carry',
        description:
          'Read with the session cookie. `{"signedIn": false}` when there is none, or it ended (signed out, expired, revoked): ' +
          'a page asks this before anything else, and an answer of 200 either way keeps its browser console clean.',
        security: [],
        response: { 200: Session, 400: INVALID_HOST },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const named = tenantOfHost(request);
      const secret = request.cookies[SESSION_COOKIE];
      const session = secret ? await sessions.describe(secret) : undefined;
      // A tenant's own address shows its own session only (a cookie is the host's, so this is belt and braces).
      if (!session || (named !== undefined && session.tenant.name !== named)) {
        if (secret) reply.clearCookie(SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
        return { signedIn: false as const };
      }
      return {
        signedIn: true as const,
        ...session,
        tenant: { ...session.tenant, address: tenantAddress(request.publicBaseUrl, session.tenant.name, baseDomain) },
      };
    },
  );

  app.post(
    '/console/auth/sign-out',
    {
      config: { public: true },
      schema: {
        tags: ['console'],
        operationId: 'POST:console.auth.sign_out',
        summary: 'Sign the console out: the session ends and every token of its sign-in is revoked, in every process',
        description: `Carries the session's CSRF token as \`${CSRF_HEADER}\` (403 \`auth.csrf\` without it). Signed out already: 204 all the same.`,
        security: [],
        response: { 204: Type.Null({ description: 'Signed out; the cookie is cleared.' }), 403: ApiError },
      },
    },
    async (request, reply) => {
      const secret = request.cookies[SESSION_COOKIE];
      if (secret) {
        checkCsrf(request, secret);
        await sessions.signOut(secret);
        reply.clearCookie(SESSION_COOKIE, SESSION_COOKIE_OPTIONS);
      }
      return reply.status(204).header('Cache-Control', 'no-store').send(null);
    },
  );
};
