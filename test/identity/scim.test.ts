import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { MIGRATIONS_DIR, migrate, migrationFiles } from '../../src/platform/database/migrate.js';
import { BACKENDS } from '../support/backends.js';
import { describeEachBackend, testConfig, type TestContext } from '../support/build-test-app.js';
import { Given, type GivenTenant } from '../support/given.js';
import { exchange, givenOAuth } from '../auth/oauth-token-fixtures.js';
import { basic, PASSWORD } from '../launch/launch-fixtures.js';
import { ADL, COURSE_A, COURSE_D, givenLearningTenant, HR, requests, SETTINGS } from '../learning/assignment-fixtures.js';
import { issueScimToken } from '../../src/modules/identity/scim/scim-token.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';

type Headers = Record<string, string>;
type Json = Record<string, unknown>;

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

interface Scim {
  tenant: GivenTenant;
  /** The admin's Bearer token, the tenant named. */
  admin: Headers;
  /** The SCIM token as a Bearer header (no tenant named: the token names it). */
  scim: Headers;
  tokenId: string;
}

/** A tenant whose admin made a SCIM token over HTTP. */
async function givenScim(ctx: Pick<TestContext, 'app' | 'db' | 'given'>): Promise<Scim> {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  const admin = { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name };
  const created = await ctx.app.inject({ method: 'POST', url: '/api/scim-tokens', headers: admin });
  assert.equal(created.statusCode, 201, created.body);
  const body = created.json() as { id: string; token: string };
  return { tenant: oauth.tenant, admin, scim: { authorization: `Bearer ${body.token}` }, tokenId: body.id };
}

