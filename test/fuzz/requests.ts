import fc from 'fast-check';
import { hostileBody, hostileHeader, hostileJson, hostileText, percentEncode, rawQueryFragment, toJson } from './hostile-values.js';

/**
 * The requests of the route fuzz test (routes.fuzz.test.ts): for each route, requests that are
 * mostly valid (so they pass authentication and reach the handlers and the database) with one or
 * more parts replaced by hostile values (hostile-values.ts). Each module's generators live beside
 * its tests, in test/<module>/<module>.fuzz-routes.ts, and are made of what this file holds: the
 * context, the parts of a request (query parameters, headers, bodies) and their assembly.
 */

/** What a request is made with: the tenant it acts in and valid OAuth material to mutate. */
export interface FuzzContext {
  tenant: { name: string; key: string; secret: string; authorization: string };
  /** Another tenant's name: its credential is not the request's. */
  otherTenantName: string;
  baseDomain: string;
  oauth: {
    clientId: string;
    clientSecret: string;
    redirectUri: string;
    adminEmail: string;
    adminPassword: string;
    /** A valid access token of the tenant's admin, for `Authorization: Bearer`. */
    accessToken: string;
    /** A refresh token and an unused code of a separate authorization, for the token endpoint. */
    refreshToken: string;
    code: string;
    codeVerifier: string;
    /** A pending sign-in form, as a browser holds it: its hidden fields and its cookie. */
    form: { requestId: string; csrfToken: string; cookieName: string; cookieValue: string };
  };
  /**
   * The learner LEARNER_MBOX as principals of its own, `Basic …` each: a learner credential and
   * a launch token of LAUNCH_ACTIVITY. Statements name that learner as their actor, alone or in
   * groups, so both the allowed and the refused writes of issue 24 are tried.
   */
  learner: { credential: string; launchToken: string };
  /** `Basic …` of an API key limited to the organisation entry P1 (issue 28, item 5), which the tenant's imports may make or drop. */
  scopedKey: string;
  /** The tenant's SCIM token (issue 29), `Bearer …`, and the id of a User it made. */
  scimToken: string;
  scimUserId: string;
  /** An HR webhook endpoint of the tenant (issue 29): where it posts, and its signing secret. */
  hrWebhook: { path: string; secret: string };
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** The client address (inject's default 127.0.0.1 otherwise). */
  remoteAddress?: string;
}

/** Builds the requests for one route (`METHOD /path`) out of the context. */
export type RouteFuzzer = (ctx: FuzzContext) => fc.Arbitrary<FuzzRequest>;

// ---------------------------------------------------------------------------------------------
// Valid requests with a few parts swapped for hostile ones

/** One part of a request: its valid values, its hostile ones, and how often it is the one mutated. */
export interface Part<T> {
  valid: fc.Arbitrary<T>;
  hostile: fc.Arbitrary<T>;
  weight?: number;
}

export const part = <T>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>, weight = 1): Part<T> => ({ valid, hostile, weight });

/**
 * A record of valid values with, mostly, one or two parts (sometimes none, sometimes up to five)
 * replaced by hostile ones: a request that is wrong in one place gets past the checks of the
 * other places, into the code behind them. Shrinking drops mutations, so a counterexample shows
 * the one part that matters.
 */
export function mutated(parts: Record<string, Part<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(parts);
  const weighted = names.flatMap((name) => Array.from({ length: parts[name]!.weight ?? 1 }, () => name));
  const pick = fc.constantFrom(...weighted);
  const chosen = fc.oneof(
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    { weight: 8, arbitrary: fc.array(pick, { minLength: 1, maxLength: 2 }) },
    { weight: 1, arbitrary: fc.array(pick, { minLength: 3, maxLength: 5 }) },
  );
  const valid = fc.record(Object.fromEntries(names.map((name) => [name, parts[name]!.valid])));
  const hostile = fc.record(Object.fromEntries(names.map((name) => [name, parts[name]!.hostile])));
  return fc.tuple(chosen, valid, hostile).map(([chosen, valid, hostile]) => {
    const out: Record<string, unknown> = { ...valid };
    for (const name of chosen) out[name] = hostile[name];
    return out;
  });
}

