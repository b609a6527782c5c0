import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { exchange, givenOAuth, type OAuthFixture } from '../auth/oauth-token-fixtures.js';
import type { TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

/** What the single sign-on tests (OpenID Connect and SAML) start from. */
export interface LaunchTenant {
  oauth: OAuthFixture;
  tenant: GivenTenant;
  /** Headers of an admin of the whole tenant (an OAuth Bearer token). */
  admin: Record<string, string>;
  /** The tenant's sub-domain of localhost, with the test server's port. */
  host: string;
  activityId: string;
}

type Json = Record<string, unknown>;

/** A tenant with an admin and an activity whose content is at `contentOrigin`/course/. */
export async function givenLaunchTenant(ctx: TestContext, contentOrigin: string, activityId: string): Promise<LaunchTenant> {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  const tenant = oauth.tenant;
  const admin = { authorization: `Bearer ${token}`, 'x-svc-tenant': tenant.name };
  const host = `${tenant.name}.localhost:${new URL(await ctx.url()).port}`;
  const registered = await ctx.app.inject({
    method: 'PUT',
    url: '/api/activities',
    headers: tenant.headers,
    payload: [{ id: activityId, definition: { name: { en: 'Course' } }, launchUrl: `${contentOrigin}/course/` }],
  });
  assert.ok(registered.statusCode < 300, registered.body);
  return { oauth, tenant, admin, host, activityId };
}

/** The tenant's people (actors with attributes: not bare agents). */
export async function peopleOf(ctx: TestContext, tenant: GivenTenant): Promise<Json[]> {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/actors?kind=all', headers: tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as Json[]).filter((actor) => actor.extensions !== undefined);
}

export const attributesOf = (actor: Json | undefined) =>
  (actor?.extensions as Json | undefined)?.['http://localhost/api/ext/agent/attributes'] as Record<string, string> | undefined;

/** Signs in at oidc-provider's development pages as `login` (any password), consenting on a first sign-in. */
export async function signInAtOidcProvider(page: Page, issuer: string, login: string): Promise<void> {
  assert.ok(page.url().startsWith(`${issuer}/interaction/`), `at the provider's sign-in: ${page.url()}`);
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', 'any password');
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  if (page.url().startsWith(`${issuer}/interaction/`)) {
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  }
}
