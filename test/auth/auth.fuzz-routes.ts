import fc from 'fast-check';
import { hostileHeader, hostileJson, hostileNumber, hostileText, percentEncode, toJson, uuidish } from '../fuzz/hostile-values.js';
import {
  absent,
  adminHeaders,
  apiHeaders,
  base64,
  body,
  field,
  type FuzzContext,
  type FuzzRequest,
  header,
  hostHeader,
  JSON_TYPES,
  oauthBody,
  param,
  type Part,
  plainRoute,
  publicHeaders,
  route,
  type RouteFuzzer,
} from '../fuzz/requests.js';
import { hostileAgent, MBOXES, validAgent } from '../fuzz/xapi-values.js';
import { credentialUsername, onePersonQuery } from '../fuzz/api-values.js';

/**
 * The route fuzz test's generators (test/fuzz/routes.fuzz.test.ts) of the auth module's routes:
 * OAuth (token, revocation, the sign-in page, its metadata), learner credentials, API keys and
 * OAuth clients, the tenant's admins, and the console's sign-in.
 */

/** OAuth client authentication: none (the body carries it), HTTP Basic (form-encoded id and secret), or garbage. */
function clientAuthorization(ctx: FuzzContext): Part<string | undefined> {
  const basic = (id: string, secret: string) => `Basic ${base64(`${percentEncode(id)}:${percentEncode(secret)}`)}`;
  return header(
    fc.constantFrom(undefined, basic(ctx.oauth.clientId, ctx.oauth.clientSecret)),
    fc.oneof(
      hostileText.map((text) => basic(ctx.oauth.clientId, text)),
      hostileText.map((text) => basic(text, ctx.oauth.clientSecret)),
      hostileText.map((text) => `Basic ${base64(`${ctx.oauth.clientId}:${text}`)}`),
      fc.constantFrom(
        `Basic ${base64(`${ctx.oauth.clientId}:%`)}`,
        `Basic ${base64('%E0%A4%A:x')}`,
        'Basic',
        'Bearer x',
        ctx.tenant.authorization,
      ),
      hostileHeader,
    ),
    2,
  );
}

function tokenRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const grants = fc.oneof(
    fc.constant({
      grant_type: 'authorization_code',
      code: ctx.oauth.code,
      redirect_uri: ctx.oauth.redirectUri,
      code_verifier: ctx.oauth.codeVerifier,
    }),
    fc.constant({ grant_type: 'refresh_token', refresh_token: ctx.oauth.refreshToken }),
  );
  // Which grant is fixed per request; its fields and the client's are what varies.
  return grants.chain((grant) =>
    route({
      method: 'POST',
      path: '/auth/oauth/token',
      headers: { authorization: clientAuthorization(ctx), host: hostHeader(ctx) },
      body: oauthBody({
        ...Object.fromEntries(
          Object.entries(grant).map(([name, value]) => [
            name,
            field(
              fc.constant(value),
              name === 'grant_type'
                ? fc.oneof(fc.constantFrom('client_credentials', 'password', '', 'AUTHORIZATION_CODE'), hostileText)
                : fc.oneof(hostileText, fc.constant('a'.repeat(5_000))),
            ),
          ]),
        ),
        client_id: field(
          fc.constant(ctx.oauth.clientId),
          fc.oneof(hostileText, fc.constant(`lbc_${'0'.repeat(32)}_${'0'.repeat(16)}`), fc.constant(undefined)),
        ),
        client_secret: field(fc.constant(ctx.oauth.clientSecret), fc.oneof(hostileText, fc.constant(undefined))),
      }),
    }),
  );
}

function revokeRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return route({
    method: 'POST',
    path: '/auth/oauth/revoke',
    headers: { authorization: clientAuthorization(ctx), host: hostHeader(ctx) },
    body: oauthBody({
      // Not the tokens themselves: revoking them would end the authorization the token route refreshes.
      token: field(fc.constantFrom(`${ctx.oauth.refreshToken}x`, `${ctx.oauth.accessToken}x`, 'unknown-token')),
      token_type_hint: field(
        fc.constantFrom(undefined, 'access_token', 'refresh_token'),
        fc.oneof(fc.constantFrom('id_token', ''), hostileText),
      ),
      client_id: field(fc.constant(ctx.oauth.clientId), fc.oneof(hostileText, fc.constant(undefined))),
      client_secret: field(fc.constant(ctx.oauth.clientSecret), fc.oneof(hostileText, fc.constant(undefined))),
    }),
  });
}

function authorizeGetRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return route({
    method: 'GET',
    path: '/auth/oauth/authorize',
    anyAddress: true,
    query: {
      response_type: param('response_type', fc.constant('code'), {
        required: true,
        hostile: fc.constantFrom('token', 'code id_token', ''),
      }),
      client_id: param('client_id', fc.constant(ctx.oauth.clientId), {
        required: true,
        hostile: fc.constant(`lbc_${'0'.repeat(32)}_${'0'.repeat(16)}`),
      }),
      redirect_uri: param('redirect_uri', fc.constant(ctx.oauth.redirectUri), {
        required: true,
        hostile: fc.constantFrom(
          `${ctx.oauth.redirectUri}?x=1`,
          `${ctx.oauth.redirectUri}#f`,
          'http://evil.example/',
          'javascript:alert(1)',
          '//evil.example',
          'http://[::1',
          'http://a b/',
        ),
      }),
      state: param('state', fc.string({ maxLength: 20 }), { hostile: fc.constant('s'.repeat(3_000)) }),
      code_challenge: param('code_challenge', fc.constant('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), {
        hostile: fc.string({ maxLength: 50 }),
      }),
      code_challenge_method: param('code_challenge_method', fc.constant('S256'), { hostile: fc.constantFrom('plain', 's256', '') }),
      scope: param('scope', fc.constantFrom('openid'), { hostile: hostileText, weight: 1 }),
    },
    headers: publicHeaders(ctx),
  });
}

function authorizePostRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const { form } = ctx.oauth;
  return route({
    method: 'POST',
    path: '/auth/oauth/authorize',
    anyAddress: true,
    headers: {
      ...publicHeaders(ctx),
      cookie: header(
        fc.constant(`${form.cookieName}=${form.cookieValue}`),
        fc.oneof(
          absent,
          fc.tuple(fc.uuid(), fc.base64String({ maxLength: 44 })).map(([id, value]) => `__Host-lb-signin-${id}=${value}`),
          hostileHeader.map((value) => `${form.cookieName}=${value}`),
          hostileHeader,
          fc.constantFrom('=', ';;', '__Host-lb-signin-=x', 'a=%', 'a="b', `${form.cookieName}=${form.cookieValue}; ${form.cookieName}=x`),
        ),
        2,
      ),
    },
    body: oauthBody({
      request_id: field(fc.constant(form.requestId), fc.oneof(fc.uuid(), hostileText)),
      client_id: field(fc.constant(ctx.oauth.clientId)),
      csrf_token: field(fc.constant(form.csrfToken), fc.oneof(fc.base64String({ minLength: 4, maxLength: 44 }), hostileText)),
      email: field(fc.constant(ctx.oauth.adminEmail), fc.oneof(fc.emailAddress(), hostileText, fc.constant(undefined))),
      // Never the right password: a sign-in would end the pending request every other run needs.
      password: field(
        fc.constantFrom(`${ctx.oauth.adminPassword}x`, 'wrong password'),
        fc.oneof(hostileText, fc.constant('p'.repeat(10_000)), fc.constant(undefined)),
      ),
      action: field(fc.constant('authorize'), fc.constantFrom('other', '', undefined)),
      connection: field(fc.constant(undefined), fc.oneof(fc.constantFrom('corp', ''), hostileText)),
    }),
  });
}

function demoCallbackRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const text = fc.oneof(fc.string({ maxLength: 20 }), fc.constant('<script>alert(1)</script>'));
  return route({
    method: 'GET',
    path: '/auth/demo/callback',
    query: {
      code: param('code', text),
      state: param('state', text),
      error: param('error', fc.constantFrom('access_denied', 'invalid_request')),
      error_description: param('error_description', text),
    },
    headers: publicHeaders(ctx),
  });
}