/** Omits undefined entries: absent headers stay absent. */
function compact(record: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

// ---------------------------------------------------------------------------------------------
// Query parameters: each a part yielding its `name=value` pairs

/**
 * A query parameter. Valid: `expected` (always there when `required`, else half the time).
 * Hostile: hostile text, a malformed escape, the parameter repeated (an array where a scalar
 * goes), without a value, in bracket syntax, or `hostile` values of the parameter's own kind.
 */
export function param(
  name: string,
  expected: fc.Arbitrary<string>,
  options: { required?: boolean; hostile?: fc.Arbitrary<string>; weight?: number; rare?: boolean } = {},
): Part<string[]> {
  const one = (value: string) => `${name}=${percentEncode(value)}`;
  const valid = options.required
    ? expected.map((value) => [one(value)])
    : options.rare
      ? fc.constant<string[]>([])
      : fc.option(expected, { freq: 2 }).map((value) => (value === null ? [] : [one(value)]));
  const hostile = fc.oneof(
    // `rare`: a parameter that changes what the request means (statementId, cursor) is valid only absent.
    { weight: options.rare ? 4 : 0, arbitrary: expected.map((value) => [one(value)]) },
    { weight: 3, arbitrary: hostileText.map((text) => [one(text)]) },
    { weight: options.hostile ? 4 : 0, arbitrary: (options.hostile ?? fc.constant('')).map((text) => [one(text)]) },
    { weight: 1, arbitrary: rawQueryFragment.map((raw) => [`${name}=${raw}`]) },
    { weight: 1, arbitrary: fc.tuple(expected, rawQueryFragment).map(([value, raw]) => [one(value) + raw]) },
    { weight: 2, arbitrary: fc.array(fc.oneof(expected, hostileText), { minLength: 2, maxLength: 3 }).map((values) => values.map(one)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string[]>([name], [`${name}=`], [`${name}[]=x`], [`${name}[a]=x`], [`${name.toUpperCase()}=x`]),
    },
  );
  return part(valid, hostile, options.weight ?? 2);
}

/** Parameters the route does not define, and query syntax gone wrong. */
export const extraQuery: Part<string[]> = part(
  fc.constant([]),
  fc.oneof(
    fc.array(
      fc
        .tuple(fc.oneof(hostileText.map(percentEncode), rawQueryFragment), fc.oneof(hostileText.map(percentEncode), rawQueryFragment))
        .map(([name, value]) => `${name}=${value}`),
      { minLength: 1, maxLength: 3 },
    ),
    fc.constantFrom<string[]>(['&'], ['&&&'], ['='], ['=x'], ['x'], ['?'], ['#x'], ['__proto__=1'], ['constructor[prototype][x]=1']),
  ),
);

export const withQuery = (path: string, pairs: string[]) => (pairs.length === 0 ? path : `${path}?${pairs.join('&')}`);

// ---------------------------------------------------------------------------------------------
// Headers

export const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
export const header = (valid: fc.Arbitrary<string | undefined>, hostile: fc.Arbitrary<string | undefined>, weight = 1) =>
  part(valid, hostile, weight);
export const absent = fc.constant<string | undefined>(undefined);

/** Valid: the tenant's API key, or the admin's Bearer token. Hostile: absent, garbage, someone else's. */
function authorizationHeader(ctx: FuzzContext): Part<string | undefined> {
  return header(
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(ctx.tenant.authorization) },
      { weight: 1, arbitrary: fc.constant(`Bearer ${ctx.oauth.accessToken}`) },
      { weight: 1, arbitrary: fc.constantFrom(ctx.learner.credential, ctx.learner.launchToken) },
      { weight: 1, arbitrary: fc.constant(ctx.scopedKey) },
    ),
    fc.oneof(
      absent,
      fc.constantFrom(
        'garbage',
        'Basic',
        'Basic ',
        'Basic !!!',
        'Basic ====',
        'Bearer',
        'Bearer ',
        'Bearer garbage',
        'Digest x',
        '   ',
        'basic',
        'BASIC x',
      ),
      hostileHeader,
      hostileText.map((text) => `Basic ${base64(text)}`),
      hostileText.map((text) => `Basic ${base64(`${ctx.tenant.key}:${text}`)}`),
      hostileText.map((text) => `Basic ${base64(`${text}:${ctx.tenant.secret}`)}`),
      hostileText.map((text) => `Basic ${base64(`lb_${'0'.repeat(32)}_${'0'.repeat(16)}:${text}`)}`),
      hostileHeader.map((text) => `Bearer ${text}`),
      fc.constant(`Basic ${base64(ctx.tenant.key)}`),
      fc.constant(`Bearer ${ctx.oauth.accessToken}x`),
      fc.constant(`${ctx.tenant.authorization} ${ctx.tenant.authorization}`),
    ),
  );
}

