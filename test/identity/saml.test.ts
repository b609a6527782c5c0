import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import type { Browser } from 'playwright-core';
import { exchange, givenOAuth, pkceChallenge, REDIRECT_URI, submitSignInForm } from '../auth/oauth-token-fixtures.js';
import { METADATA_REFRESH_MS, refreshDueMetadata } from '../../src/modules/identity/sso/saml-metadata.service.js';
import { createAdmin } from '../../src/modules/auth/admins/admin.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { newSecret } from '../../src/platform/issued-secrets.js';
import { OutboundHttp } from '../../src/platform/outbound-http.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { browserSkip, launchChromium, serveContentPage } from '../support/chromium.js';
import { attributesOf, givenLaunchTenant, type LaunchTenant, peopleOf } from './sign-on-fixtures.js';
import { type Attributes, readAuthnRequest, type ResponseOptions, type SamlIdpFixture, startSamlIdp } from './saml-fixtures.js';

/**
 * Single sign-on with SAML 2.0: a launch link without `auth` in Chromium goes to a SAML identity
 * provider on loopback (saml-fixtures.ts), whose signed Response the browser posts back, and lands
 * on the content launched as the person it names (created just in time, updated at the next
 * sign-in). The Responses that must be refused are crafted and posted directly: each refused with
 * no actor created.
 */
const skip = browserSkip;
type Json = Record<string, unknown>;

/** The daily round's client, as the test app's: loopback allowed, for the provider on 127.0.0.1. */
const loopbackOutbound = new OutboundHttp({ allowPrivate: false, allowLoopback: true });

const ADA: Attributes = { email: 'ada@example.com', givenName: 'Ada', sn: 'Lovelace', groups: ['staff'] };

interface SamlFixture extends LaunchTenant {
  idp: SamlIdpFixture;
  spEntityId: string;
}

/** `PUT /api/sso/connections/corp` as `admin`: the connection every test here configures. */
const putCorp = (ctx: TestContext, admin: Record<string, string>, payload: unknown) =>
  ctx.app.inject({ method: 'PUT', url: '/api/sso/connections/corp', headers: admin, payload: payload as object });

async function givenSaml(ctx: TestContext, contentOrigin: string, idps: SamlIdpFixture[]): Promise<SamlFixture> {
  const launchTenant = await givenLaunchTenant(ctx, contentOrigin, 'http://example.com/courses/saml');
  const { tenant, admin } = launchTenant;
  const idp = await startSamlIdp(new Map([['ada', { ...ADA }]]));
  idps.push(idp);
  // By its metadata's URL, as an admin of Keycloak or Entra ID would give it.
  const connection = await putCorp(ctx, admin, { protocol: 'saml', metadataUrl: idp.metadataUrl });
  assert.equal(connection.statusCode, 201, connection.body);
  const view = connection.json() as Json;
  assert.equal(view.protocol, 'saml');
  assert.equal(view.idpEntityId, idp.entityId);
  assert.equal(view.entryPoint, idp.ssoUrl);
  assert.equal(view.certificates, 1);
  assert.equal(view.spEntityId, `urn:learnbase:${tenant.name}:corp`);
  assert.match(String(view.acsUrl), /\/auth\/sso\/saml$/);
  return { ...launchTenant, idp, spEntityId: String(view.spEntityId) };
}

/** A sign-in started by a launch link (inject): the AuthnRequest the provider would receive, and the state cookie. */
async function startSignIn(ctx: TestContext, fixture: SamlFixture) {
  const link = await ctx.app.inject({
    method: 'GET',
    url: `/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`,
    headers: { host: fixture.host },
  });
  assert.equal(link.statusCode, 302, link.body);
  const location = String(link.headers.location);
  assert.ok(location.startsWith(`${fixture.idp.ssoUrl}?`), location);
  const cookie = String(link.headers['set-cookie']).split(';')[0]!;
  return { request: readAuthnRequest(location), cookie };
}

function postResponse(ctx: TestContext, fixture: SamlFixture, samlResponse: string, relayState: string) {
  return ctx.app.inject({
    method: 'POST',
    url: '/auth/sso/saml',
    headers: { host: fixture.host, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState }).toString(),
  });
}

