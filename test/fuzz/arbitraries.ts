import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';

/**
 * The generators of the route fuzz test (routes.fuzz.test.ts): for each route, requests that are
 * mostly valid (so they pass authentication and reach the handlers and the database) with one or
 * more parts replaced by hostile values. What counts as hostile is what a client can actually send
 * over a socket: URLs stay ASCII (anything else is percent-encoded, lone surrogates as the bytes
 * of their WTF-8 form), header values stay within the bytes Node's HTTP parser accepts, bodies
 * are any bytes.
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
// Hostile text

const DEEP = 10_000;
/** A 10,000-deep array and object: JSON parsers recurse, and so may whatever walks the value. */
export const DEEP_ARRAY = '['.repeat(DEEP) + ']'.repeat(DEEP);
export const DEEP_OBJECT = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`;

const LONG = 'x'.repeat(10_000);

/**
 * `length` characters of base64url that PostgreSQL cannot compress: a B-tree entry holds about
 * 2,700 bytes after compression, so a run of one letter fits where the same length of this does
 * not (issue 24 found 500s with such values in every indexed column).
 */
export function incompressible(length: number, seed = 'fuzz'): string {
  let text = '';
  for (let i = 0; text.length < length; i++) text += createHash('sha256').update(`${seed}:${i}`).digest('base64url');
  return text.slice(0, length);
}

/** Text around and far past an index entry's limit: ASCII, two-byte and four-byte characters, none compressible. */
export const longIndexedText: fc.Arbitrary<string> = fc.constantFrom(
  incompressible(1_900),
  incompressible(2_100),
  incompressible(2_800),
  incompressible(9_000),
  [...incompressible(1_400)]
    .map((c) => `${c}\u00e9`)
    .join('')
    .slice(0, 2_400),
  [...incompressible(800)].map((c) => `${c}\u{1F600}`).join(''),
);

/** Strings that break naive code: NUL, lone surrogates, byte-order marks, prototype keys, long runs. */
const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uDBFFy',
  '\uDC00\uD800',
  '\uFFFF',
  '\uFEFF',
  '\u202E',
  '\u00e9',
  '%00',
  '%',
  '\\',
  '"',
  "'",
  '\n',
  '\r\n',
  '${x}',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'toString',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '0x10',
  LONG,
  '\u0000'.repeat(2_000),
  '\uD800'.repeat(2_000),
];

/** Any JS string, biased to the special ones: NUL, lone surrogates (`unit: 'binary'`), long runs. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.constantFrom('\u0000', '\uD800', '\uDC00', 'a', '%', '&', '=', '+', '\u00e9', '\n', '"', '\\'),
      maxLength: 24,
    }),
  },
);

/** Numbers as text, the way they arrive in a query: huge, negative, hexadecimal, fractional. */
export const hostileNumber = fc.constantFrom(
  '1e309',
  '-1e309',
  'Infinity',
  '-Infinity',
  'NaN',
  '0x10',
  '0b1',
  '-1',
  '-0',
  '0',
  '1.5',
  '1e2',
  ' 1',
  '1 ',
  '',
  '9007199254740993',
  '99999999999999999999999999999',
  '2147483648',
  '-2147483649',
);

/** Timestamps that parse to nothing, to something else, or to the ends of the Date range. */
export const hostileDate = fc.constantFrom(
  '2024-02-30T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2024-13-01T00:00:00Z',
  '2024-00-10T00:00:00Z',
  '2024-01-01T24:00:00Z',
  '2024-01-01T25:61:61Z',
  '2024-01-01T23:59:60Z',
  '2024-01-01T00:00:00+99:99',
  '2024-01-01T00:00:00-23:59',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  '+275760-09-13T00:00:00.000Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '2024-01-01',
  '2024-01-01T00:00:00',
  '1e309',
  'now',
  '',
);

export const validDate = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

export const uuidish = fc.oneof(
  { weight: 3, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.uuid().map((id) => id.toUpperCase()) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'not-a-uuid',
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '{00000000-0000-0000-0000-000000000000}',
    ),
  },
  { weight: 1, arbitrary: fc.tuple(fc.uuid(), hostileText).map(([id, text]) => id + text) },
);

export const iriish = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'http://example.com/activities/a',
      'https://example.com/x?y=1#z',
      'urn:uuid:0',
      'http://adlnet.gov/expapi/verbs/completed',
    ),
  },
  { weight: 1, arbitrary: fc.webUrl() },
  { weight: 1, arbitrary: hostileText.map((text) => `http://example.com/${text}`) },
  { weight: 1, arbitrary: hostileText },
);

// ---------------------------------------------------------------------------------------------
// Hostile JSON

/**
 * Raw JSON number text (`1e309` parses to Infinity, long digit strings lose precision), spliced
 * into serialised values: a value holds the marker string, `toJson` replaces it.
 */
const NUMBER_MARK = '\u0001num:';
const rawNumber = fc
  .constantFrom('1e309', '-1e309', '1e-400', '-0', '123456789012345678901234567890', '0.1e1', '1E+2', '-1.5')
  .map((text) => `${NUMBER_MARK}${text}`);

/** JSON.stringify, with the number markers replaced by their raw text. Lone surrogates stay as `\udXXX` escapes. */
export function toJson(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001num:([^"]*)"/g, '$1');
}

/** Any JSON value, its strings from every code unit (lone surrogates, NUL), its keys hostile too. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'json' },
    { weight: 2, arbitrary: hostileText },
    { weight: 1, arbitrary: rawNumber },
    { weight: 2, arbitrary: fc.jsonValue({ stringUnit: 'binary', maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, Number.MAX_SAFE_INTEGER, {}, []) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4, depthIdentifier: 'json' }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.oneof(hostileText, fc.constantFrom('__proto__', 'constructor', '$ref', 'a')), tie('value')), {
          maxLength: 4,
          depthIdentifier: 'json',
        })
        .map((entries) => Object.fromEntries(entries)),
    },
  ),
})).value;

/** Bodies that are not what the route parses: not JSON, invalid UTF-8, empty, 10,000 levels deep. */
export const hostileBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom<string | Buffer>(
    '',
    ' ',
    'not json',
    '{',
    '{"a":',
    '[1,]',
    '{"a":1}garbage',
    'null',
    '"\\u0000"',
    '"\\ud800"',
    '{"\\u0000":"\\udfff"}',
    '{"__proto__":{"polluted":1}}',
    '1e309',
    DEEP_ARRAY,
    DEEP_OBJECT,
    `{"a":${DEEP_ARRAY}}`,
    Buffer.from([0xff, 0xfe, 0x00, 0x7b]),
    Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
    Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xed, 0xa0, 0x80, 0xc0, 0x80, 0xff]), Buffer.from('"}')]),
    'a=1&a=2&b=%00&c=%ZZ',
  ),
  hostileJson.map(toJson),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
);

// ---------------------------------------------------------------------------------------------
// URLs: ASCII only, with hostile bytes percent-encoded

/** A lone surrogate's three bytes (WTF-8): what a client that does not check its strings sends. */
function wtf8(codeUnit: number): number[] {
  return [0xe0 | (codeUnit >> 12), 0x80 | ((codeUnit >> 6) & 0x3f), 0x80 | (codeUnit & 0x3f)];
}

/** Percent-encodes every byte but the unreserved ones; lone surrogates as their WTF-8 bytes. */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    if (/^[A-Za-z0-9\-._~]$/.test(char)) {
      out += char;
      continue;
    }
    const code = char.codePointAt(0)!;
    const bytes = code >= 0xd800 && code <= 0xdfff ? wtf8(code) : [...Buffer.from(char, 'utf8')];
    out += bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** Query text as sent, already encoded: malformed escapes, encoded NUL, overlong NUL, stray separators. */
export const rawQueryFragment = fc.constantFrom(
  '%00',
  '%',
  '%2',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%C0%80',
  '%FF%FE',
  '%uD800',
  '%2500',
  '+',
  '%2B',
  '%26%3D',
  '[]',
  '%5B%5D',
  'a[b]=c',
);

// ---------------------------------------------------------------------------------------------
// Headers: values within what Node's HTTP parser accepts (tab, visible ASCII, space, obs-text)