/** Valid: the tenant's name, or none (the credential names it). Hostile: another tenant, odd names. */
function tenantHeader(ctx: FuzzContext): Part<string | undefined> {
  return header(
    fc.oneof({ weight: 4, arbitrary: fc.constant(ctx.tenant.name) }, { weight: 1, arbitrary: absent }),
    fc.oneof(
      fc.constantFrom(
        ctx.otherTenantName,
        ctx.tenant.name.toUpperCase(),
        ` ${ctx.tenant.name} `,
        `${ctx.tenant.name}.`,
        `${ctx.tenant.name},${ctx.tenant.name}`,
        'no-such-tenant',
        'a'.repeat(300),
        '../x',
        '-',
        '.',
        '\u00e9t\u00e9',
        '%00',
      ),
      hostileHeader,
    ),
  );
}

/** Valid: none (inject's localhost:80), the bare address or the tenant's sub-domain. Hostile: trailing dot, nested, odd. */
export function hostHeader(ctx: FuzzContext): Part<string | undefined> {
  const tenantHost = `${ctx.tenant.name}.${ctx.baseDomain}`;
  return header(
    fc.oneof(
      { weight: 3, arbitrary: absent },
      { weight: 1, arbitrary: fc.constantFrom('127.0.0.1:8080', tenantHost, `${tenantHost}:8080`) },
    ),
    fc.oneof(
      fc.constantFrom(
        `${tenantHost}.`,
        `${tenantHost}.:8080`,
        `a.${tenantHost}`,
        `${ctx.otherTenantName}.${ctx.baseDomain}`,
        `${ctx.tenant.name.toUpperCase()}.${ctx.baseDomain.toUpperCase()}`,
        `.${ctx.baseDomain}`,
        `${ctx.baseDomain}.`,
        '127.0.0.1:99999999',
        '[::1]:8080',
        '[::1',
        ':8080',
        ':',
        '',
        `${'a'.repeat(300)}.${ctx.baseDomain}`,
        `\u00e9.${ctx.baseDomain}`,
        `${tenantHost}@evil.example`,
      ),
      hostileHeader,
      hostileHeader.map((label) => `${label}.${ctx.baseDomain}`),
    ),
  );
}

const versionHeader = header(
  fc.constantFrom('2.0.0', '2.0.0', '1.0.3'),
  fc.oneof(absent, fc.constantFrom('1.0', '2.0', '2.0.99', '1.0.0', '0.95', '3.0.0', ' 2.0.0 ', '2.0.0, 1.0.3', '2'), hostileHeader),
);

export const etag = fc.oneof(
  fc.constantFrom('*', '"abc"', 'W/"abc"', '""', '"', '"a", "b"', '*, "a"', `"${'f'.repeat(40)}"`, `"${'0'.repeat(64)}"`),
  hostileHeader,
  hostileHeader.map((text) => `"${text}"`),
);

/** Headers any request may carry, valid when absent. */
const incidentalHeaders = {
  'accept-language': header(
    fc.constantFrom(undefined, 'en-US', 'fr;q=0.5, *;q=0'),
    fc.oneof(fc.constantFrom('*', '', ',,,', 'en-US;q=x'), hostileHeader),
  ),
  'x-request-id': header(absent, hostileHeader),
  origin: header(fc.constantFrom(undefined, 'http://example.com'), fc.oneof(fc.constantFrom('null', '*'), hostileHeader)),
  accept: header(absent, fc.oneof(fc.constantFrom('application/xml', 'text/html', '*/*;q=0', 'multipart/mixed'), hostileHeader)),
};

