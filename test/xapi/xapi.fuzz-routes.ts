import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  DEEP_ARRAY,
  DEEP_OBJECT,
  hostileBody,
  hostileDate,
  hostileHeader,
  hostileJson,
  hostileNumber,
  hostileText,
  longIndexedText,
  percentEncode,
  rawQueryFragment,
  toJson,
  uuidish,
  validDate,
} from '../fuzz/hostile-values.js';
import {
  absent,
  apiHeaders,
  base64,
  body,
  type Body,
  etag,
  extraQuery,
  type FuzzContext,
  type FuzzRequest,
  header,
  JSON_TYPES,
  mutated,
  oddContentType,
  param,
  part,
  type Part,
  plainRoute,
  publicHeaders,
  route,
  type RouteFuzzer,
  withQuery,
} from '../fuzz/requests.js';
import {
  ACTIVITIES,
  activityId,
  actorIdParameter,
  agentParameter,
  hostileActorId,
  hostileAgentParameter,
  hostileIri,
  hostileStatement,
  MBOXES,
  protoKeyedValue,
  validStatement,
  VERBS,
} from '../fuzz/xapi-values.js';

/**
 * The route fuzz test's generators (test/fuzz/routes.fuzz.test.ts) of the xapi module's routes:
 * the /xapi/ resources, and the CORS preflight its plugin answers (xapi.plugin.ts). Below them, for
 * the tests of this folder, the alternate request syntax and statements with attachments.
 */

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

export const XAPI_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
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
  'OPTIONS *': preflightRoute,
  'OPTIONS /xapi': preflightRoute,
  'OPTIONS /xapi*': preflightRoute,
};

// ---------------------------------------------------------------------------------------------
// The xAPI 1.0.3 alternate request syntax (issue 15, item 3): `POST /xapi/…?method=X` with the
// request meant in a form. Not a route of its own, so not in XAPI_ROUTE_FUZZERS (whose keys are
// served routes); test/xapi/alternate-request-syntax.test.ts runs it on both backends.

/** The /xapi/ routes a form can tunnel: their generated requests are re-sent through a form. */
const ALTERNATE_TUNNELLED = Object.keys(XAPI_ROUTE_FUZZERS).filter((key) => /^(GET|PUT|POST|DELETE) \/xapi\//.test(key));
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
  const tunnelled = fc.constantFrom(...ALTERNATE_TUNNELLED).chain((key) => XAPI_ROUTE_FUZZERS[key]!(ctx));
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