/** Learner credentials (issue 14): GET, POST and DELETE /api/auth/basic. */
const credentialBody = body(
  fc
    .record({ username: credentialUsername, password: fc.string({ minLength: 8, maxLength: 40 }), actor: validAgent })
    .map(({ username, password, actor }) => toJson({ username, password, data: { actor } })),
  JSON_TYPES,
  fc.oneof(
    hostileJson.map(toJson),
    fc
      .record(
        {
          username: fc.oneof(hostileText, hostileJson),
          password: fc.oneof(hostileText, hostileJson),
          data: fc.oneof(
            hostileJson,
            hostileAgent.map((actor) => ({ actor })),
          ),
        },
        { requiredKeys: [] },
      )
      .map(toJson),
    fc
      .record({
        username: credentialUsername,
        password: fc.string({ minLength: 1001, maxLength: 1100 }),
        data: fc.constant({ actor: { mbox: MBOXES[0] } }),
      })
      .map(toJson),
  ),
);
const CREDENTIAL_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/auth/basic': (ctx) =>
    route({
      method: 'GET',
      path: '/api/auth/basic',
      query: {
        ...onePersonQuery(ctx, 'may be named'),
        state: param('state', fc.constant('active'), { hostile: fc.constantFrom('revoked', 'expired', 'ACTIVE', '', 'all') }),
        limit: param('limit', fc.integer({ min: 1, max: 1000 }).map(String), {
          hostile: fc.constantFrom('0', '-1', '1001', '1e2', 'Infinity', '99999999999999999999'),
        }),
      },
      headers: apiHeaders(ctx, false),
    }),
  'POST /api/auth/basic': (ctx) =>
    route({
      method: 'POST',
      path: '/api/auth/basic',
      headers: { ...apiHeaders(ctx, false), 'svc-account-source': header(fc.constantFrom(undefined, 'hr-sync'), hostileHeader) },
      body: credentialBody,
    }),
  'DELETE /api/auth/basic/:username': (ctx) =>
    route({
      method: 'DELETE',
      path: fc
        .oneof({ weight: 4, arbitrary: credentialUsername }, { weight: 1, arbitrary: hostileText })
        .map((username) => `/api/auth/basic/${percentEncode(username)}`),
      headers: { ...apiHeaders(ctx, false), 'svc-account-source': header(fc.constantFrom(undefined, 'hr-sync'), hostileHeader) },
    }),
};

/**
 * Lifecycle over HTTP (issue 17, item 2): API keys and OAuth clients, for the tenant's admins. The
 * valid credential is mostly the admin's Bearer token (adminHeaders; an API key is refused, 403).
 * The keys and client ids addressed are never the context's own: revoking or deleting those would
 * end the credentials every other route's requests are made with.
 */
const tenantHexOf = (ctx: FuzzContext) => ctx.tenant.key.split('_')[1] ?? '0'.repeat(32);
const randomHex16 = fc.stringMatching(/^[0-9a-f]{16}$/);

const unknownOwnId = (ctx: FuzzContext, prefix: 'lb' | 'lbc') => randomHex16.map((random) => `${prefix}_${tenantHexOf(ctx)}_${random}`);
const foreignId = (prefix: 'lb' | 'lbc') =>
  fc.constantFrom(`${prefix}_${'0'.repeat(32)}_${'0'.repeat(16)}`, `${prefix}_${'f'.repeat(32)}_${'1'.repeat(16)}`);

function lifecyclePath(ctx: FuzzContext, prefix: 'lb' | 'lbc', path: (id: string) => string): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 3, arbitrary: unknownOwnId(ctx, prefix) },
      { weight: 1, arbitrary: foreignId(prefix) },
      { weight: 2, arbitrary: hostileText },
    )
    .map((id) => path(percentEncode(id)));
}

