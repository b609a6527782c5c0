import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { hostileHeader, hostileJson, hostileText, percentEncode, toJson } from '../fuzz/hostile-values.js';
import {
  absent,
  adminHeaders,
  apiHeaders,
  body,
  field,
  type FuzzContext,
  type FuzzRequest,
  header,
  JSON_TYPES,
  oauthBody,
  param,
  type Part,
  plainRoute,
  route,
  type RouteFuzzer,
} from '../fuzz/requests.js';
import { LAUNCH_ACTIVITY } from '../fuzz/xapi-values.js';
import { onePersonQuery } from '../fuzz/api-values.js';

/**
 * The route fuzz test's generators (test/fuzz/routes.fuzz.test.ts) of the identity module's routes:
 * deactivating and reactivating one person, SCIM tokens and the SCIM service provider, HR webhooks,
 * and SSO connections and sign-in.
 */

/** Deactivating and reactivating one person (docs/actors.md, "One person"), never the fuzz learner (onePersonQuery, api-values.ts). */
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
const PERSON_STATE_FUZZERS: Record<string, RouteFuzzer> = {
  'PATCH /api/actors/item': (ctx) =>
    route({
      method: 'PATCH',
      path: '/api/actors/item',
      query: onePersonQuery(ctx, 'never named'),
      headers: { ...apiHeaders(ctx, false), 'svc-account-source': header(fc.constantFrom(undefined, 'console', ' hr '), hostileHeader) },
      body: stateBody,
    }),
};

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

const SCIM_FUZZERS: Record<string, RouteFuzzer> = {
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

const HR_FUZZERS: Record<string, RouteFuzzer> = {
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
const SAML_CERTIFICATE = readFileSync(new URL('./fixtures/saml-idp.crt', import.meta.url), 'utf8');
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

const SSO_FUZZERS: Record<string, RouteFuzzer> = {
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

export const IDENTITY_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  ...PERSON_STATE_FUZZERS,
  ...SCIM_FUZZERS,
  ...HR_FUZZERS,
  ...SSO_FUZZERS,
};