const scimCall = (
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  headers: Headers,
  payload?: unknown,
) =>
  app.inject({
    method,
    url,
    headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/scim+json' }) },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });

/** The user Entra ID sends on its first provisioning of a person (its documented request, trimmed). */
const entraUser = (userName: string, extra: Json = {}): Json => ({
  schemas: [USER, ENTERPRISE],
  externalId: `ext-${userName}`,
  userName,
  active: true,
  displayName: 'Ada Lovelace',
  emails: [{ primary: true, type: 'work', value: userName }],
  name: { formatted: 'Ada Lovelace', familyName: 'Lovelace', givenName: 'Ada' },
  title: 'Analyst',
  [ENTERPRISE]: { employeeNumber: 'E1001', department: 'Engineering' },
  ...extra,
});

function assertScimError(res: LightMyRequestResponse, status: number, scimType?: string): Json {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/scim\+json/);
  const body = res.json() as Json;
  assert.deepEqual(body.schemas, [ERROR]);
  assert.equal(body.status, String(status));
  assert.equal(body.scimType, scimType);
  assert.equal(typeof body.detail, 'string');
  return body;
}

async function createUser(app: FastifyInstance, scim: Scim, user: Json): Promise<Json> {
  const res = await scimCall(app, 'POST', '/scim/v2/Users', scim.scim, user);
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json() as Json;
  assert.equal(res.headers.location, `${String((body.meta as Json).location)}`);
  assert.equal(res.headers.etag, (body.meta as Json).version);
  return body;
}

async function people(app: FastifyInstance, tenant: GivenTenant, kind = 'people'): Promise<Json[]> {
  const res = await app.inject({ method: 'GET', url: `/api/actors?kind=${kind}`, headers: tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Json[];
}

const attributesOf = (actor: Json) =>
  (actor.extensions as Json | undefined)?.['http://localhost/api/ext/agent/attributes'] as Record<string, string> | undefined;

describeEachBackend('SCIM tokens', (ctx) => {
  it('are made, listed and revoked by an admin; an API key, a learner or nobody is refused; a revoked token is refused at once', async () => {
    const scim = await givenScim(ctx);
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/scim-tokens', headers: scim.admin });
    assert.equal(listed.statusCode, 200, listed.body);
    const tokens = listed.json() as Json[];
    assert.equal(tokens.length, 1);
    assert.equal(tokens[0].id, scim.tokenId);
    assert.equal(tokens[0].revokedAt, null);
    assert.ok(!('token' in tokens[0]), 'never the secret');

    const byKey = await ctx.app.inject({ method: 'POST', url: '/api/scim-tokens', headers: scim.tenant.headers });
    assert.equal(byKey.statusCode, 403, byKey.body);
    const nobody = await ctx.app.inject({ method: 'POST', url: '/api/scim-tokens', headers: { 'x-svc-tenant': scim.tenant.name } });
    assert.equal(nobody.statusCode, 401, nobody.body);

    const ok = await scimCall(ctx.app, 'GET', '/scim/v2/Users', scim.scim);
    assert.equal(ok.statusCode, 200, ok.body);
    const revoked = await ctx.app.inject({ method: 'DELETE', url: `/api/scim-tokens/${scim.tokenId}`, headers: scim.admin });
    assert.equal(revoked.statusCode, 204, revoked.body);
    assertScimError(await scimCall(ctx.app, 'GET', '/scim/v2/Users', scim.scim), 401);
    const again = await ctx.app.inject({ method: 'DELETE', url: `/api/scim-tokens/${scim.tokenId}`, headers: scim.admin });
    assert.equal(again.statusCode, 204, 'revoking twice answers 204 again');
    const unknown = await ctx.app.inject({ method: 'DELETE', url: '/api/scim-tokens/scim_nothing', headers: scim.admin });
    assert.equal(unknown.statusCode, 404, unknown.body);

    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit', headers: scim.admin });
    const actions = (audit.json() as Array<{ action: string }>).map((entry) => entry.action);
    assert.ok(actions.includes('scim_token.created') && actions.includes('scim_token.revoked'), actions.join());
  });

  it('refuses no token, another scheme, a forged token and a token of another tenant than the one named', async () => {
    const scim = await givenScim(ctx);
    const other = await givenScim(ctx);
    assertScimError(await scimCall(ctx.app, 'GET', '/scim/v2/Users', {}), 401);
    assertScimError(await scimCall(ctx.app, 'GET', '/scim/v2/Users', { authorization: scim.tenant.authorization }), 401);
    const forged = `${scim.tokenId}.${randomBytes(32).toString('base64url').slice(0, 43)}`;
    assertScimError(await scimCall(ctx.app, 'GET', '/scim/v2/Users', { authorization: `Bearer ${forged}` }), 401);
    assertScimError(await scimCall(ctx.app, 'GET', '/scim/v2/Users', { ...scim.scim, 'x-svc-tenant': other.tenant.name }), 401);
    assertScimError(await scimCall(ctx.app, 'GET', '/scim/v2/Users', { ...scim.scim, host: `${other.tenant.name}.localhost:8080` }), 401);
    const named = await scimCall(ctx.app, 'GET', '/scim/v2/Users', { ...scim.scim, 'x-svc-tenant': scim.tenant.name });
    assert.equal(named.statusCode, 200, named.body);
    // A SCIM token is no credential of the API.
    const api = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: { ...scim.scim, 'x-svc-tenant': scim.tenant.name } });
    assert.equal(api.statusCode, 401, api.body);
  });
});

describeEachBackend('SCIM discovery', (ctx) => {
  it('answers ServiceProviderConfig, ResourceTypes and Schemas as application/scim+json', async () => {
    const scim = await givenScim(ctx);
    const config = await scimCall(ctx.app, 'GET', '/scim/v2/ServiceProviderConfig', scim.scim);
    assert.equal(config.statusCode, 200, config.body);
    assert.match(String(config.headers['content-type']), /^application\/scim\+json/);
    const body = config.json() as Json;
    assert.deepEqual(body.patch, { supported: true });
    assert.deepEqual(body.etag, { supported: true });
    assert.equal((body.filter as Json).supported, true);
    const types = (await scimCall(ctx.app, 'GET', '/scim/v2/ResourceTypes', scim.scim)).json() as { Resources: Json[] };
    assert.deepEqual(
      types.Resources.map((type) => [type.id, type.endpoint, type.schema]),
      [['User', '/Users', USER]],
    );
    const schemas = (await scimCall(ctx.app, 'GET', '/scim/v2/Schemas', scim.scim)).json() as { Resources: Json[] };
    assert.deepEqual(
      schemas.Resources.map((schema) => schema.id),
      [USER, ENTERPRISE],
    );
  });

  it('answers each listed resource type and schema at its meta.location, the addresses its listings give', async () => {
    const scim = await givenScim(ctx);
    const listed = (await scimCall(ctx.app, 'GET', '/scim/v2/ResourceTypes', scim.scim)).json() as { Resources: Json[] };
    const schemaList = (await scimCall(ctx.app, 'GET', '/scim/v2/Schemas', scim.scim)).json() as { Resources: Json[] };
    for (const resource of [...listed.Resources, ...schemaList.Resources]) {
      const location = new URL(String((resource.meta as Json).location));
      const res = await scimCall(ctx.app, 'GET', location.pathname, scim.scim);
      assert.equal(res.statusCode, 200, `${location.pathname}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /^application\/scim\+json/);
      assert.deepEqual(res.json(), resource);
    }
    // A schema URN is compared without case.
    const lower = await scimCall(ctx.app, 'GET', `/scim/v2/Schemas/${USER.toLowerCase()}`, scim.scim);
    assert.equal((lower.json() as Json).id, USER);
  });

  it('answers Groups, Bulk, an unknown path or method, and a resource type or schema not served with a SCIM 404 saying so', async () => {
    const scim = await givenScim(ctx);
    // What Entra ID and Okta send when group provisioning is left on.
    const groups = assertScimError(await scimCall(ctx.app, 'GET', '/scim/v2/Groups', scim.scim), 404);
    assert.match(String(groups.detail), /Groups are not supported/);
    const filtered = await scimCall(ctx.app, 'GET', `/scim/v2/Groups?filter=${encodeURIComponent('displayName eq "Sales"')}`, scim.scim);
    assert.match(String(assertScimError(filtered, 404).detail), /Groups are not supported/);
    const created = await scimCall(ctx.app, 'POST', '/scim/v2/Groups', scim.scim, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Sales',
      members: [],
    });
    assert.match(String(assertScimError(created, 404).detail), /Groups are not supported/);
    assert.match(String(assertScimError(await scimCall(ctx.app, 'PATCH', '/scim/v2/Groups/g1', scim.scim, {}), 404).detail), /Groups/);
    for (const url of ['/scim/v2/ResourceTypes/Group', '/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group']) {
      assert.match(String(assertScimError(await scimCall(ctx.app, 'GET', url, scim.scim), 404).detail), /Groups are not supported/, url);
    }
    for (const [method, url] of [
      ['POST', '/scim/v2/Bulk'],
      ['GET', '/scim/v2/Me'],
      ['GET', '/scim/v2/Users/x/y'],
      ['PUT', '/scim/v2/Users'],
      ['DELETE', '/scim/v2/ServiceProviderConfig'],
      ['GET', '/scim/v2/ResourceTypes/Device'],
      ['GET', '/scim/v2/Schemas/urn:example:Device'],
      ['GET', '/scim/v2/Groupies'],
    ] as const) {
      const res = await scimCall(ctx.app, method, url, scim.scim, method === 'GET' || method === 'DELETE' ? undefined : {});
      const body = assertScimError(res, 404);
      assert.doesNotMatch(String(body.detail), /Groups are not supported/, url);
      assert.match(String(body.detail), /ResourceTypes/, url);
    }
    // The token is checked first, as on every SCIM address: nobody learns what is served without one.
    assertScimError(await scimCall(ctx.app, 'GET', '/scim/v2/Groups', {}), 401);
    assertScimError(await scimCall(ctx.app, 'GET', '/scim/v2/Groups', { authorization: scim.tenant.authorization }), 401);
    // ResourceTypes stays what is served: Users only.
    const types = (await scimCall(ctx.app, 'GET', '/scim/v2/ResourceTypes', scim.scim)).json() as {
      totalResults: number;
      Resources: Json[];
    };
    assert.deepEqual([types.totalResults, types.Resources.map((type) => type.id)], [1, ['User']]);
  });
});

describeEachBackend('SCIM Users', (ctx) => {
  it('creates a person from the User Entra ID sends: the mapped attributes, the account the import would give, audited as scim', async () => {
    const scim = await givenScim(ctx);
    const user = await createUser(ctx.app, scim, entraUser('ada@example.com'));
    assert.equal(user.userName, 'ada@example.com');
    assert.equal(user.externalId, 'ext-ada@example.com');
    assert.equal(user.active, true);
    assert.equal(user.displayName, 'Ada Lovelace');
    assert.deepEqual(user.emails, [{ value: 'ada@example.com', type: 'work', primary: true }]);
    assert.deepEqual((user[ENTERPRISE] as Json).employeeNumber, 'E1001');

    const [actor] = await people(ctx.app, scim.tenant);
    assert.deepEqual(actor.account, { homePage: `http://${scim.tenant.name}.localhost`, name: 'ada@example.com' });
    assert.equal(actor.name, 'Ada Lovelace');
    assert.deepEqual(attributesOf(actor), {
      userName: 'ada@example.com',
      externalId: 'ext-ada@example.com',
      givenName: 'Ada',
      familyName: 'Lovelace',
      email: 'ada@example.com',
      title: 'Analyst',
      employeeNumber: 'E1001',
      department: 'Engineering',
    });

    const read = await scimCall(ctx.app, 'GET', `/scim/v2/Users/${user.id}`, scim.scim);
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(read.json(), user);
    assert.equal(read.headers.etag, (user.meta as Json).version);

    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit', headers: scim.admin });
    const created = (audit.json() as Json[]).find((entry) => entry.action === 'actor.created');
    assert.ok(created, 'audited');
    assert.equal(created.source, 'scim');
    assert.deepEqual(created.principal, { kind: 'scim', id: scim.tokenId });
  });

  it('adopts the person an import made (matched by the unique e-mail): one actor, their other attributes kept', async () => {
    const scim = await givenScim(ctx);
    const imported = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: scim.tenant.headers,
      payload: { users: [{ name: 'Ada L.', attributes: { email: 'ada@example.com', positionNumber: 'DEV1', title: 'Old title' } }] },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const user = await createUser(
      ctx.app,
      scim,
      entraUser('Ada.Lovelace@example.com', { emails: [{ value: 'ada@example.com', primary: true }] }),
    );
    const all = await people(ctx.app, scim.tenant);
    assert.equal(all.length, 1, 'one person');
    assert.deepEqual(all[0].account, { homePage: `http://${scim.tenant.name}.localhost`, name: 'ada@example.com' });
    assert.equal(attributesOf(all[0])?.positionNumber, 'DEV1', 'an attribute SCIM does not map stays');
    assert.equal(attributesOf(all[0])?.title, 'Analyst', 'a mapped one is SCIM’s');
    // userName compares without case: another User may not take it.
    const taken = await scimCall(ctx.app, 'POST', '/scim/v2/Users', scim.scim, entraUser('ADA.LOVELACE@example.com', { emails: [] }));
    assertScimError(taken, 409, 'uniqueness');
    // Nor may a User whose e-mail names the person another User already is.
    const adopted = await scimCall(
      ctx.app,
      'POST',
      '/scim/v2/Users',
      scim.scim,
      entraUser('someone@example.com', { emails: [{ value: 'ada@example.com' }] }),
    );
    assertScimError(adopted, 409, 'uniqueness');
    assert.equal((await people(ctx.app, scim.tenant)).length, 1, 'nothing stored by the refusals');
    assert.equal(user.id, (await scimCall(ctx.app, 'GET', `/scim/v2/Users/${user.id}`, scim.scim)).json().id);
  });

  it('lists and filters Users as Entra ID and Okta look them up, paged with startIndex and count', async () => {
    const scim = await givenScim(ctx);
    for (const name of ['ada', 'bea', 'cy']) await createUser(ctx.app, scim, entraUser(`${name}@example.com`, { externalId: `x-${name}` }));
    const list = async (query: string) => {
      const res = await scimCall(ctx.app, 'GET', `/scim/v2/Users${query}`, scim.scim);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as { totalResults: number; startIndex: number; itemsPerPage: number; Resources: Json[] };
      return { ...body, names: body.Resources.map((user) => user.userName) };
    };
    assert.deepEqual((await list('')).names, ['ada@example.com', 'bea@example.com', 'cy@example.com']);
    const page = await list('?startIndex=2&count=1');
    assert.deepEqual([page.totalResults, page.startIndex, page.itemsPerPage, page.names], [3, 2, 1, ['bea@example.com']]);
    assert.deepEqual((await list(`?filter=${encodeURIComponent('userName eq "BEA@example.com"')}`)).names, ['bea@example.com']);
    assert.deepEqual((await list(`?filter=${encodeURIComponent('externalId eq "x-cy"')}`)).names, ['cy@example.com']);
    assert.deepEqual((await list(`?filter=${encodeURIComponent('emails.value eq "ada@example.com"')}`)).names, ['ada@example.com']);
    assert.deepEqual((await list(`?filter=${encodeURIComponent('userName sw "b" or userName ew "y@example.com"')}`)).names, [
      'bea@example.com',
      'cy@example.com',
    ]);
    assert.deepEqual((await list(`?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`)).totalResults, 0);
    assertScimError(
      await scimCall(ctx.app, 'GET', `/scim/v2/Users?filter=${encodeURIComponent('shoeSize gt 3')}`, scim.scim),
      400,
      'invalidFilter',
    );
    assertScimError(
      await scimCall(ctx.app, 'GET', `/scim/v2/Users?filter=${encodeURIComponent('userName eq')}`, scim.scim),
      400,
      'invalidFilter',
    );
    // A person no SCIM client provisioned is no User.
    await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: scim.tenant.headers,
      payload: { users: [{ name: 'Dee', attributes: { email: 'dee@example.com' } }] },
    });
    assert.equal((await list('')).totalResults, 3);
  });

  it('deactivates with Entra ID’s PATCH: credentials refused at once, out of the people and searches; Okta’s PATCH reactivates', async () => {
    const scim = await givenScim(ctx);
    const user = await createUser(ctx.app, scim, entraUser('ada@example.com'));
    const [actor] = await people(ctx.app, scim.tenant);
    const agent = { account: actor.account };
    const username = `u-${randomBytes(6).toString('hex')}`;
    const credential = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: scim.tenant.headers,
      payload: { username, password: PASSWORD, data: { actor: agent } },
    });
    assert.equal(credential.statusCode, 201, credential.body);
    const learner = { authorization: basic(username, PASSWORD), 'x-svc-tenant': scim.tenant.name };
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/me', headers: learner })).statusCode, 200);

    const patched = await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${user.id}`, scim.scim, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().active, false);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/me', headers: learner })).statusCode, 401, 'the credential is revoked');
    assert.equal((await people(ctx.app, scim.tenant)).length, 0, 'no longer one of the people');
    assert.equal((await people(ctx.app, scim.tenant, 'deactivated')).length, 1);
    const searched = await ctx.app.inject({
      method: 'POST',
      url: '/api/actors/search',
      headers: scim.tenant.headers,
      payload: { criteria: { field: 'attributes.email', op: 'eq', value: 'ada@example.com' } },
    });
    assert.equal(searched.statusCode, 200, searched.body);
    assert.equal((searched.json() as { total: number }).total, 0, 'out of searches');
    const refused = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/basic',
      headers: scim.tenant.headers,
      payload: { username: `u-${randomBytes(6).toString('hex')}`, password: PASSWORD, data: { actor: agent } },
    });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().code, 'auth.actor_deactivated');

    const okta = await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${user.id}`, scim.scim, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: true } }],
    });
    assert.equal(okta.statusCode, 200, okta.body);
    assert.equal(okta.json().active, true);
    assert.equal((await people(ctx.app, scim.tenant)).length, 1);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: '/api/me', headers: learner })).statusCode,
      401,
      'a revoked credential stays revoked',
    );

    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit', headers: scim.admin });
    const actions = (audit.json() as Array<{ action: string }>).map((entry) => entry.action);
    assert.ok(actions.includes('actor.deactivated') && actions.includes('actor.reactivated'), actions.join());
  });

  it('replaces with PUT under If-Match, patches Entra ID’s e-mail and manager paths, and refuses a stale version', async () => {
    const scim = await givenScim(ctx);
    const boss = await createUser(ctx.app, scim, entraUser('boss@example.com'));
    const user = await createUser(ctx.app, scim, entraUser('ada@example.com'));
    const stale = await scimCall(
      ctx.app,
      'PUT',
      `/scim/v2/Users/${user.id}`,
      { ...scim.scim, 'if-match': 'W/"nope"' },
      entraUser('ada@example.com'),
    );
    assert.equal(stale.statusCode, 412, stale.body);
    const replaced = await scimCall(
      ctx.app,
      'PUT',
      `/scim/v2/Users/${user.id}`,
      { ...scim.scim, 'if-match': String((user.meta as Json).version) },
      { schemas: [USER], userName: 'ada@example.com', emails: [{ value: 'ada@example.com' }], name: { givenName: 'Ada' } },
    );
    assert.equal(replaced.statusCode, 200, replaced.body);
    const body = replaced.json() as Json;
    assert.equal(body.title, undefined, 'a PUT replaces: what it leaves out is gone');
    assert.notEqual((body.meta as Json).version, (user.meta as Json).version);

    const patched = await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${user.id}`, scim.scim, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Add', path: 'emails[type eq "work"].value', value: 'ada.l@example.com' },
        { op: 'Replace', path: `${ENTERPRISE}:manager`, value: boss.id },
        { op: 'Add', value: { 'name.familyName': 'Lovelace' } },
      ],
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const after = (await people(ctx.app, scim.tenant)).find((actor) => attributesOf(actor)?.userName === 'ada@example.com');
    assert.equal(attributesOf(after as Json)?.manager, boss.id);
    assert.equal(attributesOf(after as Json)?.familyName, 'Lovelace');
    assert.ok(['ada.l@example.com', 'ada@example.com'].includes(String(attributesOf(after as Json)?.email)));

    assertScimError(
      await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${user.id}`, scim.scim, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'id', value: 'x' }],
      }),
      400,
      'mutability',
    );
    assertScimError(await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${user.id}`, scim.scim, { Operations: 'nope' }), 400, 'invalidSyntax');
  });

  it('deletes: the person is deactivated and the id answers 404; the same values later adopt the same person again', async () => {
    const scim = await givenScim(ctx);
    const user = await createUser(ctx.app, scim, entraUser('ada@example.com'));
    const deleted = await scimCall(ctx.app, 'DELETE', `/scim/v2/Users/${user.id}`, scim.scim);
    assert.equal(deleted.statusCode, 204, deleted.body);
    assertScimError(await scimCall(ctx.app, 'GET', `/scim/v2/Users/${user.id}`, scim.scim), 404);
    assertScimError(await scimCall(ctx.app, 'DELETE', `/scim/v2/Users/${user.id}`, scim.scim), 404);
    assert.equal((await people(ctx.app, scim.tenant)).length, 0);
    const again = await createUser(ctx.app, scim, entraUser('ada@example.com'));
    assert.equal(again.id, user.id, 'the same person');
    assert.equal(again.active, true);
  });

  it('deletes with an empty body under a SCIM or JSON Content-Type, as identity providers send a DELETE; a body that is no JSON is still 400', async () => {
    const scim = await givenScim(ctx);
    const ada = await createUser(ctx.app, scim, entraUser('ada@example.com'));
    const bea = await createUser(ctx.app, scim, entraUser('bea@example.com', { emails: [{ value: 'bea@example.com' }] }));
    const cy = await createUser(ctx.app, scim, entraUser('cy@example.com', { emails: [{ value: 'cy@example.com' }] }));
    const deleteWith = (id: unknown, contentType: string, payload?: string) =>
      ctx.app.inject({
        method: 'DELETE',
        url: `/scim/v2/Users/${id}`,
        headers: { ...scim.scim, 'content-type': contentType },
        ...(payload === undefined ? {} : { payload }),
      });
    const scimJson = await deleteWith(ada.id, 'application/scim+json', '');
    assert.equal(scimJson.statusCode, 204, scimJson.body);
    const json = await deleteWith(bea.id, 'application/json; charset=utf-8');
    assert.equal(json.statusCode, 204, json.body);
    assertScimError(await deleteWith(cy.id, 'application/scim+json', '{"schemas": ['), 400, 'invalidSyntax');
    assertScimError(await scimCall(ctx.app, 'GET', `/scim/v2/Users/${ada.id}`, scim.scim), 404);
    assertScimError(await scimCall(ctx.app, 'GET', `/scim/v2/Users/${bea.id}`, scim.scim), 404);
    assert.deepEqual(
      (await people(ctx.app, scim.tenant)).map((actor) => (actor.account as Json).name),
      ['cy@example.com'],
      'Ada and Bea deactivated, Cy kept',
    );
    const deactivated = await people(ctx.app, scim.tenant, 'deactivated');
    assert.deepEqual(deactivated.map((actor) => (actor.account as Json).name).sort(), ['ada@example.com', 'bea@example.com']);
  });

  it('refuses malformed Users with SCIM errors and stores nothing; another tenant’s User is 404', async () => {
    const scim = await givenScim(ctx);
    const other = await givenScim(ctx);
    const users = '/scim/v2/Users';
    assertScimError(await scimCall(ctx.app, 'POST', users, scim.scim, [1, 2]), 400, 'invalidSyntax');
    assertScimError(await scimCall(ctx.app, 'POST', users, scim.scim, { userName: 'no-schemas@example.com' }), 400, 'invalidSyntax');
    assertScimError(await scimCall(ctx.app, 'POST', users, scim.scim, { schemas: [USER] }), 400, 'invalidValue');
    assertScimError(
      await scimCall(ctx.app, 'POST', users, scim.scim, { schemas: [USER], userName: 'a\u0000b', emails: [{ value: 'a@b' }] }),
      400,
      'invalidValue',
    );
    assertScimError(
      await scimCall(ctx.app, 'POST', users, scim.scim, { schemas: [USER], userName: 'x', active: 'maybe', emails: [{ value: 'x@y' }] }),
      400,
      'invalidValue',
    );
    const noEmail = assertScimError(
      await scimCall(ctx.app, 'POST', users, scim.scim, { schemas: [USER], userName: 'nomail' }),
      400,
      'invalidValue',
    );
    assert.match(String(noEmail.detail), /"email"/);
    const badJson = await ctx.app.inject({
      method: 'POST',
      url: users,
      headers: { ...scim.scim, 'content-type': 'application/scim+json' },
      payload: '{"schemas": [',
    });
    assertScimError(badJson, 400, 'invalidSyntax');
    assert.equal((await people(ctx.app, scim.tenant, 'all')).length, 0, 'nothing stored');

    const user = await createUser(ctx.app, other, entraUser('ada@example.com'));
    assertScimError(await scimCall(ctx.app, 'GET', `${users}/${user.id}`, scim.scim), 404);
    assertScimError(await scimCall(ctx.app, 'PUT', `${users}/${user.id}`, scim.scim, entraUser('ada@example.com')), 404);
    assertScimError(await scimCall(ctx.app, 'GET', `${users}/not-a-uuid`, scim.scim), 404);
  });
});

describeEachBackend('SCIM Users written at once', (ctx) => {
  it('one userName sent by ten requests at once is one User (nine 409s); ten people at once are ten; one imported person is adopted once', async () => {
    const scim = await givenScim(ctx);
    const same = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        scimCall(
          ctx.app,
          'POST',
          '/scim/v2/Users',
          scim.scim,
          entraUser('ada@example.com', { emails: [{ value: `ada${i}@example.com` }] }),
        ),
      ),
    );
    assert.deepEqual(same.map((res) => res.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const distinct = await Promise.all(
      Array.from({ length: 10 }, (_, i) => scimCall(ctx.app, 'POST', '/scim/v2/Users', scim.scim, entraUser(`p${i}@example.com`))),
    );
    assert.deepEqual(
      distinct.map((res) => res.statusCode),
      Array(10).fill(201),
    );
    const imported = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: scim.tenant.headers,
      payload: { users: [{ name: 'Bea', attributes: { email: 'bea@example.com' } }] },
    });
    assert.equal(imported.statusCode, 200, imported.body);
    const adopting = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        scimCall(
          ctx.app,
          'POST',
          '/scim/v2/Users',
          scim.scim,
          entraUser(`bea${i}@corp.example.com`, { emails: [{ value: 'bea@example.com' }] }),
        ),
      ),
    );
    assert.deepEqual(adopting.map((res) => res.statusCode).sort(), [201, 409, 409, 409, 409, 409]);
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/actors?limit=1000', headers: scim.tenant.headers });
    const accounts = (listed.json() as Json[]).map((actor) => String((actor.account as Json).name));
    assert.equal(accounts.filter((name) => /^ada\d@example\.com$/.test(name)).length, 1, 'one Ada, whichever request won');
    assert.deepEqual(
      accounts.filter((name) => !name.startsWith('ada')).sort(),
      ['bea@example.com', ...Array.from({ length: 10 }, (_, i) => `p${i}@example.com`)].sort(),
    );
  });
});

describeEachBackend('SCIM renames at once', (ctx) => {
  it('two Users renamed to one userName at once: one is, the other gets 409; a userName kept in another case is no conflict', async () => {
    const scim = await givenScim(ctx);
    const ada = await createUser(ctx.app, scim, entraUser('ada@example.com'));
    const bea = await createUser(ctx.app, scim, entraUser('bea@example.com', { emails: [{ value: 'bea@example.com' }] }));
    const rename = (userName: string) => ({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'userName', value: userName }] });
    const both = await Promise.all(
      [ada, bea].map((user) => scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${user.id}`, scim.scim, rename('Cy@Example.com'))),
    );
    assert.deepEqual(both.map((res) => res.statusCode).sort(), [200, 409]);
    assertScimError(both.find((res) => res.statusCode === 409)!, 409, 'uniqueness');
    const listed = await scimCall(ctx.app, 'GET', `/scim/v2/Users?filter=${encodeURIComponent('userName eq "cy@example.com"')}`, scim.scim);
    assert.equal((listed.json() as Json).totalResults, 1);

    // The winner keeps its userName in another case and changes its title: nobody else holds it, nothing to refuse.
    const winner = both.find((res) => res.statusCode === 200)!.json() as Json;
    const kept = await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${winner.id}`, scim.scim, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'userName', value: 'CY@EXAMPLE.COM' },
        { op: 'Replace', path: 'title', value: 'Lead' },
      ],
    });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.equal((kept.json() as Json).userName, 'CY@EXAMPLE.COM');
    assert.equal((kept.json() as Json).title, 'Lead');
    // The loser may not take it in any case either.
    const loser = [ada, bea].find((user) => user.id !== winner.id)!;
    assertScimError(await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${loser.id}`, scim.scim, rename('cy@EXAMPLE.com')), 409, 'uniqueness');
  });
});