const redirectUri = fc.constantFrom(
  'https://app.example.com/callback',
  'http://127.0.0.1:9/callback',
  'http://localhost:3000/cb',
  'https://x.example/cb?a=1',
);
const hostileRedirectUri = fc.oneof(
  hostileText,
  fc.constantFrom(
    'http://insecure.example/cb',
    'relative/path',
    'https://x.example/cb#frag',
    'javascript:alert(1)',
    'data:text/html,x',
    '//no-scheme',
    'https://',
  ),
  hostileText.map((text) => `https://example.com/${text}`),
);
const clientBody = body(
  fc
    .record(
      { redirectUris: fc.array(redirectUri, { minLength: 1, maxLength: 3 }), name: fc.constantFrom(undefined, 'Dashboard', '') },
      { requiredKeys: ['redirectUris'] },
    )
    .map(toJson),
  JSON_TYPES,
  fc.oneof(
    hostileJson.map(toJson),
    fc
      .record(
        {
          redirectUris: fc.oneof(hostileJson, fc.array(fc.oneof(redirectUri, hostileRedirectUri), { maxLength: 25 })),
          name: fc.oneof(hostileText, hostileJson),
        },
        { requiredKeys: [] },
      )
      .map(toJson),
  ),
);

const LIFECYCLE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/api-keys': plainRoute('GET', '/api/api-keys', adminHeaders),
  'POST /api/api-keys': plainRoute('POST', '/api/api-keys', adminHeaders),
  'DELETE /api/api-keys/:key': (ctx) =>
    route({ method: 'DELETE', path: lifecyclePath(ctx, 'lb', (key) => `/api/api-keys/${key}`), headers: adminHeaders(ctx) }),
  'GET /api/oauth-clients': plainRoute('GET', '/api/oauth-clients', adminHeaders),
  'POST /api/oauth-clients': (ctx) => route({ method: 'POST', path: '/api/oauth-clients', headers: adminHeaders(ctx), body: clientBody }),
  'DELETE /api/oauth-clients/:id': (ctx) =>
    route({ method: 'DELETE', path: lifecyclePath(ctx, 'lbc', (id) => `/api/oauth-clients/${id}`), headers: adminHeaders(ctx) }),
  'POST /api/oauth-clients/:id/secret': (ctx) =>
    route({ method: 'POST', path: lifecyclePath(ctx, 'lbc', (id) => `/api/oauth-clients/${id}/secret`), headers: adminHeaders(ctx) }),
};

/**
 * The tenant's admins over HTTP (issue 39). The ids addressed are random (never the context's own
 * admin, whose token every admin route's requests carry; that one is refused 409 anyway), valid-ish
 * or hostile; the bodies create admins of the whole tenant or of an entry the tenant may lack.
 */
const adminScope = fc.constantFrom<string | null | undefined>(undefined, null, 'P1', 'NOPE');
const hostileAdminFields = fc.oneof(hostileText, hostileJson, hostileNumber);
const adminBody = body(
  fc
    .record(
      { email: fc.emailAddress(), password: fc.string({ minLength: 12, maxLength: 40 }), scope: adminScope },
      { requiredKeys: ['email', 'password'] },
    )
    .map(toJson),
  JSON_TYPES,
  fc.oneof(
    hostileJson.map(toJson),
    fc
      .record(
        { email: hostileAdminFields, password: hostileAdminFields, scope: hostileAdminFields, role: fc.constant('owner') },
        { requiredKeys: [] },
      )
      .map(toJson),
  ),
);
const adminChangeBody = body(
  fc.record({ scope: adminScope.filter((scope) => scope !== undefined) }).map(toJson),
  JSON_TYPES,
  fc.oneof(
    hostileJson.map(toJson),
    fc.record({ scope: hostileAdminFields, email: fc.constant('x@example.com') }, { requiredKeys: [] }).map(toJson),
  ),
);
const adminPath = fc
  .oneof({ weight: 3, arbitrary: uuidish }, { weight: 1, arbitrary: hostileText })
  .map((id) => `/api/admins/${percentEncode(id)}`);

const ADMIN_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/admins': plainRoute('GET', '/api/admins', adminHeaders),
  'POST /api/admins': (ctx) => route({ method: 'POST', path: '/api/admins', headers: adminHeaders(ctx), body: adminBody }),
  'PATCH /api/admins/:id': (ctx) => route({ method: 'PATCH', path: adminPath, headers: adminHeaders(ctx), body: adminChangeBody }),
  'DELETE /api/admins/:id': (ctx) => route({ method: 'DELETE', path: adminPath, headers: adminHeaders(ctx) }),
};