/** The headers of an authenticated request: credential, tenant, host, and for /xapi/ the version. */
export function apiHeaders(ctx: FuzzContext, xapi: boolean): Record<string, Part<string | undefined>> {
  return {
    authorization: authorizationHeader(ctx),
    'x-svc-tenant': tenantHeader(ctx),
    host: hostHeader(ctx),
    ...(xapi ? { 'x-experience-api-version': versionHeader } : {}),
    ...incidentalHeaders,
  };
}

/** The headers of a route that needs no credential: valid without any, hostile with odd ones. */
export function publicHeaders(ctx: FuzzContext): Record<string, Part<string | undefined>> {
  const auth = authorizationHeader(ctx);
  const tenant = tenantHeader(ctx);
  return {
    authorization: header(absent, fc.oneof(auth.valid, auth.hostile)),
    'x-svc-tenant': header(absent, fc.oneof(tenant.valid, tenant.hostile)),
    host: hostHeader(ctx),
    'x-forwarded-proto': header(absent, fc.oneof(fc.constantFrom('https', 'gopher', 'https, http'), hostileHeader)),
    'x-forwarded-host': header(absent, fc.oneof(hostHeader(ctx).hostile, fc.constant(`${ctx.tenant.name}.${ctx.baseDomain}`))),
    ...incidentalHeaders,
  };
}

// ---------------------------------------------------------------------------------------------
// Bodies

export const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-8'];
export const oddContentType = fc.oneof(
  fc.constantFrom(
    undefined,
    'text/plain',
    'application/octet-stream',
    'application/x-www-form-urlencoded',
    'multipart/mixed; boundary=x',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'application/json; charset=',
    'application/json; boundary="',
    'application/*',
    '*/*',
    'application/jsonx',
    'json',
    ';;;',
    ';',
    '',
    ' ',
    'text/html; charset=utf-8',
    'application/problem+json',
  ),
  hostileHeader,
);

export interface Body {
  payload?: string | Buffer;
  contentType?: string;
}

/**
 * A body part. Valid: `valid` in one of `types`. Hostile: `hostile` (the route's own kind of wrong
 * value) in one of `types`, any hostile body, or a valid body in an odd content type.
 */
export function body(
  valid: fc.Arbitrary<string | Buffer>,
  types: string[],
  hostile: fc.Arbitrary<string | Buffer | undefined>,
  weight = 6,
): Part<Body> {
  const type = fc.constantFrom(...types);
  return part(
    fc.record({ payload: valid, contentType: type }),
    fc.oneof(
      { weight: 6, arbitrary: fc.record({ payload: hostile, contentType: type }) },
      { weight: 2, arbitrary: fc.record({ payload: hostileBody, contentType: fc.oneof(type, oddContentType) }) },
      { weight: 2, arbitrary: fc.record({ payload: valid, contentType: oddContentType }) },
      { weight: 1, arbitrary: fc.record({ contentType: fc.oneof(type, oddContentType) }, { requiredKeys: [] }) },
    ),
    weight,
  );
}

/** A body on a route that takes none: valid is none. */
const strayBody: Part<Body> = part(
  fc.constant({}),
  fc.record({
    payload: fc.oneof(hostileBody, hostileJson.map(toJson)),
    contentType: fc.oneof(fc.constantFrom(...JSON_TYPES), oddContentType),
  }),
);

// ---------------------------------------------------------------------------------------------
// Assembling a request

interface RouteSpec {
  method: string;
  path: fc.Arbitrary<string> | string;
  query?: Record<string, Part<string[]>>;
  headers: Record<string, Part<string | undefined>>;
  body?: Part<Body>;
  /** Vary the client address (the sign-in throttle and rate limit count per address). */
  anyAddress?: boolean;
}