describeEachBackend('SCIM deactivation and learning assignments', (ctx) => {
  it('a deactivated person leaves static and dynamic assignments keeping what they completed, and rejoins both when reactivated', async () => {
    const tenant = await givenLearningTenant(ctx);
    const r = requests(ctx);
    await r.putSettings(tenant, { ...SETTINGS, uniqueAttributes: ['employeeId', 'email'] });
    const record = (await new TenancyService(ctx.db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
    const scim: Scim = {
      tenant,
      admin: {},
      scim: { authorization: `Bearer ${(await issueScimToken(ctx.db, record)).token}` },
      tokenId: '',
    };
    const department = { [ENTERPRISE]: { department: 'Eng' } };
    const ada = await createUser(ctx.app, scim, entraUser('ada@example.com', { emails: [{ value: 'ada@example.com' }], ...department }));
    await createUser(ctx.app, scim, entraUser('bea@example.com', { emails: [{ value: 'bea@example.com' }], ...department }));
    const actorId = (email: string) => `account|${HR}|${email}`;
    const activities = [COURSE_A, COURSE_D];
    const fixed = await r.create(tenant, {
      name: 'Static',
      activityIds: activities,
      people: { actorIds: [actorId('ada@example.com'), actorId('bea@example.com')] },
    });
    const dynamic = await r.create(tenant, {
      name: 'Dynamic',
      activityIds: activities,
      people: { criteria: { field: 'attributes.department', op: 'eq', value: 'Eng' } },
    });
    await r.statements(tenant, [
      { actor: { account: { homePage: HR, name: 'ada@example.com' } }, verb: { id: `${ADL}completed` }, object: { id: COURSE_A } },
    ]);
    const membership = async () =>
      Promise.all(
        [fixed, dynamic].map(async (assignment) => {
          const item = await r.item(tenant, assignment.id);
          return [item.members, item.formerMembers];
        }),
      );
    assert.deepEqual(await membership(), [
      [2, 0],
      [2, 0],
    ]);

    const off = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] };
    assert.equal((await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${ada.id}`, scim.scim, off)).statusCode, 200);
    assert.deepEqual(
      await membership(),
      [
        [1, 1],
        [1, 1],
      ],
      'Ada left both, keeping course A',
    );
    const people = await r.people(tenant, fixed.id);
    const former = (people.people as Json[]).find((person) => JSON.stringify(person).includes('ada@example.com'));
    assert.ok(former, `Ada is listed as a former member keeping what she did: ${JSON.stringify(people)}`);

    const on = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: true }] };
    assert.equal((await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${ada.id}`, scim.scim, on)).statusCode, 200);
    assert.deepEqual(
      await membership(),
      [
        [2, 0],
        [2, 0],
      ],
      'reactivated, she rejoins both',
    );
  });
});