/** Maps any string into a header value a socket could carry: other characters become `?`. */
export function headerSafe(text: string): string {
  return text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

export const hostileHeader: fc.Arbitrary<string> = fc.oneof(
  hostileText.map(headerSafe),
  fc.constantFrom('', ' ', '\t', 'x'.repeat(8_000), '\u00ff\u00fe', '"', ',', ';', '=', '*', 'null', '%00', '\\"'),
);

// ---------------------------------------------------------------------------------------------
// Valid requests with a few parts swapped for hostile ones

/** One part of a request: its valid values, its hostile ones, and how often it is the one mutated. */
export interface Part<T> {
  valid: fc.Arbitrary<T>;
  hostile: fc.Arbitrary<T>;
  weight?: number;
}

const part = <T>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>, weight = 1): Part<T> => ({ valid, hostile, weight });

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
const extraQuery: Part<string[]> = part(
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

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const header = (valid: fc.Arbitrary<string | undefined>, hostile: fc.Arbitrary<string | undefined>, weight = 1) =>
  part(valid, hostile, weight);
const absent = fc.constant<string | undefined>(undefined);

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
function hostHeader(ctx: FuzzContext): Part<string | undefined> {
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

const etag = fc.oneof(
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
function apiHeaders(ctx: FuzzContext, xapi: boolean): Record<string, Part<string | undefined>> {
  return {
    authorization: authorizationHeader(ctx),
    'x-svc-tenant': tenantHeader(ctx),
    host: hostHeader(ctx),
    ...(xapi ? { 'x-experience-api-version': versionHeader } : {}),
    ...incidentalHeaders,
  };
}

/** The headers of a route that needs no credential: valid without any, hostile with odd ones. */
function publicHeaders(ctx: FuzzContext): Record<string, Part<string | undefined>> {
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

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-8'];
const oddContentType = fc.oneof(
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
function body(
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

function route(spec: RouteSpec): fc.Arbitrary<FuzzRequest> {
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
// xAPI values

const MBOXES = ['mailto:learner@example.com', 'mailto:fuzz@example.com'];
const ACTIVITIES = ['http://example.com/activities/a', 'http://example.com/activities/b', 'https://example.com/x?y=1'];
/** The fuzz context's learner, and the activity its launch token was launched for. */
export const LEARNER_MBOX = MBOXES[0]!;
export const LAUNCH_ACTIVITY = ACTIVITIES[0]!;
const VERBS = ['http://adlnet.gov/expapi/verbs/completed', 'http://adlnet.gov/expapi/verbs/voided', 'http://example.com/verbs/x'];

const validAgent = fc.oneof(
  fc.constantFrom(...MBOXES).map((mbox) => ({ mbox })),
  fc.constant({ objectType: 'Agent', mbox: MBOXES[1], name: 'Fuzz' }),
  fc.constant({ mbox_sha1sum: 'a'.repeat(40) }),
  fc.constant({ openid: 'http://example.com/openid' }),
  fc.constant({ account: { homePage: 'http://example.com', name: 'learner' } }),
);
// MBOXES[0] is the fuzz context's learner (its credential and launch token act for it): the
// groups below are what a learner principal must not write (issue 24), an API key may.
const validActor = fc.oneof(
  validAgent,
  fc.constant({ objectType: 'Group', member: [{ mbox: MBOXES[0] }] }),
  fc.constant({ objectType: 'Group', member: [{ mbox: MBOXES[0] }, { mbox: MBOXES[1] }] }),
  fc.constant({ objectType: 'Group', name: 'Forged', mbox: MBOXES[1], member: [{ mbox: MBOXES[0] }] }),
  fc.constant({ objectType: 'Group', account: { homePage: 'http://example.com', name: 'learner' }, member: [{ mbox: MBOXES[0] }] }),
);

/** An agent of the right shape whose text is hostile, a wrong shape, or anything. */
const hostileAgent: fc.Arbitrary<unknown> = fc.oneof(
  hostileText.map((text) => ({ mbox: `mailto:${text}@example.com` })),
  hostileText.map((text) => ({ mbox: MBOXES[0], name: text })),
  hostileText.map((text) => ({ mbox_sha1sum: text })),
  hostileText.map((text) => ({ openid: `http://example.com/${text}` })),
  hostileText.map((text) => ({ account: { homePage: 'http://example.com', name: text } })),
  hostileText.map((text) => ({ account: { homePage: `http://example.com/${text}`, name: 'n' } })),
  hostileJson.map((value) => ({ account: value })),
  hostileJson.map((value) => ({ objectType: 'Group', member: value })),
  hostileJson.map((value) => ({ objectType: value, mbox: MBOXES[0] })),
  fc.constant({ mbox: MBOXES[0], openid: 'http://example.com/' }),
  fc.constant({ objectType: 'Group', member: [] }),
  longIndexedText.map((text) => ({ mbox: `mailto:${text}@example.com` })),
  longIndexedText.map((text) => ({ mbox: MBOXES[0], name: text })),
  longIndexedText.map((text) => ({ openid: `http://example.com/${text}` })),
  longIndexedText.map((text) => ({ account: { homePage: 'http://example.com', name: text } })),
  longIndexedText.map((text) => ({ account: { homePage: `http://example.com/${text}`, name: 'n' } })),
  longIndexedText.map((text) => ({ objectType: 'Group', member: [{ mbox: MBOXES[0] }, { mbox: `mailto:${text}@example.com` }] })),
  hostileJson,
);

/** An `agent` query parameter: JSON text (its escapes carry NUL and lone surrogates into the value). */
const agentParameter = validAgent.map(toJson);
const hostileAgentParameter: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileAgent.map(toJson) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{',
      'null',
      '[]',
      '"x"',
      '{"mbox":"mailto:a@example.com"',
      `{"mbox":"mailto:a@example.com","x":${DEEP_ARRAY.slice(0, 2_000)}${']'.repeat(1_000)}}`,
    ),
  },
);

const actorIdParameter = fc.constantFrom(
  'mbox|mailto:learner@example.com',
  `mbox_sha1sum|${'a'.repeat(40)}`,
  'openid|http://example.com/openid',
  'account|http://example.com|learner',
);
const hostileActorId = fc.oneof(
  hostileText.map((text) => `mbox|mailto:${text}@example.com`),
  hostileText.map((text) => `account|http://example.com|${text}`),
  hostileText.map((text) => `${text}|x`),
  fc.constantFrom('|', '||', 'account|', 'account||', 'mbox|', 'account|x|y|z'),
);

const activityId = fc.constantFrom(...ACTIVITIES);
const hostileIri = fc.oneof(
  hostileText.map((text) => `http://example.com/${text}`),
  fc.constantFrom('not an iri', 'http://', 'x:', `http://example.com/${'a'.repeat(10_000)}`),
  longIndexedText.map((text) => `http://example.com/${text}`),
);

const languageMap = fc.constant({ 'en-US': 'completed' });
const hostileLanguageMap = fc.oneof(
  fc.tuple(hostileText, hostileText).map(([tag, text]) => ({ [tag]: text })),
  hostileText.map((text) => ({ 'en-US': text })),
  hostileJson,
);

/** Data that is valid JSON and must be stored as data: a `__proto__` key is a property name like any other (issue 24). */
const protoKeyedValue = fc.constantFrom(
  JSON.parse('{"__proto__":{"polluted":true}}') as unknown,
  JSON.parse('{"a":{"__proto__":[1,2]},"constructor":{"prototype":{"x":1}}}') as unknown,
);
const validExtensions = fc.dictionary(
  fc.constantFrom('http://example.com/ext/a', 'http://example.com/ext/b'),
  fc.oneof({ weight: 4, arbitrary: fc.jsonValue({ maxDepth: 2 }) }, { weight: 1, arbitrary: protoKeyedValue }),
  { maxKeys: 2 },
);
const hostileExtensions = fc.oneof(
  fc.tuple(fc.constantFrom('http://example.com/ext/a'), hostileJson).map(([key, value]) => ({ [key]: value })),
  hostileText.map((text) => ({ [`http://example.com/${text}`]: 1 })),
  hostileText.map((text) => ({ [text]: 1 })),
  fc.constant({ 'http://example.com/ext/deep': JSON.parse(`[${'['.repeat(1_000)}${']'.repeat(1_000)}]`) as unknown }),
  hostileJson,
);

const validActivity = fc.record(
  {
    objectType: fc.constant('Activity'),
    id: activityId,
    definition: fc.record(
      {
        name: languageMap,
        description: languageMap,
        type: fc.constant('http://adlnet.gov/expapi/activities/course'),
        interactionType: fc.constant('choice'),
        correctResponsesPattern: fc.constant(['a']),
        choices: fc.constant([{ id: 'a', description: { 'en-US': 'A' } }]),
        extensions: validExtensions,
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['id'] },
);

const hostileActivity: fc.Arbitrary<unknown> = fc.oneof(
  hostileIri.map((id) => ({ id })),
  mutated({
    objectType: part(
      fc.constant('Activity'),
      fc.oneof(fc.constantFrom('activity', 'SubStatement', 'StatementRef', 'Group', ''), hostileText),
    ),
    id: part(activityId, hostileIri),
    name: part(languageMap, hostileLanguageMap),
    interactionType: part(
      fc.constant('choice'),
      fc.oneof(fc.constantFrom('fill-in', 'likert', 'numeric', 'other', 'nonsense'), hostileText),
    ),
    correctResponsesPattern: part(fc.constant(['a']), hostileJson),
    choices: part(fc.constant([{ id: 'a', description: { 'en-US': 'A' } }]), hostileJson),
    extensions: part(validExtensions, hostileExtensions),
  }).map(({ objectType, id, ...definition }) => ({ objectType, id, definition })),
);

const validResult = fc.record(
  {
    score: fc.record(
      { scaled: fc.double({ min: -1, max: 1, noNaN: true }), raw: fc.constant(5), min: fc.constant(0), max: fc.constant(10) },
      { requiredKeys: [] },
    ),
    success: fc.boolean(),
    completion: fc.boolean(),
    response: fc.string({ maxLength: 20 }),
    duration: fc.constantFrom('PT1H', 'P1Y2M3DT4H5M6.7S', 'PT0.5S'),
    extensions: validExtensions,
  },
  { requiredKeys: [] },
);

const hostileResult = mutated({
  score: part(
    fc.constant({ scaled: 0.5 }),
    fc.oneof(
      rawNumber.map((scaled) => ({ scaled })),
      rawNumber.map((raw) => ({ raw, min: 0, max: 10 })),
      fc.constant({ raw: 5, min: 10, max: 0 }),
      hostileJson.map((scaled) => ({ scaled })),
      hostileJson,
    ),
  ),
  success: part(fc.boolean(), hostileJson),
  response: part(fc.string({ maxLength: 20 }), hostileText),
  duration: part(
    fc.constant('PT1H'),
    fc.oneof(fc.constantFrom('P', 'PT', 'P1W2D', 'PT1e309S', 'PT-1S', `P${'9'.repeat(400)}Y`, 'P1.5Y'), hostileText),
  ),
  extensions: part(validExtensions, hostileExtensions),
});

const validContext = fc.record(
  {
    registration: fc.uuid(),
    instructor: validAgent,
    contextActivities: fc.record({
      parent: fc.array(
        activityId.map((id) => ({ id })),
        { maxLength: 2 },
      ),
    }),
    language: fc.constantFrom('en-US', 'fr'),
    extensions: validExtensions,
  },
  { requiredKeys: [] },
);

const hostileContext = mutated({
  registration: part(fc.uuid(), fc.oneof(fc.constantFrom('not-a-uuid', '{00000000-0000-0000-0000-000000000000}'), hostileText)),
  instructor: part(validAgent, hostileAgent),
  team: part(absent, hostileAgent),
  contextActivities: part(
    fc.constant({ parent: [{ id: ACTIVITIES[0] }] }),
    fc.oneof(
      hostileActivity.map((activity) => ({ grouping: activity })),
      hostileJson,
    ),
  ),
  revision: part(absent, fc.oneof(fc.constant('1'), hostileText)),
  platform: part(absent, fc.oneof(fc.constant('fuzz'), hostileText)),
  language: part(fc.constant('en-US'), fc.oneof(fc.constantFrom('x-\u0000', '', 'en-US-x-'), hostileText)),
  statement: part(
    absent,
    fc.oneof(
      fc.uuid().map((id) => ({ objectType: 'StatementRef', id })),
      hostileJson,
    ),
  ),
  extensions: part(validExtensions, hostileExtensions),
});

/** A valid statement: some optional parts present, all of them well formed. */
export const validStatement = fc.record(
  {
    id: fc.uuid(),
    actor: validActor,
    verb: fc.record(
      { id: fc.constantFrom(...VERBS.filter((verb) => !verb.endsWith('voided'))), display: languageMap },
      { requiredKeys: ['id'] },
    ),
    object: fc.oneof(
      { weight: 4, arbitrary: validActivity },
      { weight: 1, arbitrary: validAgent.map((agent) => ({ objectType: 'Agent', ...agent })) },
      { weight: 1, arbitrary: fc.uuid().map((id) => ({ objectType: 'StatementRef', id })) },
    ),
    result: validResult,
    context: validContext,
    timestamp: validDate,
  },
  { requiredKeys: ['actor', 'verb', 'object'] },
);

/** A statement with one or two of its parts hostile: the rest valid, so the validator and the store see the hostile one. */
export const hostileStatement: fc.Arbitrary<Record<string, unknown>> = mutated({
  id: part(
    fc.option(fc.uuid(), { nil: undefined }),
    fc.oneof(fc.constantFrom('not-a-uuid', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', ''), hostileText, hostileJson),
  ),
  actor: part(validActor, hostileAgent, 2),
  verb: part(
    fc.constant({ id: VERBS[0], display: { 'en-US': 'completed' } }),
    fc.oneof(
      hostileLanguageMap.map((display) => ({ id: VERBS[0], display })),
      hostileIri.map((id) => ({ id })),
      fc.constant({ id: VERBS[1] }),
      hostileJson,
    ),
  ),
  object: part(
    validActivity,
    fc.oneof(
      { weight: 3, arbitrary: hostileActivity },
      {
        weight: 1,
        arbitrary: hostileAgent.map((agent) => (typeof agent === 'object' && agent !== null ? { objectType: 'Agent', ...agent } : agent)),
      },
      { weight: 1, arbitrary: fc.oneof(fc.uuid(), hostileText).map((id) => ({ objectType: 'StatementRef', id })) },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.oneof(validAgent, hostileAgent), fc.oneof(validActivity, hostileActivity)).map(([actor, object]) => ({
          objectType: 'SubStatement',
          actor,
          verb: { id: VERBS[0] },
          object,
        })),
      },
      { weight: 1, arbitrary: hostileJson },
    ),
    2,
  ),
  result: part(
    fc.option(validResult, { nil: undefined }),
    fc.oneof({ weight: 4, arbitrary: hostileResult }, { weight: 1, arbitrary: hostileJson }),
    2,
  ),
  context: part(
    fc.option(validContext, { nil: undefined }),
    fc.oneof({ weight: 4, arbitrary: hostileContext }, { weight: 1, arbitrary: hostileJson }),
    2,
  ),
  timestamp: part(fc.option(validDate, { nil: undefined }), fc.oneof(hostileDate, hostileText)),
  stored: part(absent, fc.oneof(validDate, hostileDate)),
  authority: part(absent, fc.oneof(validAgent, hostileAgent)),
  version: part(absent, fc.oneof(fc.constantFrom('1.0.0', '1.0.3', '2.0.0', '2.0.99', '3.0.0'), hostileText)),
  attachments: part(
    absent,
    fc.oneof(
      fc.constant([
        {
          usageType: 'http://example.com/u',
          display: { 'en-US': 'a' },
          contentType: 'text/plain',
          length: 1,
          sha2: 'a'.repeat(64),
          fileUrl: 'http://example.com/f',
        },
      ]),
      fc.constant([
        { usageType: 'http://example.com/u', display: { 'en-US': 'a' }, contentType: 'text/plain', length: 1, sha2: 'a'.repeat(64) },
      ]),
      hostileJson,
    ),
  ),
  extra: part(absent, hostileJson),
});

/** A 10,000-deep value in a statement's extensions, built as text: no arbitrary nests that deep. */
const deepStatement = fc
  .constantFrom(DEEP_ARRAY, DEEP_OBJECT)
  .map(
    (deep) =>
      `{"actor":{"mbox":"mailto:a@example.com"},"verb":{"id":"http://adlnet.gov/expapi/verbs/completed"},` +
      `"object":{"id":"http://example.com/a"},"result":{"extensions":{"http://example.com/deep":${deep}}}}`,
  );

function statementBody(batch: boolean): Part<Body> {
  // PUT names the id in the query: a valid body has none (or the same).
  const withoutId = validStatement.map(({ id: _id, ...statement }) => statement);
  const valid = batch
    ? fc.oneof(
        { weight: 3, arbitrary: validStatement.map(toJson) },
        { weight: 1, arbitrary: fc.array(validStatement, { minLength: 1, maxLength: 3 }).map(toJson) },
      )
    : withoutId.map(toJson);
  const hostile = fc.oneof(
    { weight: 6, arbitrary: hostileStatement.map(toJson) },
    {
      weight: batch ? 2 : 0,
      arbitrary: fc.tuple(fc.array(validStatement, { maxLength: 2 }), hostileStatement).map(([good, bad]) => toJson([...good, bad])),
    },
    { weight: batch ? 1 : 0, arbitrary: fc.constantFrom('[]', '[null]', '[[]]', '[{}]') },
    {
      weight: batch ? 1 : 0,
      arbitrary: fc.uuid().map((id) =>
        toJson([
          { id, actor: { mbox: MBOXES[0] }, verb: { id: VERBS[0] }, object: { id: ACTIVITIES[0] } },
          { id, actor: { mbox: MBOXES[0] }, verb: { id: VERBS[0] }, object: { id: ACTIVITIES[1] } },
        ]),
      ),
    },
    { weight: 1, arbitrary: deepStatement },
  );
  return body(valid, JSON_TYPES, hostile);
}

// ---------------------------------------------------------------------------------------------
// The routes

const boolean = fc.constantFrom('true', 'false');
const hostileBoolean = fc.constantFrom('1', '0', 'yes', 'TRUE', '', 'null');

function statementsQuery(): Record<string, Part<string[]>> {
  return {
    statementId: param('statementId', fc.uuid(), { hostile: uuidish, rare: true }),
    voidedStatementId: param('voidedStatementId', fc.uuid(), { hostile: uuidish, rare: true }),
    agent: param('agent', agentParameter, { hostile: hostileAgentParameter, weight: 3 }),
    verb: param('verb', fc.constantFrom(...VERBS), { hostile: hostileIri }),
    activity: param('activity', activityId, { hostile: hostileIri }),
    registration: param('registration', fc.uuid(), { hostile: uuidish }),
    related_activities: param('related_activities', boolean, { hostile: hostileBoolean, weight: 1 }),
    related_agents: param('related_agents', boolean, { hostile: hostileBoolean, weight: 1 }),
    since: param('since', validDate, { hostile: hostileDate, weight: 3 }),
    until: param('until', validDate, { hostile: hostileDate, weight: 3 }),
    limit: param('limit', fc.nat({ max: 200 }).map(String), { hostile: hostileNumber, weight: 3 }),
    format: param('format', fc.constantFrom('exact', 'ids', 'canonical'), { hostile: fc.constantFrom('EXACT', '', 'all') }),
    attachments: param('attachments', fc.constant('false'), { hostile: fc.constantFrom('true', '1'), weight: 1 }),
    ascending: param('ascending', boolean, { hostile: hostileBoolean, weight: 1 }),
    cursor: param('cursor', fc.constantFrom(''), {
      rare: true,
      hostile: fc.oneof(hostileText, fc.base64String({ maxLength: 60 }), hostileText.map(base64)),
      weight: 2,
    }),
  };
}

interface DocumentRoute {
  path: string;
  idParameter: 'stateId' | 'profileId';
  byActivity: boolean;
  byAgent: boolean;
  hasRegistration: boolean;
}

function documentQuery(resource: DocumentRoute, method: string): Record<string, Part<string[]>> {
  const query: Record<string, Part<string[]>> = {};
  if (resource.byActivity) query.activityId = param('activityId', activityId, { required: true, hostile: hostileIri, weight: 3 });
  if (resource.byAgent) {
    query.agent = param('agent', agentParameter, { required: true, hostile: hostileAgentParameter, weight: 3 });
    query.actorId = part(
      fc.constant([]),
      fc.oneof(actorIdParameter, hostileActorId).map((value) => [`actorId=${percentEncode(value)}`]),
      2,
    );
  }
  if (resource.hasRegistration)
    query.registration = param('registration', fc.constantFrom('0e6a3fb6-6a5f-4d1c-8a3b-2b0f7f0f2a11'), { hostile: uuidish });
  const ids = fc.constantFrom('doc', 'bookmark', 'a/b', '\u00e9');
  // GET and DELETE of state also work without the id (list, delete all); PUT and POST need it.
  const needsId = method === 'PUT' || method === 'POST' || (method === 'DELETE' && !resource.hasRegistration);
  query[resource.idParameter] = param(resource.idParameter, ids, {
    required: needsId,
    hostile: fc.oneof(hostileText, fc.constant('x'.repeat(5_000)), longIndexedText),
    weight: 3,
  });
  query.since = param('since', validDate, { hostile: hostileDate, weight: method === 'GET' ? 3 : 1 });
  return query;
}

const documentJson = fc.oneof(
  { weight: 5, arbitrary: fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
  { weight: 1, arbitrary: protoKeyedValue },
);

/** A document: JSON (what POST merges) or bytes; hostile: hostile JSON objects, deep nesting, invalid JSON. */
function documentBody(method: string): Part<Body> {
  const jsonObject = fc.oneof(
    hostileJson.map((value) => toJson(typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { a: value })),
    hostileText.map((text) => toJson({ [text]: text })),
    fc.constantFrom(
      `{"a":${DEEP_OBJECT}}`,
      `{"a":${DEEP_ARRAY}}`,
      DEEP_OBJECT,
      '{"\\u0000":1}',
      '{"a":"\\ud800"}',
      '{"a":"\\u0000"}',
      '{"a":1e309}',
      '{"__proto__":{"x":1}}',
    ),
  );
  if (method === 'PUT' || method === 'POST') {
    return part(
      fc.oneof(
        { weight: 3, arbitrary: fc.record({ payload: documentJson.map(toJson), contentType: fc.constantFrom(...JSON_TYPES) }) },
        {
          weight: 1,
          arbitrary: fc.record({
            payload: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
            contentType: fc.constantFrom('application/octet-stream', 'text/plain'),
          }),
        },
      ),
      fc.oneof(
        { weight: 5, arbitrary: fc.record({ payload: jsonObject, contentType: fc.constantFrom(...JSON_TYPES) }) },
        {
          weight: 2,
          arbitrary: fc.record({ payload: hostileBody, contentType: fc.oneof(fc.constantFrom(...JSON_TYPES), oddContentType) }),
        },
        { weight: 1, arbitrary: fc.record({ payload: documentJson.map(toJson), contentType: oddContentType }) },
        {
          weight: 1,
          arbitrary: fc.record({ contentType: fc.oneof(fc.constantFrom(...JSON_TYPES), oddContentType) }, { requiredKeys: [] }),
        },
      ),
      6,
    );
  }
  return part(
    fc.constant({}),
    fc.record({ payload: fc.oneof(jsonObject, hostileBody), contentType: fc.oneof(fc.constantFrom(...JSON_TYPES), oddContentType) }),
  );
}

function documentRoute(resource: DocumentRoute, method: string): RouteFuzzer {
  return (ctx) =>
    route({
      method,
      path: resource.path,
      query: documentQuery(resource, method),
      headers: {
        ...apiHeaders(ctx, true),
        'if-match': header(method === 'GET' ? absent : fc.constantFrom(undefined, undefined, '"no-such-etag"'), etag),
        'if-none-match': header(method === 'PUT' ? fc.constantFrom(undefined, '*') : absent, etag),
      },
      body: documentBody(method),
    });
}

const STATE: DocumentRoute = {
  path: '/xapi/activities/state',
  idParameter: 'stateId',
  byActivity: true,
  byAgent: true,
  hasRegistration: true,
};
const ACTIVITY_PROFILE: DocumentRoute = {
  path: '/xapi/activities/profile',
  idParameter: 'profileId',
  byActivity: true,
  byAgent: false,
  hasRegistration: false,
};
const AGENT_PROFILE: DocumentRoute = {
  path: '/xapi/agents/profile',
  idParameter: 'profileId',
  byActivity: false,
  byAgent: true,
  hasRegistration: false,
};

/** A route with nothing to address: only its query (unknown parameters), headers and a stray body vary. */
function plainRoute(method: string, path: string, headers: (ctx: FuzzContext) => Record<string, Part<string | undefined>>): RouteFuzzer {
  return (ctx) => route({ method, path, headers: headers(ctx) });
}

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

/**
 * OAuth request fields as one body part: a form (RFC 6749) or JSON (the interface), every field
 * valid; hostile: one or two fields hostile (as text, or in JSON as any value), or a hostile body.
 */
function oauthBody(fields: Record<string, Part<string | undefined>>): Part<Body> {
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

const field = (valid: fc.Arbitrary<string | undefined>, hostile: fc.Arbitrary<string | undefined> = hostileText) => part(valid, hostile);

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

/** A path segment under a folder of static files: `names` in it, traversal and encoded oddities, hostile text. */
const staticSegment = (...names: string[]) =>
  fc.oneof(
    fc.constantFrom(
      ...names,
      '..',
      '.',
      '%2e%2e',
      '%2E%2E%2F',
      '..%2f..%2fetc%2fpasswd',
      '..%2f..%2fpackage.json',
      '%00',
      '%',
      '%zz',
      '',
      'x'.repeat(300),
    ),
    hostileText.map(percentEncode),
  );

/** The API reference's static files: paths under /docs/, with traversal and encoded oddities. */
function docsWildcardRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const segment = staticSegment('static', 'index.html', 'swagger-ui.css', 'favicon-32x32.png');
  return route({
    method: 'GET',
    path: fc.array(segment, { minLength: 1, maxLength: 4 }).map((segments) => `/docs/${segments.join('/')}`),
    headers: publicHeaders(ctx),
  });
}

/**
 * The console's page and files: deep links, asset names known and not, traversal and encoded
 * oddities, with hostile Accept-Encoding and If-None-Match.
 */
function consoleWildcardRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const segment = staticSegment('assets', 'people', 'reports', 'index.html');
  return route({
    method: 'GET',
    path: fc.array(segment, { minLength: 0, maxLength: 4 }).map((segments) => `/console/${segments.join('/')}`),
    query: { tenant: param('tenant', fc.constantFrom(ctx.tenant.name, 'acme'), { hostile: hostileText }) },
    headers: {
      ...publicHeaders(ctx),
      'accept-encoding': header(fc.constantFrom(undefined, 'gzip, deflate, br', 'br;q=0, gzip;q=0', 'identity'), hostileHeader),
      'if-none-match': header(fc.constant(undefined), fc.oneof(absent, fc.constant('*'), hostileHeader)),
    },
  });
}

/** The rendered guides: known names, unknown ones, traversal and encoded oddities, with or without If-None-Match. */
function guideRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const name = fc.oneof(
    fc.constantFrom(
      'oauth',
      'operations',
      'nothing',
      'OAUTH',
      'oauth.md',
      '..%2Fpackage.json',
      '%2e%2e',
      '%00',
      '%',
      '%zz',
      'x'.repeat(300),
    ),
    hostileText.map(percentEncode),
  );
  return route({
    method: 'GET',
    path: name.map((page) => `/docs/guides/${page}`),
    headers: { ...publicHeaders(ctx), 'if-none-match': header(fc.constant(undefined), fc.oneof(absent, fc.constant('*'), hostileHeader)) },
  });
}

/**
 * CORS preflight on any path: the plugin answers it before routing, for /xapi/ through the routes
 * that carry the xAPI CORS options (xapi.plugin.ts), elsewhere through its own, which refuses.
 */
function preflightRoute(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return route({
    method: 'OPTIONS',
    path: fc.oneof(
      fc.constantFrom(
        '/xapi/statements',
        '/xapi/activities/state',
        '/api/me',
        '/auth/oauth/token',
        '/',
        '/xapi',
        '/nowhere',
        '/%00',
        '/%zz',
      ),
      hostileText.map((text) => `/xapi/${percentEncode(text)}`),
    ),
    headers: {
      ...publicHeaders(ctx),
      origin: header(fc.constant('http://example.com'), fc.oneof(absent, fc.constant('null'), hostileHeader)),
      'access-control-request-method': header(
        fc.constantFrom('PUT', 'GET'),
        fc.oneof(absent, fc.constantFrom('TRACE', 'get'), hostileHeader),
      ),
      'access-control-request-headers': header(
        fc.constantFrom(undefined, 'authorization, content-type, x-experience-api-version'),
        hostileHeader,
      ),
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Imports, settings and actors

const attributeName = fc.oneof(fc.constantFrom('email', 'employeeId', 'positionNumber', 'jobCode', 'city'), hostileText);
const attributeMap = fc.dictionary(
  attributeName,
  fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 1, arbitrary: hostileText }),
  { maxKeys: 4 },
);
const entryId = fc.oneof(fc.constantFrom('P1', 'P2', 'P3', 'J1', 'J2'), fc.string({ minLength: 1, maxLength: 8 }));
/** A valid-looking array of `entry`, or the same mixed with hostile values, or hostile JSON. */
const arrayBody = (entry: fc.Arbitrary<unknown>) =>
  body(
    fc.array(entry, { maxLength: 6 }).map(toJson),
    JSON_TYPES,
    fc.oneof(hostileJson.map(toJson), fc.array(fc.oneof(entry, hostileJson), { minLength: 1, maxLength: 6 }).map(toJson)),
  );

const organisationEntry = fc.record(
  { id: entryId, parentId: fc.oneof(entryId, fc.constant(null)), attributes: attributeMap },
  { requiredKeys: ['id'] },
);
const competency = fc.record(
  { Name: fc.string({ minLength: 1, maxLength: 12 }), Description: fc.string({ maxLength: 20 }) },
  { requiredKeys: ['Name'] },
);
const jobEntry = fc.record(
  {
    id: entryId,
    name: fc.string({ minLength: 1, maxLength: 12 }),
    competencies: fc.array(competency, { maxLength: 3 }),
    attributes: attributeMap,
  },
  { requiredKeys: ['id', 'name'] },
);
const importedUser = fc.record({
  name: fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), hostileText),
  attributes: fc.record(
    { email: fc.emailAddress(), employeeId: fc.stringMatching(/^E\d{1,4}$/), positionNumber: entryId, jobCode: entryId },
    { requiredKeys: [] },
  ),
});
const usersBody = body(
  fc.record({ users: fc.array(importedUser, { maxLength: 6 }), verify: fc.boolean() }, { requiredKeys: ['users'] }).map(toJson),
  JSON_TYPES,
  fc.oneof(
    hostileJson.map(toJson),
    fc
      .record(
        { users: fc.array(fc.oneof(importedUser, hostileJson), { minLength: 1, maxLength: 6 }), verify: hostileJson },
        { requiredKeys: ['users'] },
      )
      .map(toJson),
  ),
);
const settingsBody = body(
  fc
    .record(
      {
        uniqueAttributes: fc.uniqueArray(fc.constantFrom('email', 'employeeId'), { minLength: 1, maxLength: 2 }),
        accountHomePage: fc.constantFrom('https://people.example.com', 'http://localhost:8080'),
        organisationAttribute: fc.constantFrom('positionNumber', null),
        jobAttribute: fc.constantFrom('jobCode', null),
        positionJobAttribute: fc.constantFrom('jobCode', 'job', null),
      },
      { requiredKeys: [] },
    )
    .map(toJson),
  JSON_TYPES,
  fc.oneof(
    hostileJson.map(toJson),
    fc
      .dictionary(
        fc.constantFrom('uniqueAttributes', 'accountHomePage', 'organisationAttribute', 'jobAttribute', 'positionJobAttribute', 'other'),
        hostileJson,
      )
      .map(toJson),
  ),
);
const pageQuery = () => ({
  limit: param('limit', fc.integer({ min: 1, max: 1000 }).map(String), {
    hostile: fc.constantFrom('0', '-1', '1e2', 'Infinity', '99999999999999999999'),
  }),
  skip: param('skip', fc.integer({ min: 0, max: 50 }).map(String), { hostile: fc.constantFrom('-1', '0x10', '1.5') }),
});

/** `?verify=` of the organisation and jobs imports: a check only (200 with what would change) or the import (204). */
const verifyQuery = () =>
  param('verify', fc.constantFrom('true', 'false'), { hostile: fc.constantFrom('', 'TRUE', '1', 'yes', 'true ', 'null') });

/** `kind` of the actor lists (issue 25): people, authorities or all. */
const actorKind = () =>
  param('kind', fc.constantFrom('people', 'authorities', 'deactivated', 'all'), {
    hostile: fc.constantFrom('', 'People', 'groups', 'all,people', 'x'.repeat(300)),
  });

const IMPORT_FUZZERS: Record<string, RouteFuzzer> = {
  'PUT /api/import/organisation': (ctx) =>
    route({
      method: 'PUT',
      path: '/api/import/organisation',
      query: { verify: verifyQuery() },
      headers: apiHeaders(ctx, false),
      body: arrayBody(organisationEntry),
    }),
  'PUT /api/import/jobs': (ctx) =>
    route({
      method: 'PUT',
      path: '/api/import/jobs',
      query: { verify: verifyQuery() },
      headers: apiHeaders(ctx, false),
      body: arrayBody(jobEntry),
    }),
  'POST /api/import/users': (ctx) => route({ method: 'POST', path: '/api/import/users', headers: apiHeaders(ctx, false), body: usersBody }),
  'GET /api/import/history': (ctx) =>
    route({ method: 'GET', path: '/api/import/history', query: pageQuery(), headers: apiHeaders(ctx, false) }),
  'GET /api/organisation': (ctx) =>
    route({
      method: 'GET',
      path: '/api/organisation',
      query: { id: param('id', entryId), format: param('format', fc.constantFrom('tree', 'flat')) },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/jobs': plainRoute('GET', '/api/jobs', (ctx) => apiHeaders(ctx, false)),
  'GET /api/settings': plainRoute('GET', '/api/settings', (ctx) => apiHeaders(ctx, false)),
  'PUT /api/settings': (ctx) => route({ method: 'PUT', path: '/api/settings', headers: apiHeaders(ctx, false), body: settingsBody }),
  'GET /api/actors': (ctx) =>
    route({ method: 'GET', path: '/api/actors', query: { ...pageQuery(), kind: actorKind() }, headers: apiHeaders(ctx, false) }),
};

/** The audit log (issue 14). */
const AUDIT_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/audit': (ctx) =>
    route({
      method: 'GET',
      path: '/api/audit',
      query: {
        agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
        source: param('source', fc.constantFrom('hr-sync', 'crm')),
        action: param('action', fc.constantFrom('actor.created', 'launch'), { hostile: hostileText }),
        since: param('since', validDate, { hostile: hostileDate }),
        until: param('until', validDate, { hostile: hostileDate }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/audit/actions': plainRoute('GET', '/api/audit/actions', (ctx) => apiHeaders(ctx, false)),
};

/** The competency catalogue (issue 28): names the fuzz tenant may have, in any case. */
const competencyName = fc.constantFrom('Fire safety', 'FIRE SAFETY', 'TypeScript', 'Ärger', 'ärger');
const competencyEntry = fc.record(
  {
    name: fc.oneof(competencyName, fc.string({ maxLength: 12 }), hostileText, fc.constant('x'.repeat(1001))),
    description: fc.oneof(fc.string({ maxLength: 20 }), hostileText),
  },
  { requiredKeys: [] },
);
/** A CASE framework's item (issue 28): the fields the import reads, sometimes null, long or hostile, and others it does not. */
const caseText = fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null), hostileText, fc.constant('x'.repeat(1001)));
const caseItem = fc.record(
  {
    identifier: fc.oneof(fc.uuid(), caseText),
    fullStatement: fc.oneof(competencyName, fc.string({ maxLength: 20 }), hostileText, fc.constant('y'.repeat(10_001))),
    abbreviatedStatement: fc.oneof(competencyName, caseText),
    humanCodingScheme: caseText,
    CFItemType: fc.oneof(fc.constantFrom('Competency', 'Skill', 'Domain'), caseText),
    educationLevel: fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
/** A CFPackage: a document, items, associations; or hostile JSON, or items mixed with it. */
const casePackage = () =>
  body(
    fc
      .record(
        {
          CFDocument: fc.record({ identifier: fc.oneof(fc.uuid(), caseText), title: caseText }, { requiredKeys: [] }),
          CFItems: fc.array(caseItem, { maxLength: 5 }),
          CFAssociations: fc.array(fc.record({ associationType: fc.constantFrom('isChildOf', 'exactMatchOf') }), { maxLength: 2 }),
        },
        { requiredKeys: ['CFItems'] },
      )
      .map(toJson),
    JSON_TYPES,
    fc.oneof(
      hostileJson.map(toJson),
      fc.array(fc.oneof(caseItem, hostileJson), { minLength: 1, maxLength: 4 }).map((items) => toJson({ CFItems: items })),
    ),
  );
/** Skills gaps and recommendations (issue 28): whose, against which job; jobs and entries the fuzz tenant may have. */
const gapJobId = fc.oneof(fc.constantFrom('J1', 'J2', 'J-ENG'), fc.string({ minLength: 1, maxLength: 8 }));
const personQuery = () => ({
  agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
  actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
  target: param('target', fc.constantFrom('current', 'next'), { hostile: fc.constantFrom('previous', 'NEXT', '') }),
  jobId: param('jobId', gapJobId, { hostile: fc.constantFrom('', 'x'.repeat(256), 'J1\u0000') }),
});
/** The group body; built when a request is, since the search's criteria generators come later in this file. */
const groupBody = () =>
  body(
    fc
      .record(
        {
          people: fc.oneof(fc.record({ organisationId: entryId }), fc.record({ jobId: gapJobId }), fc.record({ criteria: searchCriteria })),
          jobId: gapJobId,
        },
        { requiredKeys: ['people'] },
      )
      .map(toJson),
    JSON_TYPES,
    fc.oneof(
      hostileJson.map(toJson),
      hostileJson.map((people) => toJson({ people })),
      hostileText.map((text) => toJson({ people: { organisationId: text } })),
      hostileText.map((text) => toJson({ people: { jobId: 'J1' }, jobId: text })),
      hostileJson.map((value) => toJson({ people: { jobId: value } })),
      hostileCriteria.map((criteria) => toJson({ people: { criteria } })),
      fc.constantFrom(
        toJson({ people: { organisationId: 'P1', jobId: 'J1' } }),
        toJson({ people: {} }),
        toJson({ people: { organisationId: 'P1' }, extra: 1 }),
        toJson({ people: { jobId: 'x'.repeat(256) } }),
        `{"people":{"criteria":${'{"not":'.repeat(5_000)}{}${'}'.repeat(5_000)}}}`,
      ),
    ),
  );
/** The reports (issue 28, item 6): their filters, date ranges and the Accept that picks JSON or CSV. */
function REPORT_FUZZERS(): Record<string, RouteFuzzer> {
  const people = () => ({
    // The fuzz tenant has no organisation or jobs: any value is a 404, so valid requests leave them out.
    organisationId: param('organisationId', fc.constantFrom('CEO', 'P1'), { rare: true }),
    jobId: param('jobId', fc.constantFrom('J1', 'J-ENG'), { rare: true }),
    activityId: param('activityId', fc.constantFrom(...ACTIVITIES), { hostile: iriish }),
  });
  const accept = header(
    fc.constantFrom(undefined, 'text/csv', 'application/json', '*/*', 'text/*', 'application/json;q=0.5, text/csv'),
    fc.oneof(fc.constantFrom('application/xml', 'text/csv;q=0', '*/*;q=0', 'garbage', 'text/csv;q=2', '*/csv', ',,,'), hostileHeader),
  );
  const headers = (ctx: FuzzContext) => ({ ...apiHeaders(ctx, false), accept });
  // `from` in the first half of 2026, `to` in the second: valid unless a hostile part says otherwise.
  const day = (first: number) =>
    fc.integer({ min: first, max: first + 180 }).map((offset) => new Date(Date.UTC(2026, 0, 1 + offset)).toISOString().slice(0, 10));
  const hostileDay = fc.constantFrom('2026-02-30', '0000-01-01', '9999-12-31', '2026-1-1', '2026-01-01T00:00:00Z', '20260101', '1e3', '');
  /** The day `offset` days after the first of `year`, a common year as 1 and 9999 are (Date.UTC reads years 0-99 as 1900-1999). */
  const dayOfYear = (year: number, offset: number) => {
    const date = new Date(Date.UTC(2001, 0, 1 + offset));
    date.setUTCFullYear(year + date.getUTCFullYear() - 2001);
    return date.toISOString().slice(0, 10);
  };
  // Ranges at the calendar's edges, from and to together: in year 1, and in year 9999 up to its
  // last day (weeks widen the latter into year 10000, which must be a 400, never a 500).
  const edgeRange = fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 40 })).map(([a, b]) => [dayOfYear(1, a), dayOfYear(1, a + b)]),
    fc
      .tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 40 }))
      .map(([a, b]) => [dayOfYear(9999, 364 - a - b), dayOfYear(9999, 364 - a)]),
  );
  const from = param('from', day(0), { required: true, hostile: hostileDay });
  const to = param('to', day(182), { required: true, hostile: hostileDay });
  const range: Part<string[]> = part(
    fc
      .oneof({ weight: 1, arbitrary: fc.tuple(day(0), day(182)) }, { weight: 1, arbitrary: edgeRange })
      .map(([first, last]) => [`from=${first}`, `to=${last}`]),
    fc.oneof(
      fc.tuple(from.hostile, to.valid).map(([first, last]) => [...first, ...last]),
      fc.tuple(from.valid, to.hostile).map(([first, last]) => [...first, ...last]),
    ),
    4,
  );
  const completion = (path: string) => (ctx: FuzzContext) =>
    route({
      method: 'GET',
      path,
      query: { ...people(), tag: param('tag', fc.constantFrom('mandatory', 'safety'), { hostile: hostileText }) },
      headers: headers(ctx),
    });
  return {
    'GET /api/reports/completion-by-unit': completion('/api/reports/completion-by-unit'),
    'GET /api/reports/completion-by-job': completion('/api/reports/completion-by-job'),
    'GET /api/reports/completion-by-activity': completion('/api/reports/completion-by-activity'),
    'GET /api/reports/activity-over-time': (ctx) =>
      route({
        method: 'GET',
        path: '/api/reports/activity-over-time',
        query: {
          range,
          interval: param('interval', fc.constantFrom('day', 'week'), { hostile: fc.constantFrom('month', 'DAY', 'weeks') }),
          ...people(),
        },
        headers: headers(ctx),
      }),
    'GET /api/reports/assignment-compliance': (ctx) =>
      route({
        method: 'GET',
        path: '/api/reports/assignment-compliance',
        // An assignment the fuzz tenant may not have is a 404: valid requests mostly leave it out.
        query: { ...people(), assignmentId: param('assignmentId', fc.uuid(), { rare: true, hostile: uuidish }) },
        headers: headers(ctx),
      }),
  };
}

const LEARNING_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/skills-gap': (ctx) => route({ method: 'GET', path: '/api/skills-gap', query: personQuery(), headers: apiHeaders(ctx, false) }),
  'POST /api/skills-gap/group': (ctx) =>
    route({ method: 'POST', path: '/api/skills-gap/group', headers: apiHeaders(ctx, false), body: groupBody() }),
  'GET /api/recommendations': (ctx) =>
    route({
      method: 'GET',
      path: '/api/recommendations',
      query: {
        ...personQuery(),
        limit: param('limit', fc.integer({ min: 1, max: 100 }).map(String), { hostile: fc.constantFrom('0', '101', '-1', '1.5', 'ten') }),
      },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/competencies': (ctx) =>
    route({
      method: 'GET',
      path: '/api/competencies',
      query: { q: param('q', fc.oneof(competencyName, fc.string({ maxLength: 5 })), { hostile: hostileText }), ...pageQuery() },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/competencies/item': (ctx) =>
    route({
      method: 'GET',
      path: '/api/competencies/item',
      query: { id: param('id', fc.uuid(), { required: true, hostile: uuidish, weight: 4 }) },
      headers: apiHeaders(ctx, false),
    }),
  'PUT /api/competencies': (ctx) =>
    route({ method: 'PUT', path: '/api/competencies', headers: apiHeaders(ctx, false), body: arrayBody(competencyEntry) }),
  'PUT /api/competencies/case': (ctx) =>
    route({
      method: 'PUT',
      path: '/api/competencies/case',
      query: {
        itemTypes: param('itemTypes', fc.constantFrom('Competency', 'skill,Competency', ' , Domain'), {
          hostile: fc.oneof(hostileText, fc.constantFrom('', ',', 'x'.repeat(2001))),
        }),
      },
      headers: apiHeaders(ctx, false),
      body: casePackage(),
    }),
  'POST /api/assignments': (ctx) =>
    route({ method: 'POST', path: '/api/assignments', headers: apiHeaders(ctx, false), body: assignmentBody() }),
  'GET /api/assignments': (ctx) => route({ method: 'GET', path: '/api/assignments', query: pageQuery(), headers: apiHeaders(ctx, false) }),
  'GET /api/assignments/item': (ctx) =>
    route({ method: 'GET', path: '/api/assignments/item', query: { id: assignmentIdParam() }, headers: apiHeaders(ctx, false) }),
  'PUT /api/assignments/item': (ctx) =>
    route({
      method: 'PUT',
      path: '/api/assignments/item',
      query: { id: assignmentIdParam() },
      headers: apiHeaders(ctx, false),
      body: assignmentBody(),
    }),
  'DELETE /api/assignments/item': (ctx) =>
    route({ method: 'DELETE', path: '/api/assignments/item', query: { id: assignmentIdParam() }, headers: apiHeaders(ctx, false) }),
  'GET /api/assignments/people': (ctx) =>
    route({
      method: 'GET',
      path: '/api/assignments/people',
      query: {
        id: assignmentIdParam(),
        status: param('status', fc.constantFrom('assigned', 'inProgress', 'completed,completedLate', 'overdue,assigned'), {
          hostile: fc.constantFrom('', ',', 'late', 'in-progress', 'Completed', 'overdue,,assigned', 'x'.repeat(5_000)),
        }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/actors/assignments': (ctx) =>
    route({
      method: 'GET',
      path: '/api/actors/assignments',
      query: {
        agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
      },
      headers: apiHeaders(ctx, false),
    }),
  // Managers' reports (issue 28, item 5): a learner credential's own, or the person an admin or key names.
  'GET /api/actors/reports': (ctx) =>
    route({
      method: 'GET',
      path: '/api/actors/reports',
      query: {
        agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
  ...REPORT_FUZZERS(),
};

/**
 * Learning assignments (issue 28, item 4): bodies mostly valid for the fuzz tenant (its learner,
 * its launch activity, the search's criteria), or hostile in each part. Built when a route is
 * fuzzed: the criteria generators are defined further down this file.
 */
const assignmentIdParam = () => param('id', fc.uuid(), { required: true, hostile: uuidish, weight: 4 });
let hugeAssignment: string | undefined;
function assignmentBody(): Part<Body> {
  const people = fc.oneof(
    fc.record({
      actorIds: fc.oneof(fc.constant([`mbox|${LEARNER_MBOX}`]), fc.uniqueArray(actorIdParameter, { minLength: 1, maxLength: 3 })),
    }),
    fc.record({ criteria: searchCriteria }),
    fc.record({ organisationId: entryId }),
    fc.record({ jobId: entryId }),
  );
  const valid = fc.record(
    {
      name: fc.oneof(fc.constantFrom('Fire safety 2027', 'Induction'), fc.string({ minLength: 1, maxLength: 20 })),
      activityIds: fc.oneof(fc.constant([LAUNCH_ACTIVITY]), fc.uniqueArray(activityId, { minLength: 1, maxLength: 3 })),
      people,
      dueAt: fc.oneof(validDate, fc.constant(null)),
    },
    { requiredKeys: ['name', 'activityIds', 'people'] },
  );
  const hostilePeople = fc.oneof(
    hostileJson,
    fc.constant({}),
    fc.record({ criteria: hostileCriteria }),
    fc.record({ actorIds: fc.oneof(hostileJson, fc.array(fc.oneof(hostileActorId, actorIdParameter, hostileJson), { maxLength: 4 })) }),
    fc.record({ organisationId: fc.oneof(hostileText, longIndexedText, hostileJson) }),
    fc.record({ jobId: fc.oneof(hostileText, longIndexedText, hostileJson) }),
    fc.record({ criteria: searchCriteria, jobId: entryId }),
    fc.dictionary(hostileText, hostileJson, { minKeys: 1, maxKeys: 2 }),
  );
  hugeAssignment ??= toJson({
    name: 'Huge',
    activityIds: [LAUNCH_ACTIVITY],
    people: { actorIds: Array.from({ length: 50_001 }, (_, i) => `mbox|mailto:p${i}@example.com`) },
  });
  const hostile = fc.oneof(
    hostileJson.map(toJson),
    fc
      .record(
        {
          name: fc.oneof(hostileText, hostileJson, fc.constant('x'.repeat(1_001))),
          activityIds: fc.oneof(hostileJson, fc.array(fc.oneof(activityId, hostileIri, hostileJson), { maxLength: 4 })),
          people: hostilePeople,
          dueAt: fc.oneof(hostileDate, hostileJson),
        },
        { requiredKeys: [] },
      )
      .map(toJson),
    fc
      .tuple(valid, fc.constantFrom('name', 'activityIds', 'people', 'dueAt', 'extra'), hostileJson)
      .map(([sent, key, value]) => toJson({ ...sent, [key]: value })),
    fc.tuple(valid, hostilePeople).map(([sent, people]) => toJson({ ...sent, people })),
    fc.constant(hugeAssignment),
    fc.constant(toJson({ name: 'Many', activityIds: Array.from({ length: 1_001 }, (_, i) => `urn:x:${i}`), people: { criteria: {} } })),
  );
  return body(valid.map(toJson), JSON_TYPES, hostile);
}

/** The activities registry (issue 14). */
const mostly = (valid: fc.Arbitrary<unknown>, hostile: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostile });
const registryId = fc.oneof(fc.constantFrom(...ACTIVITIES), fc.constantFrom('http://example.com/reg/a', 'http://example.com/reg/b'));
const registryEntry = fc.record(
  {
    id: mostly(registryId, hostileIri),
    definition: fc.record(
      {
        name: mostly(languageMap, hostileLanguageMap),
        description: languageMap,
        type: mostly(activityId, hostileIri),
        extensions: mostly(validExtensions, hostileExtensions),
      },
      { requiredKeys: [] },
    ),
    attributes: attributeMap,
    tags: fc.array(fc.oneof(fc.constantFrom('mandatory', 'safety'), hostileText), { maxLength: 3 }),
    parentId: fc.oneof(registryId, fc.constant(null), hostileIri),
    launchUrl: fc.oneof(
      fc.constantFrom(
        'https://content.example.com/a/index.html',
        'http://127.0.0.1:8080/x',
        'ftp://x.example/y',
        'javascript:alert(1)',
        '/relative',
      ),
      hostileIri,
    ),
    competencies: fc.array(fc.oneof(competencyName, fc.string({ minLength: 1, maxLength: 12 }), hostileText), { maxLength: 3 }),
    requiresSuccess: fc.oneof(fc.boolean(), fc.constantFrom<unknown>('true', 1, null)),
  },
  { requiredKeys: ['id', 'definition'] },
);
const ACTIVITY_FUZZERS: Record<string, RouteFuzzer> = {
  'PUT /api/activities': (ctx) =>
    route({ method: 'PUT', path: '/api/activities', headers: apiHeaders(ctx, false), body: arrayBody(registryEntry) }),
  'GET /api/activities': (ctx) =>
    route({
      method: 'GET',
      path: '/api/activities',
      query: {
        tag: param('tag', fc.constantFrom('mandatory', 'safety')),
        parentId: param('parentId', registryId, { hostile: hostileIri }),
        q: param('q', fc.constantFrom('fuzz', 'COURSE', '%', 'é'), { hostile: hostileText }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
  'GET /api/activities/item': (ctx) =>
    route({
      method: 'GET',
      path: '/api/activities/item',
      query: { activityId: param('activityId', registryId, { required: true, hostile: hostileIri, weight: 4 }) },
      headers: apiHeaders(ctx, false),
    }),
};

/** Writing one agent (issue 14): PUT and POST /api/actors/agents, the same handler. */
const upsertAttributesKey = fc.constantFrom(
  'http://localhost/api/ext/agent/attributes',
  'https://other.example.com:8443/api/ext/agent/attributes',
  'http://example.com/ext/other',
);
const upsertAgent = fc
  .tuple(
    validAgent,
    fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
    fc.option(fc.dictionary(upsertAttributesKey, attributeMap, { maxKeys: 2 }), { nil: undefined }),
  )
  .map(([agent, name, extensions]) => ({
    ...agent,
    ...(name === undefined ? {} : { name }),
    ...(extensions === undefined ? {} : { extensions }),
  }));
const hostileUpsertAgent: fc.Arbitrary<unknown> = fc.oneof(
  hostileAgent,
  hostileJson.map((value) => ({ mbox: MBOXES[0], extensions: { 'http://localhost/api/ext/agent/attributes': value } })),
  hostileJson.map((value) => ({ mbox: MBOXES[0], extensions: { 'http://localhost/api/ext/agent/attributes': { email: value } } })),
  hostileJson.map((value) => ({ mbox: MBOXES[0], extensions: value })),
  hostileText.map((text) => ({ mbox: MBOXES[0], extensions: { [`http://${text}/api/ext/agent/attributes`]: { email: text } } })),
  hostileJson.map((value) => ({ mbox: MBOXES[0], name: value, member: value })),
);
const upsertBody = body(upsertAgent.map(toJson), JSON_TYPES, hostileUpsertAgent.map(toJson));
const upsertRoute =
  (method: 'PUT' | 'POST'): RouteFuzzer =>
  (ctx) =>
    route({
      method,
      path: '/api/actors/agents',
      headers: { ...apiHeaders(ctx, false), 'svc-account-source': header(fc.constantFrom(undefined, 'hr-sync', ' crm '), hostileHeader) },
      body: upsertBody,
    });
const ACTOR_UPSERT_FUZZERS: Record<string, RouteFuzzer> = {
  'PUT /api/actors/agents': upsertRoute('PUT'),
  'POST /api/actors/agents': upsertRoute('POST'),
};

/**
 * One person (docs/actors.md, "One person"): read, deactivated and reactivated. The PATCH never
 * names the fuzz learner (LEARNER_MBOX), by any spelling: deactivating them would revoke the learner
 * credential (and end the launch) that every later route's requests are made with.
 */
const namesTheLearner = (text: string) => /learner@example\.com/i.test(text);
/**
 * Valid: exactly one of `agent` and `actorId`, among them the SCIM user of the context (a person
 * the tenant has whatever routes ran before). Hostile: a hostile one, both, or neither.
 */
const onePersonQuery = (ctx: FuzzContext, learner: 'may be named' | 'never named'): Record<string, Part<string[]>> => {
  const keep = (values: fc.Arbitrary<string>) => (learner === 'may be named' ? values : values.filter((text) => !namesTheLearner(text)));
  // givenScimUser's User: an account at the tenant's own address named by its e-mail (the default uniqueAttributes).
  const scimUser = { account: { homePage: `http://${ctx.tenant.name}.${ctx.baseDomain}`, name: 'fuzz@example.com' } };
  const agent = param('agent', fc.oneof(keep(agentParameter), fc.constant(toJson(scimUser))), {
    required: true,
    hostile: keep(hostileAgentParameter),
  });
  const actorId = param('actorId', fc.oneof(keep(actorIdParameter), fc.constant(`account|${scimUser.account.homePage}|fuzz@example.com`)), {
    required: true,
    hostile: keep(hostileActorId),
  });
  return {
    person: part(
      fc.oneof(agent.valid, actorId.valid),
      fc.oneof(
        { weight: 3, arbitrary: agent.hostile },
        { weight: 3, arbitrary: actorId.hostile },
        { weight: 1, arbitrary: fc.tuple(agent.valid, actorId.valid).map(([one, other]) => [...one, ...other]) },
        { weight: 1, arbitrary: fc.constant<string[]>([]) },
      ),
      4,
    ),
  };
};
const stateBody = body(
  fc.boolean().map((active) => toJson({ active })),
  JSON_TYPES,
  fc.oneof(
    hostileJson.map(toJson),
    hostileJson.map((active) => toJson({ active })),
    fc.tuple(fc.boolean(), hostileText, hostileJson).map(([active, name, value]) => toJson({ active, [name]: value })),
    fc.constantFrom('{"active":"false"}', '{"active":0}', '{"active":null}', '{"active":[false]}', '{"Active":false}', '{}', 'false'),
  ),
);
const PERSON_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/actors/item': (ctx) =>
    route({ method: 'GET', path: '/api/actors/item', query: onePersonQuery(ctx, 'may be named'), headers: apiHeaders(ctx, false) }),
  'PATCH /api/actors/item': (ctx) =>
    route({
      method: 'PATCH',
      path: '/api/actors/item',
      query: onePersonQuery(ctx, 'never named'),
      headers: { ...apiHeaders(ctx, false), 'svc-account-source': header(fc.constantFrom(undefined, 'console', ' hr '), hostileHeader) },
      body: stateBody,
    }),
};

/** Actor search and the attribute catalogue (issue 14): valid criteria, and hostile ones. */
const SEARCH_FIELDS = [
  'objectType',
  'name',
  'mbox',
  'mbox_sha1sum',
  'openid',
  'account.homePage',
  'account.name',
  'attributes.email',
  'attributes.positionNumber',
  'organisation.id',
  'organisation.attributes.site',
  'organisation.ancestors.id',
  'organisation.ancestors.attributes.site',
  'job.id',
  'job.name',
  'job.attributes.grade',
  'job.competencies.Name',
];
const searchCondition: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    field: fc.constantFrom(...SEARCH_FIELDS),
    op: fc.constantFrom('eq', 'ne', 'contains', 'startsWith'),
    value: fc.oneof(entryId, fc.string({ maxLength: 8 })),
  }),
  fc.record({ field: fc.constantFrom(...SEARCH_FIELDS), op: fc.constant('in'), value: fc.array(entryId, { minLength: 1, maxLength: 4 }) }),
  fc.record(
    { field: fc.constantFrom(...SEARCH_FIELDS), op: fc.constant('exists'), value: fc.boolean() },
    { requiredKeys: ['field', 'op'] },
  ),
  fc.record({
    field: fc.constantFrom(...SEARCH_FIELDS),
    op: fc.constantFrom('lt', 'lte', 'gt', 'gte'),
    value: fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom('2026-11-23', '2026-11-23T17:00:00Z', '0001-01-01', '9999-12-31T23:59:59.999999999-14:59'),
    ),
  }),
);
const searchCriteria: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'criteria' },
    { weight: 4, arbitrary: searchCondition },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.record({ and: fc.array(tie('node'), { minLength: 1, maxLength: 3, depthIdentifier: 'criteria' }) }) },
    { weight: 1, arbitrary: fc.record({ or: fc.array(tie('node'), { minLength: 1, maxLength: 3, depthIdentifier: 'criteria' }) }) },
    { weight: 1, arbitrary: fc.record({ not: tie('node') }) },
  ),
})).node;
const nested = (depth: number, leaf: unknown) => Array.from({ length: depth }).reduce<unknown>((inner) => ({ not: inner }), leaf);
const hostileCriteria: fc.Arbitrary<unknown> = fc.oneof(
  hostileJson,
  fc.record({
    field: fc.oneof(
      hostileText,
      hostileText.map((text) => `attributes.${text}`),
    ),
    op: fc.constantFrom('eq', 'exists', 'gt'),
    value: hostileJson,
  }),
  fc.record({
    field: fc.constantFrom(...SEARCH_FIELDS),
    op: fc.oneof(hostileText, fc.constantFrom('like', 'regex', '$where', 'EQ')),
    value: hostileText,
  }),
  fc.record({
    field: fc.constantFrom(...SEARCH_FIELDS),
    op: fc.constantFrom('eq', 'contains', 'startsWith', 'in'),
    value: fc.oneof(hostileText, fc.array(hostileText, { maxLength: 4 })),
  }),
  fc.record({
    field: fc.constantFrom('attributes.score', 'name', 'job.attributes.grade'),
    op: fc.constantFrom('lt', 'gte'),
    value: fc.oneof(hostileDate, hostileNumber, fc.constantFrom(1e308, -1e308, 5e-324)),
  }),
  fc.constantFrom<unknown>(
    { field: 'name', op: 'eq', value: "x' OR '1'='1" },
    { field: "attributes.x' OR true --", op: 'exists' },
    { field: 'name', op: 'contains', value: '%\\_\u0000' },
    { field: 'name', op: 'in', value: Array.from({ length: 5_000 }, (_, i) => `n${i}`) },
    { or: Array.from({ length: 500 }, () => ({ field: 'name', op: 'eq', value: 'x' })) },
    { and: [] },
    { and: [{}], or: [{}] },
    nested(9, { field: 'name', op: 'eq', value: 'x' }),
  ),
  fc.integer({ min: 1, max: 12 }).chain((depth) => searchCondition.map((leaf) => nested(depth, leaf))),
);
const searchBody = body(
  searchCriteria.map((criteria) => toJson({ criteria })),
  JSON_TYPES,
  fc.oneof(
    hostileCriteria.map((criteria) => toJson({ criteria })),
    fc.record({ criteria: searchCriteria, extra: hostileJson }).map(toJson),
    hostileJson.map(toJson),
    // 5,000 levels of not: built as text, JSON.stringify would overflow the stack.
    fc.constant(`{"criteria":${'{"not":'.repeat(5_000)}{}${'}'.repeat(5_000)}}`),
  ),
);
const ACTOR_SEARCH_FUZZERS: Record<string, RouteFuzzer> = {
  'POST /api/actors/search': (ctx) =>
    route({
      method: 'POST',
      path: '/api/actors/search',
      query: { ...pageQuery(), kind: actorKind() },
      headers: apiHeaders(ctx, false),
      body: searchBody,
    }),
  'GET /api/actors/attributes': plainRoute('GET', '/api/actors/attributes', (ctx) => apiHeaders(ctx, false)),
};

/** Learner credentials and launch (issue 14): POST/DELETE /api/auth/basic, GET /api/activities/launch. */
const credentialUsername = fc.oneof(
  fc.uuid(),
  fc.stringMatching(/^[A-Za-z0-9._-]{1,24}$/),
  fc.constantFrom('fuzz-learner', 'launch.x', 'a:b', 'x'.repeat(201)),
);
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
const launchAuth = fc.oneof(
  fc.tuple(credentialUsername, fc.string({ maxLength: 20 })).map(([username, password]) => `Basic ${base64(`${username}:${password}`)}`),
  fc
    .tuple(fc.uuid(), fc.string({ maxLength: 20 }))
    .map(([session, secret]) => `Basic ${base64(`launch.${'0'.repeat(32)}.${session}:${secret}`)}`),
);
const hostileLaunchAuth = fc.oneof(
  hostileText,
  hostileText.map((text) => `Basic ${base64(text)}`),
  hostileText.map((text) => `Basic ${base64(`${text}:${text}`)}`),
  fc.constantFrom('Basic', 'Basic ', 'Basic !!!', 'Bearer x', `Basic ${base64('launch.zz.zz:x')}`),
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
  'GET /api/activities/launch': (ctx) =>
    route({
      method: 'GET',
      path: '/api/activities/launch',
      query: {
        activityId: param('activityId', fc.constantFrom(...ACTIVITIES, 'http://example.com/reg/a'), {
          required: true,
          hostile: hostileIri,
          weight: 4,
        }),
        auth: param('auth', launchAuth, { required: true, hostile: hostileLaunchAuth, weight: 4 }),
      },
      headers: publicHeaders(ctx),
    }),
};

/**
 * Lifecycle over HTTP (issue 17, item 2): API keys and OAuth clients, for the tenant's admins. The
 * valid credential is mostly the admin's Bearer token (an API key is refused, 403). The keys and
 * client ids addressed are never the context's own: revoking or deleting those would end the
 * credentials every other route's requests are made with.
 */
const tenantHexOf = (ctx: FuzzContext) => ctx.tenant.key.split('_')[1] ?? '0'.repeat(32);
const randomHex16 = fc.stringMatching(/^[0-9a-f]{16}$/);

function adminHeaders(ctx: FuzzContext): Record<string, Part<string | undefined>> {
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

/** Completion records (issue 15, item 9). */
const COMPLETION_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/actors/completions': (ctx) =>
    route({
      method: 'GET',
      path: '/api/actors/completions',
      query: {
        agent: param('agent', agentParameter, { hostile: hostileAgentParameter }),
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
        activityId: param('activityId', fc.constantFrom(...ACTIVITIES), { hostile: hostileIri }),
        status: param('status', fc.constantFrom('in-progress', 'completed', 'passed,failed', 'in-progress,completed,passed,failed'), {
          hostile: fc.constantFrom('done', 'passed,', ',', 'PASSED'),
        }),
        expand: param('expand', fc.constant('hierarchy'), { hostile: fc.constantFrom('all', 'Hierarchy', '') }),
      },
      headers: {
        ...apiHeaders(ctx, false),
        'accept-version': header(fc.constantFrom(undefined, '2.0.0'), fc.oneof(fc.constantFrom('1.0.0', '2', '2.0.0 ', ''), hostileHeader)),
      },
    }),
};

/** Notifications (issue 16): GET with every filter of interface 4.6, POST of one or an array. */
const notificationPattern = fc.constantFrom('^learner', 'example\\.com$', '(?i)LEARNER', '.', '[a-z]+@');
const hostilePattern = fc.constantFrom(
  '(a+)+$',
  '(a|aa)+b',
  '(',
  '(a)\\1',
  '(?=a)',
  '(?<!a)b',
  '\\',
  '[',
  'a{1001}',
  'x'.repeat(257),
  '\\p{Nope}',
);
const validNotification = fc.record({
  actor: validAgent,
  activity: fc.oneof(
    registryId.map((id) => ({ id })),
    registryId.map((id) => ({ id, objectType: 'Activity' })),
  ),
  channel: fc.constantFrom('email', 'sms', 'push'),
  object: fc.dictionary(fc.constantFrom('text', 'url', 'n'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
});
const hostileNotification: fc.Arbitrary<unknown> = mutated({
  actor: part(validAgent, hostileAgent),
  activity: part(
    registryId.map((id) => ({ id })),
    fc.oneof(
      hostileIri.map((id) => ({ id })),
      hostileJson,
      fc.constant({ id: ACTIVITIES[0], definition: {} }),
    ),
  ),
  channel: part(fc.constant('email'), fc.oneof(hostileText, hostileJson)),
  object: part(fc.constant({}), hostileJson),
  timestamp: part(fc.constant(undefined), fc.oneof(hostileDate, hostileJson)),
});
const notificationsBody = body(
  fc.oneof(validNotification, fc.array(validNotification, { minLength: 1, maxLength: 3 })).map(toJson),
  JSON_TYPES,
  fc.oneof(
    hostileNotification.map(toJson),
    fc.array(fc.oneof(validNotification, hostileNotification), { minLength: 0, maxLength: 3 }).map(toJson),
    // Nested deeper than JSON.stringify can write: spliced in as text.
    fc
      .constantFrom(DEEP_OBJECT, DEEP_ARRAY)
      .map((deep) => `{"actor":{"mbox":"${MBOXES[0]}"},"activity":{"id":"${ACTIVITIES[0]}"},"channel":"email","object":{"a":${deep}}}`),
    fc.constant(
      toJson(
        Array.from({ length: 1001 }, () => ({ actor: { mbox: MBOXES[0] }, activity: { id: ACTIVITIES[0] }, channel: 'email', object: {} })),
      ),
    ),
  ),
);
const NOTIFICATION_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/notifications': (ctx) =>
    route({
      method: 'GET',
      path: '/api/notifications',
      query: {
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
        activityId: param('activityId', registryId, { hostile: hostileIri }),
        notActivityId: param('activityId!', registryId, { hostile: hostileIri }),
        tags: param('activity:tags', fc.constantFrom('mandatory', 'mandatory,safety', ' safety '), {
          hostile: fc.constantFrom(',', '', ' , ,'),
        }),
        attribute: param('activity:attribute:owner', fc.constantFrom('HS', 'IT'), { hostile: hostileText }),
        oddAttribute: param('activity:attribute:', fc.constant('x'), { rare: true }),
        channel: param('channel', fc.constantFrom('email', 'sms')),
        query: param('query', notificationPattern, { hostile: hostilePattern }),
        since: param('since', validDate, { hostile: hostileDate }),
        until: param('until', validDate, { hostile: hostileDate }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
  'POST /api/notifications': (ctx) =>
    route({ method: 'POST', path: '/api/notifications', headers: apiHeaders(ctx, false), body: notificationsBody }),
};

// ---------------------------------------------------------------------------------------------
// Metrics and health (issue 17, item 5). The fuzzed app has no LEARNBASE_METRICS_TOKEN and its
// requests come from loopback: /metrics is served (text) unless a forwarding header asks for the
// token (403); a Bearer header, right or hostile, changes nothing then.
const OBSERVABILITY_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /metrics': (ctx) =>
    route({
      method: 'GET',
      path: '/metrics',
      headers: {
        ...publicHeaders(ctx),
        authorization: header(absent, fc.oneof(fc.constant('Bearer not-the-token'), hostileHeader)),
        'x-forwarded-for': header(absent, fc.oneof(fc.constantFrom('127.0.0.1', '::1, 10.0.0.1'), hostileHeader)),
      },
    }),
  'GET /health/live': plainRoute('GET', '/health/live', publicHeaders),
  'GET /health/ready': plainRoute('GET', '/health/ready', publicHeaders),
};

/**
 * One generator per route, keyed `METHOD /path` as Fastify lists it. HEAD uses the GET
 * generator. A route the app serves but this table lacks fails the coverage test: add its
 * generator here.
 */

// ---------------------------------------------------------------------------------------------
// Accounts from identity systems (issue 29): the SCIM tokens' HTTP face and the SCIM service provider.

const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const SCIM_ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const SCIM_PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const SCIM_TYPES = ['application/scim+json', 'application/scim+json; charset=utf-8', ...JSON_TYPES];

/** Valid: the tenant's SCIM token. Hostile: absent, another credential, a forged or mangled token. */
function scimHeaders(ctx: FuzzContext): Record<string, Part<string | undefined>> {
  return {
    authorization: header(
      fc.constant(ctx.scimToken),
      fc.oneof(
        absent,
        fc.constantFrom(ctx.tenant.authorization, `Bearer ${ctx.oauth.accessToken}`, 'Bearer ', 'Basic Og=='),
        hostileText.map((text) => `Bearer ${text}`),
        hostileText.map((text) => `${ctx.scimToken}${text}`),
        fc.constant(ctx.scimToken.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'))),
      ),
    ),
    'x-svc-tenant': header(absent, fc.oneof(fc.constant(ctx.otherTenantName), hostileText)),
    'if-match': header(absent, fc.oneof(fc.constantFrom('*', 'W/"0"', '"x"'), hostileText)),
  };
}

const scimName = fc.oneof(fc.constantFrom('ada@example.com', 'Ada@Example.com', 'bea@example.com'), fc.emailAddress());
const scimUser = fc
  .record(
    {
      userName: scimName,
      externalId: fc.string({ maxLength: 12 }),
      active: fc.constantFrom(true, false, 'True', 'false'),
      displayName: fc.string({ maxLength: 12 }),
      emails: fc.array(fc.record({ value: scimName, type: fc.constantFrom('work', 'home'), primary: fc.boolean() }), { maxLength: 2 }),
      name: fc.record({ givenName: fc.string({ maxLength: 8 }), familyName: fc.string({ maxLength: 8 }) }, { requiredKeys: [] }),
      title: fc.string({ maxLength: 8 }),
      [SCIM_ENTERPRISE]: fc.record(
        { employeeNumber: fc.string({ maxLength: 6 }), manager: fc.record({ value: fc.uuid() }) },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ['userName'] },
  )
  .map((user) => ({ schemas: [SCIM_USER, SCIM_ENTERPRISE], ...user }));
const hostileScimUser: fc.Arbitrary<unknown> = fc.oneof(
  hostileJson,
  hostileJson.map((value) => ({ schemas: [SCIM_USER], userName: value, emails: [{ value: 'x@example.com' }] })),
  hostileJson.map((value) => ({ schemas: [SCIM_USER], userName: 'x@example.com', emails: value })),
  hostileJson.map((value) => ({ schemas: [SCIM_USER], userName: 'x@example.com', emails: [{ value }], active: value })),
  hostileJson.map((value) => ({ schemas: value, userName: 'x@example.com' })),
  hostileText.map((text) => ({
    schemas: [SCIM_USER],
    userName: text,
    emails: [{ value: text }],
    name: { givenName: text },
    [SCIM_ENTERPRISE]: { manager: text },
  })),
  fc.string({ minLength: 501, maxLength: 600 }).map((long) => ({ schemas: [SCIM_USER], userName: long, emails: [{ value: long }] })),
);
const scimUserBody = body(scimUser.map(toJson), SCIM_TYPES, hostileScimUser.map(toJson));

const scimPath = fc.constantFrom(
  'active',
  'userName',
  'displayName',
  'name.givenName',
  'emails',
  'emails[type eq "work"].value',
  'emails[value eq "a:b"].value',
  `${SCIM_ENTERPRISE}:manager`,
  `${SCIM_ENTERPRISE}:department`,
  'id',
  'meta.created',
  'toString.x',
  '__proto__.polluted',
);
const scimOperation = fc.record(
  {
    op: fc.constantFrom('add', 'Replace', 'remove', 'REPLACE', 'copy'),
    path: fc.oneof(scimPath, hostileText),
    value: fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.boolean(),
      fc.constantFrom('False', 'True'),
      fc.record({ 'name.givenName': fc.string({ maxLength: 6 }), active: fc.boolean() }),
    ),
  },
  { requiredKeys: ['op'] },
);
const scimPatch = fc
  .array(scimOperation, { minLength: 1, maxLength: 4 })
  .map((operations) => ({ schemas: [SCIM_PATCH], Operations: operations }));
const hostileScimPatch: fc.Arbitrary<unknown> = fc.oneof(
  hostileJson,
  hostileJson.map((value) => ({ schemas: [SCIM_PATCH], Operations: value })),
  hostileJson.map((value) => ({ schemas: [SCIM_PATCH], operations: [{ op: 'replace', path: 'active', value }] })),
  hostileJson.map((value) => ({ schemas: [SCIM_PATCH], Operations: [{ op: 'add', value }] })),
  hostileText.map((text) => ({ schemas: [SCIM_PATCH], Operations: [{ op: 'replace', path: text, value: text }] })),
  fc.constant({ schemas: [SCIM_PATCH], Operations: Array.from({ length: 1001 }, () => ({ op: 'replace', path: 'title', value: 'x' })) }),
);
const scimPatchBody = body(scimPatch.map(toJson), SCIM_TYPES, hostileScimPatch.map(toJson));

const scimFilter = fc.oneof(
  fc.constantFrom(
    'userName eq "ada@example.com"',
    'externalId eq "x"',
    'emails[type eq "work"].value eq "ada@example.com"',
    'active eq true',
    'userName sw "a" and not (title pr)',
    'meta.lastModified gt "2020-01-01T00:00:00Z"',
    'userName eq "x\\" or 1=1"',
    '((((((((((((((((((((((userName pr))))))))))))))))))))))',
  ),
  scimName.map((name) => `userName eq "${name}"`),
);
const scimUserPath = (ctx: FuzzContext) =>
  fc
    .oneof(
      { weight: 4, arbitrary: fc.constant(ctx.scimUserId) },
      { weight: 2, arbitrary: fc.uuid() },
      { weight: 1, arbitrary: hostileText.map(percentEncode) },
    )
    .map((id) => `/scim/v2/Users/${id}`);

const IDENTITY_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/scim-tokens': plainRoute('GET', '/api/scim-tokens', adminHeaders),
  'POST /api/scim-tokens': plainRoute('POST', '/api/scim-tokens', adminHeaders),
  'DELETE /api/scim-tokens/:id': (ctx) =>
    route({
      method: 'DELETE',
      path: fc
        .oneof(fc.constant(`scim_${'0'.repeat(32)}_${'0'.repeat(16)}`), hostileText)
        .map((id) => `/api/scim-tokens/${percentEncode(id)}`),
      headers: adminHeaders(ctx),
    }),
  'GET /scim/v2/ServiceProviderConfig': plainRoute('GET', '/scim/v2/ServiceProviderConfig', scimHeaders),
  'GET /scim/v2/ResourceTypes': plainRoute('GET', '/scim/v2/ResourceTypes', scimHeaders),
  'GET /scim/v2/Schemas': plainRoute('GET', '/scim/v2/Schemas', scimHeaders),
  'GET /scim/v2/ResourceTypes/:id': (ctx) =>
    route({
      method: 'GET',
      path: fc.oneof(fc.constantFrom('User', 'Group', 'user'), hostileText.map(percentEncode)).map((id) => `/scim/v2/ResourceTypes/${id}`),
      headers: scimHeaders(ctx),
    }),
  'GET /scim/v2/Schemas/:id': (ctx) =>
    route({
      method: 'GET',
      path: fc
        .oneof(
          fc.constantFrom(SCIM_USER, SCIM_ENTERPRISE, SCIM_USER.toUpperCase(), 'urn:ietf:params:scim:schemas:core:2.0:Group'),
          hostileText.map(percentEncode),
        )
        .map((id) => `/scim/v2/Schemas/${id}`),
      headers: scimHeaders(ctx),
    }),
  // What is not served under /scim/v2/ (Groups, Bulk, …): the folder itself and the wildcard below it.
  ...Object.fromEntries(
    (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).flatMap((method) =>
      (['/scim/v2/', '/scim/v2/*'] as const).map((url): [string, RouteFuzzer] => [
        `${method} ${url}`,
        (ctx) =>
          route({
            method,
            path:
              url === '/scim/v2/'
                ? url
                : fc
                    .oneof(
                      fc.constantFrom('Groups', 'Groups/1', 'Bulk', 'Me', 'Users/x/y', 'groups?filter=x'),
                      hostileText.map(percentEncode),
                    )
                    .map((rest) => `/scim/v2/${rest}`),
            headers: scimHeaders(ctx),
            ...(method === 'GET' || method === 'DELETE' ? {} : { body: scimUserBody }),
          }),
      ]),
    ),
  ),
  'GET /scim/v2/Users': (ctx) =>
    route({
      method: 'GET',
      path: '/scim/v2/Users',
      query: {
        filter: param('filter', scimFilter, { hostile: hostileText }),
        startIndex: param('startIndex', fc.integer({ min: -5, max: 20 }).map(String), { hostile: hostileText }),
        count: param('count', fc.integer({ min: -5, max: 2000 }).map(String), { hostile: hostileText }),
      },
      headers: scimHeaders(ctx),
    }),
  'POST /scim/v2/Users': (ctx) => route({ method: 'POST', path: '/scim/v2/Users', headers: scimHeaders(ctx), body: scimUserBody }),
  'GET /scim/v2/Users/:id': (ctx) => route({ method: 'GET', path: scimUserPath(ctx), headers: scimHeaders(ctx) }),
  'PUT /scim/v2/Users/:id': (ctx) => route({ method: 'PUT', path: scimUserPath(ctx), headers: scimHeaders(ctx), body: scimUserBody }),
  'PATCH /scim/v2/Users/:id': (ctx) => route({ method: 'PATCH', path: scimUserPath(ctx), headers: scimHeaders(ctx), body: scimPatchBody }),
  'DELETE /scim/v2/Users/:id': (ctx) => route({ method: 'DELETE', path: scimUserPath(ctx), headers: scimHeaders(ctx) }),
};

const hrPersonEvent = fc.oneof(
  fc.record({
    type: fc.constantFrom('person.joined', 'person.moved', 'person.updated'),
    data: fc.record(
      {
        name: fc.string({ maxLength: 8 }),
        attributes: fc.dictionary(
          fc.constantFrom('employeeId', 'email', 'city', 'positionNumber'),
          fc.option(fc.string({ maxLength: 8 }), { nil: null }),
          { maxKeys: 3 },
        ),
      },
      { requiredKeys: ['attributes'] },
    ),
  }),
  fc.record({
    type: fc.constant('person.left'),
    data: fc.record({
      attributes: fc.dictionary(fc.constantFrom('employeeId', 'email'), fc.string({ maxLength: 8 }), { minKeys: 1, maxKeys: 2 }),
    }),
  }),
);
const hrMessage = fc.oneof(
  hrPersonEvent,
  fc.array(hrPersonEvent, { minLength: 1, maxLength: 5 }).map((events) => ({ type: 'people.batch', data: { events } })),
);
const hostileHrMessage: fc.Arbitrary<unknown> = fc.oneof(
  hostileJson,
  hostileJson.map((value) => ({ type: 'person.joined', data: value })),
  hostileJson.map((value) => ({ type: 'person.joined', data: { name: value, attributes: { employeeId: value } } })),
  hostileJson.map((value) => ({ type: 'people.batch', data: { events: value } })),
  hostileText.map((text) => ({ type: text, data: { attributes: { [text]: text } } })),
);
const hrBody = body(hrMessage.map(toJson), JSON_TYPES, hostileHrMessage.map(toJson));

/** The Standard Webhooks headers, the signature computed over the generated body, or spoiled. */
function signedHr(ctx: FuzzContext, request: FuzzRequest, how: 'sign' | 'stale' | 'other' | 'none'): FuzzRequest {
  if (how === 'none') return request;
  const id = request.headers['webhook-id'] ?? 'msg_fuzz';
  const at = how === 'stale' ? new Date(Date.now() - 3_600_000) : new Date();
  const payload = request.payload ?? '';
  const secret = how === 'other' ? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' : ctx.hrWebhook.secret;
  let signature: string;
  try {
    signature = new Webhook(secret).sign(id, at, typeof payload === 'string' ? payload : payload.toString());
  } catch {
    return request;
  }
  return {
    ...request,
    headers: {
      ...request.headers,
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}

const IDENTITY_FUZZERS_HR: Record<string, RouteFuzzer> = {
  'GET /api/hr-webhooks': plainRoute('GET', '/api/hr-webhooks', adminHeaders),
  'POST /api/hr-webhooks': plainRoute('POST', '/api/hr-webhooks', adminHeaders),
  'DELETE /api/hr-webhooks/:id': (ctx) =>
    route({
      method: 'DELETE',
      path: fc
        .oneof(fc.constant(`hrw_${'0'.repeat(32)}_${'0'.repeat(16)}`), hostileText)
        .map((id) => `/api/hr-webhooks/${percentEncode(id)}`),
      headers: adminHeaders(ctx),
    }),
  'GET /api/hr-webhooks/messages': (ctx) =>
    route({
      method: 'GET',
      path: '/api/hr-webhooks/messages',
      query: { limit: param('limit', fc.integer({ min: 1, max: 1000 }).map(String), { hostile: hostileText }) },
      headers: adminHeaders(ctx),
    }),
  'POST /hooks/hr/:id': (ctx) =>
    fc
      .tuple(
        route({
          method: 'POST',
          path: fc.oneof(
            { weight: 4, arbitrary: fc.constant(ctx.hrWebhook.path) },
            { weight: 1, arbitrary: hostileText.map((text) => `/hooks/hr/${percentEncode(text)}`) },
          ),
          headers: {
            'webhook-id': header(
              fc.uuid().map((id) => `msg_${id}`),
              fc.oneof(absent, hostileText, fc.constant('x'.repeat(300))),
            ),
          },
          body: hrBody,
        }),
        fc.constantFrom<'sign' | 'stale' | 'other' | 'none'>('sign', 'sign', 'sign', 'stale', 'other', 'none'),
      )
      .map(([request, how]) => signedHr(ctx, request, how)),
};

const ssoConnection = fc.record(
  {
    issuer: fc.constantFrom(
      'https://login.example.com/realms/acme',
      'http://127.0.0.1:9/realms/x',
      'https://login.microsoftonline.com/tid/v2.0',
    ),
    clientId: fc.string({ minLength: 1, maxLength: 12 }),
    clientSecret: fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null)),
    scopes: fc.constantFrom('openid', 'openid email profile', 'openid email'),
    claims: fc.dictionary(
      fc.constantFrom('email', 'given_name', 'family_name', 'employee_id'),
      fc.constantFrom('email', 'givenName', 'employeeId'),
      { minKeys: 1, maxKeys: 3 },
    ),
    displayName: fc.oneof(fc.string({ minLength: 1, maxLength: 100, unit: 'grapheme' }), fc.constant(null)),
    emailTrust: fc.constantFrom('unless-unverified', 'verified-only'),
  },
  { requiredKeys: ['issuer', 'clientId'] },
);
const hostileSsoConnection: fc.Arbitrary<unknown> = fc.oneof(
  hostileJson,
  hostileJson.map((value) => ({ issuer: 'https://login.example.com', clientId: 'x', emailTrust: value })),
  hostileText.map((text) => ({ issuer: text, clientId: text, clientSecret: text, scopes: text, claims: { [text]: text } })),
  hostileJson.map((value) => ({ issuer: 'https://login.example.com', clientId: 'x', claims: value, scopes: value })),
  fc
    .oneof(hostileText, hostileJson, fc.string({ minLength: 95, maxLength: 130, unit: 'grapheme' }))
    .map((displayName) => ({ issuer: 'https://login.example.com', clientId: 'x', displayName })),
);
/** A SAML provider's signing certificate and metadata (the test provider's, test/identity/saml-fixtures.ts). */
const SAML_CERTIFICATE = readFileSync(new URL('../identity/fixtures/saml-idp.crt', import.meta.url), 'utf8');
const SAML_METADATA =
  '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example.com">' +
  '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>' +
  SAML_CERTIFICATE.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '') +
  '</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>' +
  '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.com/sso"/>' +
  '</md:IDPSSODescriptor></md:EntityDescriptor>';
const adminsRule = fc.oneof(
  fc.constant(null),
  fc.record({ claim: fc.constantFrom('groups', 'role'), value: fc.constantFrom('lb-admins', 'admin') }),
);
const samlConnection = fc.oneof(
  fc.record(
    {
      protocol: fc.constant('saml'),
      metadataXml: fc.constantFrom(SAML_METADATA, '<x/>', '<not xml', SAML_METADATA.replace('HTTP-Redirect', 'HTTP-POST')),
      spEntityId: fc.constantFrom('urn:learnbase:x', 'https://learn.example.com/saml'),
      allowSha1: fc.boolean(),
      displayName: fc.string({ minLength: 1, maxLength: 100, unit: 'grapheme' }),
      claims: fc.dictionary(fc.constantFrom('email', 'givenName', 'sn', 'employeeNumber'), fc.constantFrom('email', 'employeeId'), {
        minKeys: 1,
        maxKeys: 3,
      }),
      admins: adminsRule,
    },
    { requiredKeys: ['protocol', 'metadataXml'] },
  ),
  fc.record({
    protocol: fc.constant('saml'),
    idpEntityId: fc.constantFrom('https://idp.example.com', 'urn:x'),
    entryPoint: fc.constantFrom('https://idp.example.com/sso', 'http://idp.example.com/sso'),
    certificates: fc.array(fc.constantFrom(SAML_CERTIFICATE, 'not a certificate', 'AAAA'), { minLength: 0, maxLength: 6 }),
  }),
  // Nothing listens there: refused at once, without leaving the machine.
  fc.constant({ protocol: 'saml', metadataUrl: 'http://127.0.0.1:9/metadata' }),
);
const hostileSamlConnection: fc.Arbitrary<unknown> = fc.oneof(
  hostileText.map((text) => ({ protocol: 'saml', metadataXml: text, spEntityId: text, admins: { claim: text, value: text } })),
  hostileText.map((text) => ({ protocol: 'saml', idpEntityId: text, entryPoint: text, certificates: [text] })),
  hostileJson.map((value) => ({ protocol: value, metadataXml: SAML_METADATA, admins: value })),
  hostileJson.map((value) => ({ protocol: 'saml', metadataXml: SAML_METADATA, allowSha1: value })),
);

const ssoName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('corp', 'entra', 'a-b-1') },
  { weight: 1, arbitrary: hostileText.map(percentEncode) },
);

const IDENTITY_FUZZERS_SSO: Record<string, RouteFuzzer> = {
  'GET /api/sso/connections': plainRoute('GET', '/api/sso/connections', adminHeaders),
  'PUT /api/sso/connections/:name': (ctx) =>
    route({
      method: 'PUT',
      path: ssoName.map((name) => `/api/sso/connections/${name}`),
      headers: {
        ...adminHeaders(ctx),
        'if-none-match': header(fc.constantFrom(undefined, '*'), fc.oneof(hostileHeader, fc.constant('"v1"'))),
      },
      body: body(
        fc.oneof(ssoConnection, samlConnection).map(toJson),
        JSON_TYPES,
        fc.oneof(hostileSsoConnection, hostileSamlConnection).map(toJson),
      ),
    }),
  // After the PUT: in a whole run, some of the names it made are there to read.
  'GET /api/sso/connections/:name': (ctx) =>
    route({ method: 'GET', path: ssoName.map((name) => `/api/sso/connections/${name}`), headers: adminHeaders(ctx) }),
  'DELETE /api/sso/connections/:name': (ctx) =>
    route({ method: 'DELETE', path: ssoName.map((name) => `/api/sso/connections/${name}`), headers: adminHeaders(ctx) }),
  'POST /api/sso/connections/:name/refresh': (ctx) =>
    route({ method: 'POST', path: ssoName.map((name) => `/api/sso/connections/${name}/refresh`), headers: adminHeaders(ctx) }),
  'GET /auth/sso/saml/:tenant/:name/metadata': () =>
    route({
      method: 'GET',
      path: fc.tuple(ssoName, ssoName).map(([tenant, name]) => `/auth/sso/saml/${tenant}/${name}/metadata`),
      headers: {},
    }),
  'GET /auth/sso/launch/:tenant': (ctx) =>
    route({
      method: 'GET',
      path: fc.oneof(fc.constant(ctx.tenant.name), fc.constant(ctx.otherTenantName), ssoName).map((tenant) => `/auth/sso/launch/${tenant}`),
      query: {
        activityId: param('activityId', fc.constantFrom(LAUNCH_ACTIVITY, 'http://example.com/unknown'), {
          required: true,
          hostile: hostileText,
        }),
        connection: param('connection', fc.constantFrom('corp', 'no-such'), { hostile: hostileText }),
      },
      headers: { 'x-svc-tenant': header(fc.constantFrom(undefined, ctx.tenant.name, ctx.otherTenantName), hostileText) },
    }),
  'GET /api/sso/connections/:name/metadata': (ctx) =>
    route({ method: 'GET', path: ssoName.map((name) => `/api/sso/connections/${name}/metadata`), headers: adminHeaders(ctx) }),
  'POST /auth/sso/saml': () =>
    route({
      method: 'POST',
      path: '/auth/sso/saml',
      headers: {},
      body: oauthBody({
        SAMLResponse: field(
          fc.base64String({ minLength: 4, maxLength: 400 }),
          fc.oneof(hostileText, fc.constant(Buffer.from(SAML_METADATA).toString('base64')), fc.constant('PD94'.repeat(5000))),
        ),
        RelayState: field(fc.base64String({ minLength: 8, maxLength: 43 }), fc.oneof(hostileText, fc.constant(undefined))),
      }),
    }),
  'GET /auth/sso/callback': () =>
    route({
      method: 'GET',
      path: '/auth/sso/callback',
      query: {
        state: param('state', fc.base64String({ minLength: 8, maxLength: 43 }), { hostile: hostileText }),
        code: param('code', fc.base64String({ maxLength: 43 }), { hostile: hostileText }),
        error: param('error', fc.constantFrom('access_denied', 'login_required'), { hostile: hostileText }),
      },
      headers: {
        cookie: header(
          fc.constantFrom(undefined, 'lb_sso_state=abc'),
          hostileText.map((text) => `lb_sso_state=${text}`),
        ),
      },
    }),
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

export const ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /xapi/about': plainRoute('GET', '/xapi/about', (ctx) => apiHeaders(ctx, true)),
  'GET /xapi/statements': (ctx) =>
    route({ method: 'GET', path: '/xapi/statements', query: statementsQuery(), headers: apiHeaders(ctx, true) }),
  'PUT /xapi/statements': (ctx) =>
    route({
      method: 'PUT',
      path: '/xapi/statements',
      query: { statementId: param('statementId', fc.uuid(), { required: true, hostile: uuidish }) },
      headers: apiHeaders(ctx, true),
      body: statementBody(false),
    }),
  'POST /xapi/statements': (ctx) =>
    route({
      method: 'POST',
      path: '/xapi/statements',
      query: {
        method: part(fc.constant<string[]>([]), fc.constantFrom<string[]>(['method=PUT'], ['method=GET'], ['method=POST'], ['method=%00'])),
      },
      headers: apiHeaders(ctx, true),
      body: statementBody(true),
    }),
  'GET /xapi/activities': (ctx) =>
    route({
      method: 'GET',
      path: '/xapi/activities',
      query: { activityId: param('activityId', activityId, { required: true, hostile: hostileIri, weight: 4 }) },
      headers: apiHeaders(ctx, true),
    }),
  'GET /xapi/agents': (ctx) =>
    route({
      method: 'GET',
      path: '/xapi/agents',
      query: { agent: param('agent', agentParameter, { required: true, hostile: hostileAgentParameter, weight: 4 }) },
      headers: apiHeaders(ctx, true),
    }),
  ...Object.fromEntries(
    [STATE, ACTIVITY_PROFILE, AGENT_PROFILE].flatMap((resource) =>
      ['GET', 'PUT', 'POST', 'DELETE'].map((method) => [`${method} ${resource.path}`, documentRoute(resource, method)]),
    ),
  ),
  'GET /api/me': plainRoute('GET', '/api/me', (ctx) => apiHeaders(ctx, false)),
  'POST /auth/oauth/token': tokenRoute,
  'POST /auth/oauth/revoke': revokeRoute,
  'GET /auth/oauth/authorize': authorizeGetRoute,
  'POST /auth/oauth/authorize': authorizePostRoute,
  'GET /auth/demo/callback': demoCallbackRoute,
  'GET /.well-known/oauth-authorization-server': plainRoute('GET', '/.well-known/oauth-authorization-server', publicHeaders),
  'GET /': plainRoute('GET', '/', publicHeaders),
  'GET /health': plainRoute('GET', '/health', publicHeaders),
  'GET /openapi.json': plainRoute('GET', '/openapi.json', publicHeaders),
  'GET /docs': plainRoute('GET', '/docs', publicHeaders),
  'GET /docs/': plainRoute('GET', '/docs/', publicHeaders),
  'GET /docs/static/index.html': plainRoute('GET', '/docs/static/index.html', publicHeaders),
  'GET /docs/static/swagger-initializer.js': plainRoute('GET', '/docs/static/swagger-initializer.js', publicHeaders),
  'GET /docs/static/theme/favicon.svg': plainRoute('GET', '/docs/static/theme/favicon.svg', publicHeaders),
  'GET /docs/json': plainRoute('GET', '/docs/json', publicHeaders),
  'GET /docs/yaml': plainRoute('GET', '/docs/yaml', publicHeaders),
  'GET /docs/*': docsWildcardRoute,
  'GET /docs/guides/': plainRoute('GET', '/docs/guides/', publicHeaders),
  'GET /docs/guides/:name': guideRoute,
  'GET /console': plainRoute('GET', '/console', publicHeaders),
  'GET /console/': plainRoute('GET', '/console/', publicHeaders),
  'GET /console/*': consoleWildcardRoute,
  'OPTIONS *': preflightRoute,
  'OPTIONS /xapi': preflightRoute,
  'OPTIONS /xapi*': preflightRoute,
  ...IMPORT_FUZZERS,
  ...AUDIT_FUZZERS,
  ...COMPLETION_FUZZERS,
  ...CREDENTIAL_FUZZERS,
  ...ACTOR_SEARCH_FUZZERS,
  ...ACTOR_UPSERT_FUZZERS,
  ...PERSON_FUZZERS,
  ...ACTIVITY_FUZZERS,
  ...LEARNING_FUZZERS,
  ...NOTIFICATION_FUZZERS,
  ...OBSERVABILITY_FUZZERS,
  ...LIFECYCLE_FUZZERS,
  ...ADMIN_FUZZERS,
  ...IDENTITY_FUZZERS,
  ...IDENTITY_FUZZERS_HR,
  ...IDENTITY_FUZZERS_SSO,
  ...CONSOLE_FUZZERS,
};

// ---------------------------------------------------------------------------------------------
// The xAPI 1.0.3 alternate request syntax (issue 15, item 3): `POST /xapi/…?method=X` with the
// request meant in a form. Not a route of its own, so not in ROUTE_FUZZERS (whose keys are the
// served routes); test/xapi/alternate-request-syntax.test.ts runs it on both backends.

/** The /xapi/ routes a form can tunnel: their generated requests are re-sent through a form. */
const ALTERNATE_TUNNELLED = Object.keys(ROUTE_FUZZERS).filter((key) => /^(GET|PUT|POST|DELETE) \/xapi\//.test(key));
/** The headers that travel in the form: the spec's six and X-SVC-Tenant. The others stay headers. */
const ALTERNATE_FORM_HEADERS = new Set(['authorization', 'content-type', 'content-length', 'if-match', 'if-none-match', 'x-svc-tenant']);
const ALTERNATE_FORM_TYPE = 'application/x-www-form-urlencoded';

/** Form-encodes bytes: every byte but the unreserved ones as %XX (a Buffer's invalid UTF-8 stays invalid). */
function percentEncodeBytes(bytes: Buffer): string {
  return [...bytes]
    .map((byte) =>
      /^[A-Za-z0-9\-._~]$/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

const alternateField = (name: string, value: string | Buffer) =>
  `${percentEncode(name)}=${Buffer.isBuffer(value) ? percentEncodeBytes(value) : percentEncode(value)}`;

/**
 * A generated request of any tunnelled /xapi/ route (valid-ish, with its own hostile parts),
 * moved into a form: its query parameters, credential, tenant, Content-Type and preconditions
 * become fields, its body the `content` field. Then the envelope gets its own hostile parts:
 * another outer method, a wrong or repeated `method`, more URL parameters, a body that is not a
 * form, version 2.0.0 in the header or the form, fields that are repeated, misplaced or not UTF-8.
 */
export function alternateSyntaxRequest(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const tunnelled = fc.constantFrom(...ALTERNATE_TUNNELLED).chain((key) => ROUTE_FUZZERS[key]!(ctx));
  const envelope = mutated({
    outerMethod: part(fc.constant('POST'), fc.constantFrom('PUT', 'GET', 'DELETE', 'PATCH')),
    methodParameter: part(
      fc.constant<string[] | undefined>(undefined),
      fc.oneof(
        fc.constantFrom<string[]>(
          ['method=put'],
          ['method=PATCH'],
          ['method=HEAD'],
          ['method='],
          ['method'],
          ['method=GET', 'method=GET'],
          ['Method=GET'],
          ['method[]=GET'],
        ),
        hostileText.map((text) => [`method=${percentEncode(text)}`]),
      ),
    ),
    urlExtras: part(
      fc.constant<string[]>([]),
      fc.oneof(
        extraQuery.hostile,
        fc.uuid().map((id) => [`statementId=${id}`]),
      ),
    ),
    outerType: part(
      fc.constantFrom<string | undefined>(ALTERNATE_FORM_TYPE, `${ALTERNATE_FORM_TYPE}; charset=UTF-8`),
      fc.oneof(oddContentType, fc.constantFrom(...JSON_TYPES)),
    ),
    outerVersion: header(
      fc.constantFrom(undefined, '1.0.3'),
      fc.oneof(fc.constantFrom('2.0.0', '2.0', '1.0.3, 2.0.0', '0.8'), hostileHeader),
    ),
    formVersion: part(
      fc.constantFrom<string | undefined>('1.0.3', '1.0'),
      fc.oneof(absent, fc.constantFrom('2.0.0', '0.8', ''), hostileText),
    ),
    credentialInForm: part(fc.boolean(), fc.constant(true)),
    extraFields: part(
      fc.constant<string[]>([]),
      fc.oneof(
        fc.constantFrom<string[]>(
          ['method=PUT'],
          ['content=%7B%7D', 'content=%7B%7D'],
          ['Authorization=x', 'authorization=y'],
          ['=x'],
          ['&&'],
          ['%ZZ=1'],
          ['x=%ED%A0%80'],
          ['If-Match=%0D%0Ax'],
          ['X-SVC-Tenant=%00'],
          ['Content-Length=99999999999'],
        ),
        fc.array(
          fc.tuple(hostileText, hostileText).map(([name, value]) => alternateField(name, value)),
          { minLength: 1, maxLength: 3 },
        ),
        fc.array(rawQueryFragment, { minLength: 1, maxLength: 3 }),
      ),
    ),
    wholeBody: part(fc.constant<string | Buffer | undefined>(undefined), hostileBody),
  });
  return fc.tuple(tunnelled, envelope).map(([inner, env]) => {
    const at = inner.url.indexOf('?');
    const path = at < 0 ? inner.url : inner.url.slice(0, at);
    const fields = at < 0 ? [] : inner.url.slice(at + 1).split('&');
    const outer: Record<string, string> = {};
    for (const [name, value] of Object.entries(inner.headers)) {
      if (name === 'x-experience-api-version') continue;
      const inForm = ALTERNATE_FORM_HEADERS.has(name) && (name !== 'authorization' || env.credentialInForm === true);
      if (inForm) fields.push(alternateField(name, value));
      else outer[name] = value;
    }
    if (typeof env.formVersion === 'string') fields.push(alternateField('X-Experience-API-Version', env.formVersion));
    if (inner.payload !== undefined) fields.push(alternateField('content', inner.payload));
    if (typeof env.outerVersion === 'string') outer['x-experience-api-version'] = env.outerVersion;
    if (typeof env.outerType === 'string') outer['content-type'] = env.outerType;
    const query = [...((env.methodParameter as string[] | undefined) ?? [`method=${inner.method}`]), ...(env.urlExtras as string[])];
    const payload = (env.wholeBody as string | Buffer | undefined) ?? [...fields, ...(env.extraFields as string[])].join('&');
    return { method: env.outerMethod as string, url: withQuery(path, query), headers: outer, payload };
  });
}

// ---------------------------------------------------------------------------------------------
// Statements with attachments (issue 15, items 1 and 2): multipart/mixed bodies for POST and PUT
// /xapi/statements, the statements first and one part per attachment. The routes are the ones
// above, with another body shape; test/xapi/attachment.test.ts sends these
// on both backends.

export const MULTIPART_BOUNDARY = 'fuzz-boundary-27182818';

/** A multipart/mixed statement request body and the Content-Type that frames it. */
export interface MultipartStatementBody {
  contentType: string;
  payload: Buffer;
}

const attachmentBytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.string({ unit: 'binary', maxLength: 50 }).map((text) => Buffer.from(text)),
  // Data that looks like framing: a boundary line and a header block inside the data.
  fc.constant(Buffer.from(`\r\n--${MULTIPART_BOUNDARY}\r\nX-Experience-API-Hash: 00\r\n\r\n`)),
);

const sha256Hex = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * A valid statement (or batch) with attachments and their parts, then one or two places made
 * hostile: the boundary parameter, a preamble, the first part's type or JSON, the attachments'
 * metadata, a part's hash or encoding header, parts missing or extra, the closing boundary, a
 * signature attachment holding something that is not a valid JWS.
 */
export const multipartStatementBody: fc.Arbitrary<MultipartStatementBody> = fc
  .tuple(
    fc.array(validStatement, { minLength: 1, maxLength: 2 }),
    fc.boolean(),
    fc.array(attachmentBytes, { maxLength: 3 }),
    mutated({
      contentType: part(
        fc.constant(`multipart/mixed; boundary=${MULTIPART_BOUNDARY}`),
        fc.oneof(
          fc.constantFrom(
            'multipart/mixed',
            'multipart/mixed; boundary=',
            'multipart/mixed; boundary=""',
            'multipart/mixed; boundary=other',
            `multipart/mixed; boundary="${MULTIPART_BOUNDARY}"`,
            `MULTIPART/MIXED; BOUNDARY=${MULTIPART_BOUNDARY}`,
          ),
          hostileHeader.map((text) => `multipart/mixed; boundary=${text}`),
        ),
      ),
      preamble: part(fc.constant(''), fc.constantFrom('\r\n', 'preamble text\r\n', 'x'.repeat(10_000), `--${MULTIPART_BOUNDARY}-`)),
      firstType: part(
        fc.constant<string | undefined>('application/json'),
        fc.oneof(absent, fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/octet-stream'), hostileHeader),
      ),
      json: part(
        fc.constant<string | undefined>(undefined),
        fc.oneof(
          hostileBody.map((body) => body.toString()),
          hostileStatement.map(toJson),
          hostileJson.map((value) =>
            toJson({ actor: { mbox: 'mailto:a@example.com' }, verb: { id: VERBS[0] }, object: { id: ACTIVITIES[0] }, attachments: value }),
          ),
        ),
      ),
      hashHeader: part(
        fc.constant<string | null>(null),
        fc.oneof(fc.constantFrom<string | null>('', 'zz', '0'.repeat(64), 'A'.repeat(64), '0'.repeat(56), '0'.repeat(129)), hostileHeader),
      ),
      encoding: part(
        fc.constant<string | undefined>('binary'),
        fc.oneof(absent, fc.constantFrom('base64', 'BINARY', '8bit', 'quoted-printable'), hostileHeader),
      ),
      odd: part(
        fc.constant<string | undefined>(undefined),
        fc.constantFrom(
          'drop-part',
          'extra-part',
          'duplicate-part',
          'no-closing',
          'epilogue',
          'file-url',
          'header-without-colon',
          'huge-header',
          'signature',
        ),
      ),
    }),
  )
  .map(([statements, batch, datas, mutation]) => {
    const boundary = MULTIPART_BOUNDARY;
    const odd = mutation.odd as string | undefined;
    const metadata = datas.map((data) => ({
      usageType: 'http://example.com/attachment-usage/fuzz',
      display: { 'en-US': 'fuzz' },
      contentType: 'application/octet-stream',
      length: data.length,
      sha2: sha256Hex(data),
      ...(odd === 'file-url' ? { fileUrl: 'http://example.com/fuzz' } : {}),
    }));
    const parts = [...datas];
    if (odd === 'signature') {
      const jws = Buffer.from(
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(toJson(statements[0])).toString('base64url')}.`,
      );
      metadata.push({
        ...metadata[0],
        usageType: 'http://adlnet.gov/expapi/attachments/signature',
        length: jws.length,
        sha2: sha256Hex(jws),
      });
      parts.push(jws);
    }
    const withAttachments = statements.map((statement, index) =>
      index === 0 && metadata.length > 0 ? { ...statement, attachments: metadata } : statement,
    );
    if (odd === 'drop-part') parts.pop();
    if (odd === 'extra-part') parts.push(Buffer.from('not an attachment of any statement'));
    if (odd === 'duplicate-part' && parts.length > 0) parts.push(parts[0]!);
    const json = (mutation.json as string | undefined) ?? toJson(batch ? withAttachments : withAttachments[0]);
    const firstType = mutation.firstType as string | undefined;
    const chunks: Buffer[] = [
      Buffer.from(
        `${mutation.preamble as string}--${boundary}\r\n${firstType === undefined ? '' : `Content-Type: ${firstType}\r\n`}\r\n${json}`,
      ),
    ];
    for (const [index, data] of parts.entries()) {
      const hash = index === 0 && mutation.hashHeader !== null ? (mutation.hashHeader as string) : sha256Hex(data);
      const lines = ['Content-Type: application/octet-stream', `X-Experience-API-Hash: ${hash}`];
      if (mutation.encoding !== undefined) lines.push(`Content-Transfer-Encoding: ${mutation.encoding as string}`);
      if (odd === 'header-without-colon') lines.push('this line is no header');
      if (odd === 'huge-header') lines.push(`X-Padding: ${'p'.repeat(9_000)}`);
      chunks.push(Buffer.from(`\r\n--${boundary}\r\n${lines.join('\r\n')}\r\n\r\n`), data);
    }
    if (odd !== 'no-closing') chunks.push(Buffer.from(`\r\n--${boundary}--${odd === 'epilogue' ? '\r\nepilogue text\r\n' : '\r\n'}`));
    return { contentType: mutation.contentType as string, payload: Buffer.concat(chunks) };
  });