/**
 * The console's sign-in routes (docs/console.md, "Signing in"): tenants named and not, return paths
 * that try to leave the console, callbacks with and without their pending cookie, made-up and
 * hostile session cookies and CSRF tokens. Every one answers a redirect, a JSON body or a 4xx.
 */
const consoleState = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
  minLength: 22,
  maxLength: 22,
});
const consoleSessionCookie = (ctx: FuzzContext) =>
  header(
    fc.constantFrom(undefined, '__Host-lb-console=lbs_nonsense', `__Host-lb-console=lbs_${'0'.repeat(32)}_${'A'.repeat(43)}`),
    fc.oneof(
      hostileText.map((text) => `__Host-lb-console=${percentEncode(text)}`),
      hostileHeader,
      fc.constant(`__Host-lb-console=${ctx.tenant.key}`),
    ),
  );
const CONSOLE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /console/auth/sign-in': (ctx) =>
    route({
      method: 'GET',
      path: '/console/auth/sign-in',
      query: {
        tenant: param('tenant', fc.constantFrom(ctx.tenant.name, ctx.otherTenantName, 'no-such-tenant'), { hostile: hostileText }),
        return: param('return', fc.constantFrom('/', '/people?q=e30', '/reports?report=by-job'), {
          hostile: fc.oneof(
            hostileText,
            fc.constantFrom('//evil.example/', '/\\evil.example', 'https://evil.example/', '/%0d%0aSet-Cookie:x=1'),
          ),
        }),
      },
      headers: publicHeaders(ctx),
    }),
  'GET /console/auth/callback': (ctx) =>
    route({
      method: 'GET',
      path: '/console/auth/callback',
      query: {
        state: param('state', consoleState, { hostile: hostileText }),
        code: param('code', fc.base64String({ maxLength: 43 }), { hostile: hostileText }),
        error: param('error', fc.constantFrom('access_denied', 'invalid_request'), { hostile: hostileText }),
        error_description: param('error_description', fc.string({ maxLength: 40 }), { hostile: hostileText }),
      },
      headers: {
        ...publicHeaders(ctx),
        cookie: header(
          consoleState.map(
            (state) =>
              `__Host-lb-console-signin-${state}=${Buffer.from(JSON.stringify({ tenantId: '00000000-0000-4000-8000-000000000000', verifier: 'v'.repeat(43), returnTo: '/' })).toString('base64url')}`,
          ),
          fc.oneof(
            hostileText.map((text) => `__Host-lb-console-signin-${'A'.repeat(22)}=${percentEncode(text)}`),
            hostileHeader,
          ),
        ),
      },
    }),
  'GET /console/auth/session': (ctx) =>
    route({ method: 'GET', path: '/console/auth/session', headers: { ...publicHeaders(ctx), cookie: consoleSessionCookie(ctx) } }),
  'POST /console/auth/sign-out': (ctx) =>
    route({
      method: 'POST',
      path: '/console/auth/sign-out',
      headers: {
        ...publicHeaders(ctx),
        cookie: consoleSessionCookie(ctx),
        'x-csrf-token': header(absent, fc.oneof(hostileText, hostileHeader)),
      },
    }),
};

export const AUTH_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/me': plainRoute('GET', '/api/me', (ctx) => apiHeaders(ctx, false)),
  'POST /auth/oauth/token': tokenRoute,
  'POST /auth/oauth/revoke': revokeRoute,
  'GET /auth/oauth/authorize': authorizeGetRoute,
  'POST /auth/oauth/authorize': authorizePostRoute,
  'GET /auth/demo/callback': demoCallbackRoute,
  'GET /.well-known/oauth-authorization-server': plainRoute('GET', '/.well-known/oauth-authorization-server', publicHeaders),
  ...CREDENTIAL_FUZZERS,
  ...LIFECYCLE_FUZZERS,
  ...ADMIN_FUZZERS,
  ...CONSOLE_FUZZERS,
};