const filterUsers = async (app: FastifyInstance, scim: Scim, filter: string) => {
  const res = await scimCall(app, 'GET', `/scim/v2/Users?filter=${encodeURIComponent(filter)}`, scim.scim);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { totalResults: number; Resources: Json[] };
};
const renameTo = (userName: string) => ({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'userName', value: userName }] });

describeEachBackend('SCIM userNames folded as the database folds them', (ctx) => {
  it('two creates of İrace-… and irace-… at once, round after round: one 201, one 409, and the filter finds one', async () => {
    const scim = await givenScim(ctx);
    for (let round = 0; round < 8; round++) {
      const both = await Promise.all(
        [`İrace-${round}`, `irace-${round}`].map((userName, i) =>
          scimCall(
            ctx.app,
            'POST',
            '/scim/v2/Users',
            scim.scim,
            entraUser(userName, { emails: [{ value: `r${round}-${i}@example.com` }] }),
          ),
        ),
      );
      assert.deepEqual(both.map((res) => res.statusCode).sort(), [201, 409], `round ${round}: ${both.map((res) => res.body).join(' | ')}`);
      assertScimError(both.find((res) => res.statusCode === 409)!, 409, 'uniqueness');
      for (const userName of [`İrace-${round}`, `irace-${round}`, `IRACE-${round}`]) {
        assert.equal((await filterUsers(ctx.app, scim, `userName eq "${userName}"`)).totalResults, 1, userName);
      }
    }
    assert.equal((await filterUsers(ctx.app, scim, 'userName sw "irace-"')).totalResults, 8);
  });

  it('a PATCH renaming σας-… to ΣΑΣ-…, which another User holds, is 409; a name folded alike is kept; the filter finds one', async () => {
    const scim = await givenScim(ctx);
    // lower() folds Σ to σ wherever it stands: ΣΑΣ-x is σασ-x, which σας-x (a final sigma) is not. Two Users.
    const final = await createUser(ctx.app, scim, entraUser('σας-x', { emails: [{ value: 'final@example.com' }] }));
    const upper = await createUser(ctx.app, scim, entraUser('ΣΑΣ-x', { emails: [{ value: 'upper@example.com' }] }));
    const renamed = await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${final.id}`, scim.scim, renameTo('ΣΑΣ-x'));
    assertScimError(renamed, 409, 'uniqueness');
    const put = await scimCall(
      ctx.app,
      'PUT',
      `/scim/v2/Users/${final.id}`,
      scim.scim,
      entraUser('σασ-X', { emails: [{ value: 'final@example.com' }] }),
    );
    assertScimError(put, 409, 'uniqueness');
    const held = await filterUsers(ctx.app, scim, 'userName eq "ΣΑΣ-x"');
    assert.deepEqual(
      held.Resources.map((user) => [user.id, user.userName]),
      [[upper.id, 'ΣΑΣ-x']],
    );
    assert.equal(await getUserName(ctx.app, scim, final.id as string), 'σας-x', 'unchanged');

    // The holder keeps its name in another case (σασ-X folds as ΣΑΣ-x): no conflict with itself.
    const kept = await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${upper.id}`, scim.scim, renameTo('σασ-X'));
    assert.equal(kept.statusCode, 200, kept.body);
    assert.equal((kept.json() as Json).userName, 'σασ-X');
    // İ is i to lower(): İrace-k and irace-k are one name, kept by a rename between them.
    const dotted = await createUser(ctx.app, scim, entraUser('İrace-k', { emails: [{ value: 'dotted@example.com' }] }));
    const undotted = await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${dotted.id}`, scim.scim, renameTo('irace-K'));
    assert.equal(undotted.statusCode, 200, undotted.body);
    assertScimError(await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${final.id}`, scim.scim, renameTo('İRACE-k')), 409, 'uniqueness');
  });

  it('an import or an agent upsert giving a person the userName of a User, in any case, is refused (actors.user_name_taken), and a name too long to index is a 400; nothing changes', async () => {
    const scim = await givenScim(ctx);
    const user = await createUser(ctx.app, scim, entraUser('İrace-i', { emails: [{ value: 'user@example.com' }] }));
    const imported = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: scim.tenant.headers,
      payload: { users: [{ name: 'Other', attributes: { email: 'other@example.com', userName: 'IRACE-I' } }] },
    });
    assert.equal(imported.statusCode, 409, imported.body);
    assert.equal(imported.json().code, 'actors.user_name_taken');
    const upserted = await ctx.app.inject({
      method: 'PUT',
      url: '/api/actors/agents',
      headers: scim.tenant.headers,
      payload: {
        objectType: 'Agent',
        account: { homePage: HR, name: 'other@example.com' },
        name: 'Other',
        extensions: { 'http://localhost/api/ext/agent/attributes': { email: 'other@example.com', userName: 'irace-i' } },
      },
    });
    assert.equal(upserted.statusCode, 409, upserted.body);
    assert.equal(upserted.json().code, 'actors.user_name_taken');
    // A name too long for the index (and not compressible into it): refused by name, not a 500.
    const long = randomBytes(4_000).toString('base64');
    assertScimError(
      await scimCall(ctx.app, 'POST', '/scim/v2/Users', scim.scim, entraUser(long, { emails: [{ value: 'long@example.com' }] })),
      400,
      'invalidValue',
    );
    assertScimError(
      await scimCall(ctx.app, 'PATCH', `/scim/v2/Users/${user.id}`, scim.scim, renameTo('y'.repeat(501))),
      400,
      'invalidValue',
    );
    const longImport = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: scim.tenant.headers,
      payload: { users: [{ name: 'Long', attributes: { email: 'long@example.com', userName: long } }] },
    });
    assert.equal(longImport.statusCode, 400, longImport.body);
    assert.equal(longImport.json().code, 'actors.user_name_too_long');
    const listed = await filterUsers(ctx.app, scim, 'userName eq "irace-i"');
    assert.deepEqual(
      listed.Resources.map((found) => found.id),
      [user.id],
    );
    assert.deepEqual(
      (await people(ctx.app, scim.tenant, 'all')).map((actor) => (actor.account as Json).name),
      ['user@example.com'],
      'nothing stored',
    );
  });
});