export function route(spec: RouteSpec): fc.Arbitrary<FuzzRequest> {
  const parts: Record<string, Part<unknown>> = {};
  for (const [name, value] of Object.entries({ ...spec.query, '?': extraQuery })) parts[`?${name}`] = value;
  for (const [name, value] of Object.entries(spec.headers)) parts[`h:${name}`] = value;
  parts.body = spec.body ?? strayBody;
  const path = typeof spec.path === 'string' ? fc.constant(spec.path) : spec.path;
  const address = spec.anyAddress ? fc.ipV4() : fc.constant(undefined);
  return fc.tuple(mutated(parts), path, address).map(([values, path, remoteAddress]) => {
    const pairs: string[] = [];
    const headers: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(values)) {
      if (key.startsWith('?')) pairs.push(...(value as string[]));
      else if (key.startsWith('h:')) headers[key.slice(2)] = value;
    }
    const { payload, contentType } = values.body as Body;
    if (contentType !== undefined) headers['content-type'] = contentType;
    const request: FuzzRequest = { method: spec.method, url: withQuery(path, pairs), headers: compact(headers) };
    if (payload !== undefined) request.payload = payload;
    if (remoteAddress !== undefined) request.remoteAddress = remoteAddress;
    return request;
  });
}

// ---------------------------------------------------------------------------------------------
// What the routes of several modules share

/** A route with nothing to address: only its query (unknown parameters), headers and a stray body vary. */
export function plainRoute(
  method: string,
  path: string,
  headers: (ctx: FuzzContext) => Record<string, Part<string | undefined>>,
): RouteFuzzer {
  return (ctx) => route({ method, path, headers: headers(ctx) });
}

/**
 * OAuth request fields as one body part: a form (RFC 6749) or JSON (the interface), every field
 * valid; hostile: one or two fields hostile (as text, or in JSON as any value), or a hostile body.
 */
export function oauthBody(fields: Record<string, Part<string | undefined>>): Part<Body> {
  const FORM = ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8'];
  const asForm = (values: Record<string, unknown>) =>
    Object.entries(values)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) =>
        Array.isArray(value)
          ? value.map((item) => `${name}=${percentEncode(String(item))}`).join('&')
          : `${name}=${percentEncode(String(value))}`,
      )
      .join('&');
  const validValues = fc.record(Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, field.valid])));
  const textual = mutated(fields);
  const jsonValues = mutated(
    Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, part(field.valid, fc.oneof(field.hostile, hostileJson))])),
  );
  const repeated = fc
    .tuple(validValues, fc.constantFrom(...Object.keys(fields)))
    .map(([values, name]) => asForm({ ...values, [name]: [values[name] ?? 'x', 'y'] }));
  return part(
    fc.oneof(
      fc.record({ payload: validValues.map(asForm), contentType: fc.constantFrom(...FORM) }),
      fc.record({ payload: validValues.map(toJson), contentType: fc.constantFrom(...JSON_TYPES) }),
    ),
    fc.oneof(
      { weight: 4, arbitrary: fc.record({ payload: textual.map(asForm), contentType: fc.constantFrom(...FORM) }) },
      { weight: 3, arbitrary: fc.record({ payload: jsonValues.map(toJson), contentType: fc.constantFrom(...JSON_TYPES) }) },
      { weight: 1, arbitrary: fc.record({ payload: repeated, contentType: fc.constantFrom(...FORM) }) },
      {
        weight: 1,
        arbitrary: fc.record({ payload: fc.oneof(validValues.map(asForm), validValues.map(toJson)), contentType: oddContentType }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ payload: hostileBody, contentType: fc.oneof(fc.constantFrom(...FORM, ...JSON_TYPES), oddContentType) }),
      },
    ),
    6,
  );
}

export const field = (valid: fc.Arbitrary<string | undefined>, hostile: fc.Arbitrary<string | undefined> = hostileText) =>
  part(valid, hostile);

/**
 * The headers of a route for the tenant's admins (API keys, OAuth clients, admins, SCIM tokens, HR
 * webhooks, SSO connections): the valid credential is mostly the admin's Bearer token (an API key
 * is refused, 403).
 */
export function adminHeaders(ctx: FuzzContext): Record<string, Part<string | undefined>> {
  const headers = apiHeaders(ctx, false);
  const auth = headers.authorization!;
  return {
    ...headers,
    authorization: header(
      fc.oneof({ weight: 4, arbitrary: fc.constant(`Bearer ${ctx.oauth.accessToken}`) }, { weight: 1, arbitrary: auth.valid }),
      auth.hostile,
    ),
    'svc-account-source': header(fc.constantFrom(undefined, 'console'), hostileHeader),
  };
}