describeEachBackend('Single sign-on with SAML 2.0', (ctx) => {
  let browser: Browser;
  let content: Awaited<ReturnType<typeof serveContentPage>>;
  const idps: SamlIdpFixture[] = [];

  before(async () => {
    content = await serveContentPage('<!doctype html><html lang="en"><head><title>Course</title></head><body>course</body></html>');
    if (skip) return;
    browser = await launchChromium({ tenantSubdomains: true });
  });
  after(async () => {
    await browser?.close();
    await Promise.all(idps.map((idp) => idp.close()));
    await content?.close();
  });

  it('launches as the person the assertion names: created just in time, updated at the next sign-in', { skip }, async () => {
    const fixture = await givenSaml(ctx, content.origin, idps);
    const signIn = async () => {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`http://${fixture.host}/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`);
      assert.ok(page.url().startsWith(`${fixture.idp.ssoUrl}?`), `at the provider: ${page.url()}`);
      await page.fill('input[name=login]', 'ada');
      await Promise.all([page.waitForURL(`${content.origin}/**`), page.click('button[type=submit]')]);
      return new URL(page.url());
    };
    const landed = await signIn();
    assert.equal(`${landed.origin}${landed.pathname}`, `${content.origin}/course/`);
    const actor = JSON.parse(landed.searchParams.get('actor') ?? '{}') as Json;
    assert.deepEqual(actor.account, { homePage: `http://${fixture.tenant.name}.localhost`, name: 'ada@example.com' });
    const statements = await ctx.app.inject({
      method: 'GET',
      url: '/xapi/statements',
      headers: { authorization: landed.searchParams.get('auth') ?? '', 'x-experience-api-version': '1.0.3' },
    });
    assert.equal(statements.statusCode, 200, 'the launch token works');
    let [ada] = await peopleOf(ctx, fixture.tenant);
    assert.equal(ada?.name, 'Ada Lovelace');
    assert.deepEqual(attributesOf(ada), { email: 'ada@example.com', givenName: 'Ada', familyName: 'Lovelace' });
    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=actor.created', headers: fixture.admin });
    assert.equal((audit.json() as Json[])[0]?.source, 'sso:corp');

    fixture.idp.people.set('ada', { ...ADA, sn: 'King' });
    await signIn();
    const people = await peopleOf(ctx, fixture.tenant);
    assert.equal(people.length, 1, 'one person');
    [ada] = people;
    assert.equal(ada?.name, 'Ada King');
    assert.equal(attributesOf(ada)?.familyName, 'King');
  });

  it('refuses a Response that does not check, with no actor created; an answer is taken once', async () => {
    const fixture = await givenSaml(ctx, content.origin, idps);
    const valid = (request: { id: string; acsUrl: string }): ResponseOptions => ({
      inResponseTo: request.id,
      acsUrl: request.acsUrl,
      audience: fixture.spEntityId,
      nameId: 'ada@example.com',
      attributes: ADA,
    });
    const refusals: Array<[string, (options: ResponseOptions) => ResponseOptions]> = [
      ['another audience (another tenant’s connection)', (o) => ({ ...o, audience: 'urn:learnbase:other:corp' })],
      ['expired', (o) => ({ ...o, notOnOrAfter: new Date(Date.now() - 5 * 60_000) })],
      ['unsigned', (o) => ({ ...o, signedBy: 'nobody' })],
      ['signed by another key', (o) => ({ ...o, signedBy: 'other' })],
      [
        'altered after signing',
        (o) => ({ ...o, tamper: (xml) => xml.replace('ada@example.com</saml:AttributeValue>', 'eve@example.com</saml:AttributeValue>') }),
      ],
      ['another recipient', (o) => ({ ...o, recipient: 'https://elsewhere.example.com/acs' })],
      ['sent to another Destination', (o) => ({ ...o, destination: 'https://elsewhere.example.com/auth/sso/saml' })],
      [
        'a signed Response sent to another Destination',
        (o) => ({ ...o, signResponse: true, destination: 'https://elsewhere.example.com/auth/sso/saml' }),
      ],
      ['a signed Response naming no Destination', (o) => ({ ...o, signResponse: true, destination: null })],
      ['signed with RSA-SHA1', (o) => ({ ...o, sha1: 'signature' })],
      ['a SHA-1 digest', (o) => ({ ...o, sha1: 'digest' })],
      ['a Response signed with SHA-1 throughout', (o) => ({ ...o, signResponse: true, sha1: 'both' })],
      ['another issuer', (o) => ({ ...o, issuer: 'https://idp.elsewhere.example.com' })],
      ['for another request', (o) => ({ ...o, inResponseTo: '_another' })],
      ['asked for by nobody', (o) => ({ ...o, inResponseTo: undefined })],
    ];
    for (const [what, change] of refusals) {
      const { request } = await startSignIn(ctx, fixture);
      const posted = await postResponse(ctx, fixture, fixture.idp.response(change(valid(request))), request.relayState);
      assert.equal(posted.statusCode, 401, `${what}: ${posted.body.slice(0, 300)}`);
      assert.match(String(posted.headers['content-type']), /^text\/html/);
      // The sign-in is over: not even the right answer is taken for it now.
      const after = await postResponse(ctx, fixture, fixture.idp.response(valid(request)), request.relayState);
      assert.equal(after.statusCode, 400, `${what}: the sign-in ended`);
    }
    assert.deepEqual(await peopleOf(ctx, fixture.tenant), [], 'no actor created');

    // The right answer: on to the callback, which the browser's state cookie must reach.
    const { request, cookie } = await startSignIn(ctx, fixture);
    const samlResponse = fixture.idp.response(valid(request));
    const posted = await postResponse(ctx, fixture, samlResponse, request.relayState);
    assert.equal(posted.statusCode, 303, posted.body);
    const callback = new URL(String(posted.headers.location));
    assert.equal(callback.pathname, '/auth/sso/callback');
    const replayed = await postResponse(ctx, fixture, samlResponse, request.relayState);
    assert.equal(replayed.statusCode, 400, 'the same answer twice');
    const noCookie = await ctx.app.inject({
      method: 'GET',
      url: `${callback.pathname}${callback.search}`,
      headers: { host: fixture.host },
    });
    assert.equal(noCookie.statusCode, 400, 'another browser');
    assert.deepEqual(await peopleOf(ctx, fixture.tenant), [], 'no actor yet');
    // The browser that left, with its cookie: launched, as the person created just in time; once.
    const launched = await ctx.app.inject({
      method: 'GET',
      url: `${callback.pathname}${callback.search}`,
      headers: { host: fixture.host, cookie },
    });
    assert.equal(launched.statusCode, 302, launched.body);
    assert.ok(String(launched.headers.location).startsWith(`${content.origin}/course/`));
    assert.equal((await peopleOf(ctx, fixture.tenant)).length, 1);
    const twice = await ctx.app.inject({
      method: 'GET',
      url: `${callback.pathname}${callback.search}`,
      headers: { host: fixture.host, cookie },
    });
    assert.equal(twice.statusCode, 400, 'a sign-in is finished once');
  });

  it('takes a Response naming this sign-in’s address, and SHA-1 only from a connection that allows it', async () => {
    const fixture = await givenSaml(ctx, content.origin, idps);
    /** A sign-in answered by the test provider's Response, changed by `options`: 303 taken, 401 refused. */
    const answer = async (options: Partial<ResponseOptions>) => {
      const { request } = await startSignIn(ctx, fixture);
      const samlResponse = fixture.idp.response({
        inResponseTo: request.id,
        acsUrl: request.acsUrl,
        audience: fixture.spEntityId,
        nameId: 'ada@example.com',
        attributes: ADA,
        ...options,
      });
      const posted = await postResponse(ctx, fixture, samlResponse, request.relayState);
      return posted.statusCode;
    };
    assert.equal(await answer({ signResponse: true }), 303, 'a signed Response naming the address the request named');
    assert.equal(await answer({ destination: null }), 303, 'an unsigned Response may name none (SAML 2.0 Profiles §4.1.4.5)');
    const sha1: Array<ResponseOptions['sha1']> = ['signature', 'digest', 'both'];
    for (const used of sha1) assert.equal(await answer({ sha1: used, signResponse: true }), 401, `SHA-1 in the ${used}`);

    const allowing = await putCorp(ctx, fixture.admin, { protocol: 'saml', metadataUrl: fixture.idp.metadataUrl, allowSha1: true });
    assert.equal(allowing.statusCode, 200, allowing.body);
    assert.equal(allowing.json().allowSha1, true);
    for (const used of sha1) {
      assert.equal(await answer({ sha1: used }), 303, `SHA-1 in the ${used}, allowed`);
      assert.equal(await answer({ sha1: used, signResponse: true }), 303, `SHA-1 in the ${used} of a signed Response, allowed`);
    }
    assert.equal(
      await answer({ sha1: 'both', destination: 'https://elsewhere.example.com/auth/sso/saml' }),
      401,
      'allowing SHA-1 lets no other Destination through',
    );
    assert.equal(await answer({ sha1: 'both', signedBy: 'other' }), 401, 'nor another key');
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/sso/connections', headers: fixture.admin });
    assert.equal((listed.json() as Json[])[0]?.allowSha1, true);

    // A PUT replaces the connection: without allowSha1, SHA-1 is refused again.
    const replaced = await putCorp(ctx, fixture.admin, { protocol: 'saml', metadataUrl: fixture.idp.metadataUrl });
    assert.equal(replaced.json().allowSha1, false);
    assert.equal(await answer({ sha1: 'digest' }), 401);
    assert.deepEqual(await peopleOf(ctx, fixture.tenant), [], 'no callback reached: nobody created');

    for (const [payload, path] of [
      [{ protocol: 'saml', metadataUrl: fixture.idp.metadataUrl, allowSha1: 'yes' }, '/allowSha1'],
      [{ protocol: 'saml', metadataUrl: fixture.idp.metadataUrl, allowSha1: null }, '/allowSha1'],
      [{ issuer: 'https://login.example.com', clientId: 'x', allowSha1: true }, '/allowSha1'],
    ] as const) {
      const refused = await putCorp(ctx, fixture.admin, payload);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.deepEqual(
        (refused.json().details.problems as Json[]).map((problem) => problem.path),
        [path],
      );
    }
  });

  it('signs an admin in on the authorize page through SAML: the admins attribute makes them one', async () => {
    const fixture = await givenSaml(ctx, content.origin, idps);
    const { oauth, admin: tenantAdmin } = fixture;
    const put = await putCorp(ctx, tenantAdmin, {
      protocol: 'saml',
      metadataXml: fixture.idp.metadataXml,
      admins: { claim: 'groups', value: 'lb-admins' },
    });
    assert.equal(put.statusCode, 200, put.body);
    const spEntityId = String(put.json().spEntityId);
    const verifier = newSecret(48);
    const signOn = async (attributes: Attributes) => {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: oauth.client.clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkceChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const form = await ctx.app.inject({ method: 'GET', url: `/auth/oauth/authorize?${query}` });
      assert.equal(form.statusCode, 200, form.body);
      assert.match(form.body, /Sign in with corp/);
      const chosen = await submitSignInForm(ctx.app, form, { connection: 'corp' });
      assert.equal(chosen.statusCode, 302, chosen.body);
      const request = readAuthnRequest(String(chosen.headers.location));
      assert.equal(request.issuer, spEntityId);
      const stateCookie = String(chosen.headers['set-cookie']).split(';')[0]!;
      const samlResponse = fixture.idp.response({
        inResponseTo: request.id,
        acsUrl: request.acsUrl,
        audience: spEntityId,
        nameId: String(attributes.email),
        attributes,
      });
      const posted = await ctx.app.inject({
        method: 'POST',
        url: '/auth/sso/saml',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: request.relayState }).toString(),
      });
      assert.equal(posted.statusCode, 303, posted.body);
      const callback = new URL(String(posted.headers.location));
      return ctx.app.inject({ method: 'GET', url: `${callback.pathname}${callback.search}`, headers: { cookie: stateCookie } });
    };

    const tokenOf = async (landed: Awaited<ReturnType<typeof signOn>>) => {
      assert.equal(landed.statusCode, 302, landed.body);
      const exchanged = await ctx.app.inject({
        method: 'POST',
        url: '/auth/oauth/token',
        payload: {
          grant_type: 'authorization_code',
          client_id: oauth.client.clientId,
          client_secret: oauth.client.clientSecret,
          redirect_uri: REDIRECT_URI,
          code: new URL(String(landed.headers.location)).searchParams.get('code'),
          code_verifier: verifier,
        },
      });
      assert.equal(exchanged.statusCode, 200, exchanged.body);
      return { authorization: `Bearer ${exchanged.json().access_token}`, 'x-svc-tenant': fixture.tenant.name };
    };
    const notAdmin = await signOn({ email: 'ada@example.com', groups: ['staff'] });
    assert.equal(notAdmin.statusCode, 403, notAdmin.body);
    assert.match(notAdmin.body, /You are not an administrator here/);
    // The tenant's admin has a password (the command line made her): single sign-on does not adopt
    // her, whatever the case of her address (issue 39, defect 2).
    const adopted = await signOn({ email: oauth.adminEmail.toUpperCase(), groups: ['staff', 'lb-admins'] });
    assert.equal(adopted.statusCode, 403, adopted.body);
    assert.match(adopted.body, /Sign in with your password/);
    const audit = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=admin.created', headers: tenantAdmin });
    assert.deepEqual(audit.json(), [], 'nobody made');

    // An admin limited to an organisation entry by the command line is not signed in through single sign-on either.
    const structure = await ctx.app.inject({
      method: 'PUT',
      url: '/api/import/organisation',
      headers: fixture.tenant.headers,
      payload: [{ id: 'HQ' }, { id: 'EMEA', parentId: 'HQ' }],
    });
    assert.ok(structure.statusCode < 300, structure.body);
    const record = (await new TenancyService(ctx.db, 0).findById(fixture.tenant.id)) ?? assert.fail('no tenant');
    await createAdmin(ctx.db, record, 'lin@example.com', 'a long enough password', 'EMEA');
    const scopeOf = async (headers: Record<string, string>) => {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers });
      return res.statusCode === 200 ? (res.json().principal.scope ?? 'whole tenant') : res.statusCode;
    };
    const lin = await signOn({ email: 'lin@example.com', groups: ['lb-admins'] });
    assert.equal(lin.statusCode, 403, 'single sign-on does not widen a scope: it does not adopt her');
    assert.match(lin.body, /Sign in with your password/);

    // Values of the claim that make admins of one organisation entry.
    const rules = (scopes: Record<string, string>) =>
      putCorp(ctx, tenantAdmin, {
        protocol: 'saml',
        metadataXml: fixture.idp.metadataXml,
        admins: { claim: 'groups', value: 'lb-admins', scopes },
      });
    const unknownEntry = await rules({ 'hr-emea': 'EMEA', 'hr/x': 'NOPE' });
    assert.equal(unknownEntry.statusCode, 400, unknownEntry.body);
    assert.deepEqual(
      (unknownEntry.json().details.problems as Json[]).map((problem) => problem.path),
      ['/admins/scopes/hr~1x'],
    );
    const scopedRules = await rules({ 'hr-emea': 'EMEA', 'hr-hq': 'HQ' });
    assert.equal(scopedRules.statusCode, 200, scopedRules.body);
    assert.deepEqual(scopedRules.json().admins.scopes, { 'hr-emea': 'EMEA', 'hr-hq': 'HQ' });
    const bea = await tokenOf(await signOn({ email: 'bea@example.com', groups: ['staff', 'hr-emea'] }));
    assert.deepEqual(await scopeOf(bea), { organisationId: 'EMEA' }, 'made an admin of EMEA');
    // The provider moves her: she is an admin of the whole tenant from her next sign-in; her earlier token is revoked.
    const widened = await tokenOf(await signOn({ email: 'bea@example.com', groups: ['lb-admins', 'hr-emea'] }));
    assert.equal(await scopeOf(widened), 'whole tenant');
    assert.equal(await scopeOf(bea), 401, 'the token of her former scope is refused');
    const narrowed = await tokenOf(await signOn({ email: 'bea@example.com', groups: ['hr-hq'] }));
    assert.deepEqual(await scopeOf(narrowed), { organisationId: 'HQ' });
    assert.equal(await scopeOf(widened), 401);
    const changes = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=admin.scope_changed', headers: tenantAdmin });
    assert.deepEqual(
      (changes.json() as Json[]).map((entry) => [(entry.details as Json).email, (entry.details as Json).scope, entry.source]).reverse(),
      [
        ['bea@example.com', null, 'sso:corp'],
        ['bea@example.com', 'HQ', 'sso:corp'],
      ],
    );
    const made = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=admin.created', headers: tenantAdmin });
    assert.deepEqual(
      (made.json() as Json[]).map((entry) => [(entry.details as Json).email, (entry.details as Json).scope]),
      [['bea@example.com', 'EMEA']],
    );
    // Values naming two entries make no admin: an admin has one scope.
    const two = await signOn({ email: 'cy@example.com', groups: ['hr-emea', 'hr-hq'] });
    assert.equal(two.statusCode, 403, two.body);
    assert.match(two.body, /You are not an administrator here/);
    // Lin has a password (the command line made her): refused whatever the provider says.
    assert.equal((await signOn({ email: 'lin@example.com', groups: ['hr-hq'] })).statusCode, 403);
  });

  it('checks a SAML connection: one way of naming the provider, metadata that describes one, certificates', async () => {
    const oauth = await givenOAuth(ctx);
    const { access_token: token } = await exchange(ctx.app, oauth);
    const admin = { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name };
    const put = (payload: unknown) => putCorp(ctx, admin, payload);
    const idp = await startSamlIdp(new Map());
    idps.push(idp);
    const problems = async (payload: unknown) => {
      const res = await put(payload);
      assert.equal(res.statusCode, 400, res.body);
      return (res.json().details.problems as Json[]).map((problem) => problem.path);
    };
    assert.deepEqual(await problems({ protocol: 'saml' }), ['']);
    assert.deepEqual(await problems({ protocol: 'saml', metadataXml: idp.metadataXml, metadataUrl: idp.metadataUrl }), ['']);
    assert.deepEqual(await problems({ protocol: 'saml', metadataXml: '<not xml' }), ['/metadataXml']);
    assert.deepEqual(await problems({ protocol: 'saml', metadataXml: '<EntityDescriptor entityID="x"/>' }), ['/metadataXml']);
    assert.deepEqual(await problems({ protocol: 'saml', metadataUrl: `${idp.origin}/nothing-here` }), ['/metadataUrl']);
    assert.deepEqual(await problems({ protocol: 'saml', metadataUrl: 'http://example.com/metadata' }), ['/metadataUrl']);
    assert.deepEqual(
      await problems({ protocol: 'saml', idpEntityId: 'x', entryPoint: 'http://idp.example.com/sso', certificates: ['not a certificate'] }),
      ['/entryPoint', '/certificates/0'],
    );
    assert.deepEqual(await problems({ protocol: 'saml', metadataXml: idp.metadataXml, admins: { claim: 'groups' } }), ['/admins']);
    assert.deepEqual(await problems({ protocol: 'ldap' }), ['/protocol']);
    assert.deepEqual(await problems({ protocol: 'saml', metadataXml: idp.metadataXml, clientSecret: 'x' }), ['/clientSecret']);
    const explicit = await put({
      protocol: 'saml',
      idpEntityId: idp.entityId,
      entryPoint: idp.ssoUrl,
      certificates: [idp.certificatePem],
      spEntityId: 'https://learn.example.com/saml',
      admins: { claim: 'groups', value: 'learnbase-admins' },
    });
    assert.equal(explicit.statusCode, 201, explicit.body);
    assert.deepEqual(explicit.json().admins, { claim: 'groups', value: 'learnbase-admins' });
    assert.equal(explicit.json().spEntityId, 'https://learn.example.com/saml');
    const byXml = await put({ protocol: 'saml', metadataXml: idp.metadataXml });
    assert.equal(byXml.statusCode, 200, byXml.body);
    assert.equal(byXml.json().admins, null);
    assert.equal(byXml.json().spEntityId, `urn:learnbase:${oauth.tenant.name}:corp`);
  });

  it('follows a provider that rolls its key: its metadata URL read at an admin’s request and by the daily round; a bad reading changes nothing', async () => {
    const fixture = await givenSaml(ctx, content.origin, idps);
    const { admin, idp } = fixture;
    const connection = async () => {
      const listed = await ctx.app.inject({ method: 'GET', url: '/api/sso/connections', headers: admin });
      return (listed.json() as Json[]).find((item) => item.name === 'corp') as Json;
    };
    const refresh = () => ctx.app.inject({ method: 'POST', url: '/api/sso/connections/corp/refresh', headers: admin });
    /** A sign-in answered by a Response signed with `key`: 303 when it checks, 401 when it does not. */
    const signInSignedBy = async (key: 'idp' | 'other') => {
      const { request } = await startSignIn(ctx, fixture);
      const samlResponse = idp.response({
        inResponseTo: request.id,
        acsUrl: request.acsUrl,
        audience: fixture.spEntityId,
        nameId: 'ada@example.com',
        attributes: ADA,
        signedBy: key,
      });
      return (await postResponse(ctx, fixture, samlResponse, request.relayState)).statusCode;
    };
    const first = await connection();
    assert.equal(first.metadataProblem, null);
    assert.ok(Date.parse(String(first.metadataReadAt)) > Date.now() - 60_000, String(first.metadataReadAt));
    assert.equal(first.metadataCheckedAt, first.metadataReadAt);
    assert.equal(await signInSignedBy('other'), 401, 'the next key is not known yet');

    // The provider publishes its next key beside the current one: read now at the admin's request.
    idp.serveMetadata({ keys: ['idp', 'other'] });
    const rolled = await refresh();
    assert.equal(rolled.statusCode, 200, rolled.body);
    assert.deepEqual(rolled.json().changed, ['certificates']);
    assert.equal(rolled.json().connection.certificates, 2);
    assert.equal(await signInSignedBy('other'), 303);
    assert.equal(await signInSignedBy('idp'), 303);
    const same = await refresh();
    assert.deepEqual(same.json().changed, [], 'read again, nothing changed');
    const audited = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=sso_connection.refreshed', headers: admin });
    assert.equal(audited.statusCode, 200, audited.body);
    const entries = audited.json() as Json[];
    assert.equal(entries.length, 1, 'only a reading that changed something is audited');
    assert.equal((entries[0]!.principal as Json).kind, 'admin');
    assert.deepEqual(entries[0]!.details, { name: 'corp', changed: ['certificates'], certificates: 2 });

    // A reading that fails, or names another provider, is refused and changes nothing.
    idp.serveMetadata({ failing: true });
    const failed = await refresh();
    assert.equal(failed.statusCode, 502, failed.body);
    assert.equal(failed.json().code, 'identity.metadata_unusable');
    assert.match(String((await connection()).metadataProblem), /could not be read: it answered 500/);
    idp.serveMetadata({ keys: ['other'], entityId: 'https://idp.elsewhere.example.com' });
    const other = await refresh();
    assert.equal(other.statusCode, 502, other.body);
    assert.match(other.json().message, /another provider|describes the provider "https:\/\/idp\.elsewhere\.example\.com"/);
    const unchanged = await connection();
    assert.equal(unchanged.certificates, 2);
    assert.equal(unchanged.idpEntityId, idp.entityId);
    assert.equal(unchanged.metadataReadAt, same.json().connection.metadataReadAt, 'last read whole by the reading before');
    assert.ok(Date.parse(String(unchanged.metadataCheckedAt)) > Date.parse(String(unchanged.metadataReadAt)), 'tried since');
    assert.equal(await signInSignedBy('other'), 303, 'still signs in as before');

    // The daily round, a day later, in two processes at once: one reads the URL; the old key is gone.
    idp.serveMetadata({ keys: ['other'] });
    const tenancy = new TenancyService(ctx.db, 0);
    const readsBefore = idp.metadataReads();
    const dayLater = new Date(Date.now() + METADATA_REFRESH_MS + 60_000);
    await Promise.all(
      [1, 2].map(() =>
        refreshDueMetadata(
          ctx.db,
          loopbackOutbound,
          (id) => tenancy.findById(id),
          () => {},
          dayLater,
        ),
      ),
    );
    assert.equal(idp.metadataReads() - readsBefore, 1, 'one process read it');
    const followed = await connection();
    assert.equal(followed.certificates, 1);
    assert.equal(followed.metadataProblem, null);
    assert.equal(await signInSignedBy('idp'), 401, 'the retired key is refused');
    assert.equal(await signInSignedBy('other'), 303);
    const byProvider = await ctx.app.inject({ method: 'GET', url: '/api/audit?action=sso_connection.refreshed', headers: admin });
    const latest = (byProvider.json() as Json[])[0]!;
    assert.deepEqual(latest.principal, { kind: 'sso', id: 'corp' });
    assert.equal(latest.source, 'sso:corp');

    // Only a connection named by a metadata URL is read again.
    const byXml = await putCorp(ctx, admin, { protocol: 'saml', metadataXml: idp.metadataXml });
    assert.equal(byXml.statusCode, 200, byXml.body);
    assert.equal(byXml.json().metadataReadAt, undefined);
    const none = await refresh();
    assert.equal(none.statusCode, 404, none.body);
    assert.equal(none.json().code, 'identity.no_metadata_url');
  });

  it('answers this server’s metadata for a SAML connection: its entity ID, its ACS and signed assertions wanted', async () => {
    const oauth = await givenOAuth(ctx);
    const { access_token: token } = await exchange(ctx.app, oauth);
    const admin = { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name };
    const idp = await startSamlIdp(new Map());
    idps.push(idp);
    const put = await putCorp(ctx, admin, { protocol: 'saml', metadataXml: idp.metadataXml, spEntityId: 'https://learn.example.com/saml' });
    assert.equal(put.statusCode, 201, put.body);

    const res = await ctx.app.inject({ method: 'GET', url: '/api/sso/connections/corp/metadata', headers: admin });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/samlmetadata\+xml; charset=utf-8/);
    assert.equal(res.headers['content-disposition'], `attachment; filename="${oauth.tenant.name}-corp-sp-metadata.xml"`);
    const document = new DOMParser().parseFromString(res.body, 'text/xml');
    const md = 'urn:oasis:names:tc:SAML:2.0:metadata';
    const entity = document.documentElement;
    assert.equal(entity?.localName, 'EntityDescriptor');
    assert.equal(entity?.namespaceURI, md);
    assert.equal(entity?.getAttribute('entityID'), 'https://learn.example.com/saml');
    const descriptor = document.getElementsByTagNameNS(md, 'SPSSODescriptor')[0];
    assert.equal(descriptor?.getAttribute('WantAssertionsSigned'), 'true');
    assert.equal(descriptor?.getAttribute('AuthnRequestsSigned'), 'false');
    assert.equal(descriptor?.getAttribute('protocolSupportEnumeration'), 'urn:oasis:names:tc:SAML:2.0:protocol');
    assert.equal(document.getElementsByTagNameNS(md, 'KeyDescriptor').length, 0, 'no key: nothing signed or encrypted for this server');
    const acs = document.getElementsByTagNameNS(md, 'AssertionConsumerService');
    assert.equal(acs.length, 1);
    assert.equal(acs[0]?.getAttribute('Binding'), 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST');
    assert.equal(acs[0]?.getAttribute('Location'), put.json().acsUrl);

    // Published without a credential at spMetadataUrl, for a provider that reads it by itself.
    const published = String(put.json().spMetadataUrl);
    assert.equal(new URL(published).pathname, `/auth/sso/saml/${oauth.tenant.name}/corp/metadata`);
    const read = await ctx.app.inject({ method: 'GET', url: new URL(published).pathname });
    assert.equal(read.statusCode, 200, read.body);
    assert.match(String(read.headers['content-type']), /^application\/samlmetadata\+xml/);
    const withoutId = (xml: string) => xml.replace(/ ID="[^"]+"/, '');
    assert.equal(withoutId(read.body), withoutId(res.body), 'the document the admin downloads');
    const named = (tenant: string, headers: Record<string, string> = {}) =>
      ctx.app.inject({ method: 'GET', url: `/auth/sso/saml/${tenant}/corp/metadata`, headers });
    assert.equal((await named(oauth.tenant.name, { 'x-svc-tenant': oauth.tenant.name })).statusCode, 200);
    const mismatch = await named(oauth.tenant.name, { 'x-svc-tenant': 'another' });
    assert.equal(mismatch.statusCode, 400, mismatch.body);
    assert.equal(mismatch.json().code, 'tenant.mismatch');
    const nobody = await named('no-such-tenant');
    assert.equal(nobody.statusCode, 404, nobody.body);
    assert.equal(nobody.json().code, 'identity.connection_not_found');
    const otherTenant = await givenOAuth(ctx);
    assert.equal((await named(otherTenant.tenant.name)).statusCode, 404, 'another tenant has no connection corp');

    const unknown = await ctx.app.inject({ method: 'GET', url: '/api/sso/connections/other/metadata', headers: admin });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().code, 'identity.connection_not_found');
    const badName = await ctx.app.inject({ method: 'GET', url: '/api/sso/connections/Not%20A%20Name/metadata', headers: admin });
    assert.equal(badName.statusCode, 404);
  });
});