async function getUserName(app: FastifyInstance, scim: Scim, id: string): Promise<unknown> {
  const res = await scimCall(app, 'GET', `/scim/v2/Users/${id}`, scim.scim);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as Json).userName;
}

for (const backend of BACKENDS) {
  describe(`SCIM Users sharing a userName before migration 0040 [${backend.name}]`, () => {
    it('keeps the active User stored first; the others lose the userName (kept as userNameBefore0040) and are no longer Users', async () => {
      // A database migrated but for 0040, where the defect let people share a folded userName. The
      // migrations after 0040 are applied with the others: today's code, which makes the Users,
      // writes their tables (learning's kept counts, migration 0043) in the same transaction.
      const before = mkdtempSync(join(tmpdir(), 'learnbase-migrations-'));
      for (const name of migrationFiles().filter((file) => !file.startsWith('0040_')))
        copyFileSync(join(MIGRATIONS_DIR, name), join(before, name));
      const { db, dispose } = await backend.open();
      try {
        await migrate(db, before);
        let app = await buildApp(testConfig(), db, { logger: false });
        const tenant = await new Given(app, db).tenant();
        const record = (await new TenancyService(db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
        const scim: Scim = {
          tenant,
          admin: {},
          scim: { authorization: `Bearer ${(await issueScimToken(db, record)).token}` },
          tokenId: '',
        };
        const users = [
          ['Deactivated first', 'IRACE-M', false],
          ['Kept', 'İrace-m', true],
          ['Second', 'irace-m', true],
          ['Apart', 'σας-m', true],
        ] as const;
        for (const [name, userName, active] of users) {
          const user = await createUser(app, scim, entraUser(`${name.replace(/ /g, '')}@example.com`));
          // Today's code refuses the shared name; the stored rows are what the defect left.
          await db.query(`UPDATE actors SET attributes = attributes || jsonb_build_object('userName', $2::text) WHERE id = $1`, [
            user.id,
            userName,
          ]);
          if (!active) {
            const off = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] };
            assert.equal((await scimCall(app, 'PATCH', `/scim/v2/Users/${user.id}`, scim.scim, off)).statusCode, 200);
          }
        }
        assert.equal((await filterUsers(app, scim, 'userName eq "irace-m"')).totalResults, 3, 'the defect: three Users of one name');
        await app.close();

        assert.deepEqual(await migrate(db), ['0040_scim_user_names_and_hr_progress.sql'], '0040 applies, after the others');
        app = await buildApp(testConfig(), db, { logger: false });
        const held = await filterUsers(app, scim, 'userName eq "irace-m"');
        assert.deepEqual(
          held.Resources.map((user) => [user.displayName, user.userName, user.active]),
          [['Ada Lovelace', 'İrace-m', true]],
        );
        const byName = new Map(
          (await people(app, tenant, 'all')).map((actor) => [String((actor.account as Json).name), attributesOf(actor)]),
        );
        assert.equal(byName.get('Kept@example.com')?.userName, 'İrace-m');
        assert.equal(byName.get('Apart@example.com')?.userName, 'σας-m', 'another name is untouched');
        for (const [account, userName] of [
          ['Deactivatedfirst@example.com', 'IRACE-M'],
          ['Second@example.com', 'irace-m'],
        ]) {
          assert.equal(byName.get(account)?.userName, undefined, account);
          assert.equal(byName.get(account)?.userNameBefore0040, userName, account);
        }
        assert.equal((await filterUsers(app, scim, 'userName sw ""')).totalResults, 2);
        // The name is one User's from now on, under any case.
        const again = await scimCall(app, 'POST', '/scim/v2/Users', scim.scim, entraUser('Second@example.com', { userName: 'IRACE-m' }));
        assertScimError(again, 409, 'uniqueness');
        await app.close();
      } finally {
        await dispose();
        rmSync(before, { recursive: true, force: true });
      }
    });
  });
}
