import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createAdmin } from '../../src/modules/auth/admins/admin.service.js';
import { createClient } from '../../src/modules/auth/oauth/clients/client.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { newSecret } from '../../src/platform/issued-secrets.js';
import { browserSkip, launchChromium } from '../support/chromium.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import { pkceChallenge } from './oauth-token-fixtures.js';

/**
 * The whole authorization code flow in a real browser: Debian's Chromium, driven by
 * playwright-core, signs in on the page; the test exchanges the code and calls the API.
 * `.ci/run` installs Chromium and sets REQUIRE_BROWSER_TESTS, so CI never skips this.
 */
const skip = browserSkip;

interface BrowserFixture {
  base: string;
  tenant: string;
  email: string;
  password: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

async function givenBrowserClient(ctx: TestContext): Promise<BrowserFixture> {
  const base = await ctx.url();
  const given = await ctx.given.tenant();
  const tenant = (await new TenancyService(ctx.db, 0).findById(given.id))!;
  const password = 'a long browser passphrase';
  const admin = await createAdmin(ctx.db, tenant, `browser-${newSecret(4)}@example.com`, password);
  const redirectUri = `${base}/auth/demo/callback`;
  const client = await createClient(ctx.db, tenant, [redirectUri], 'Browser Test App');
  return { base, tenant: tenant.name, email: admin.email, password, redirectUri, ...client };
}

function authorizeUrl(fixture: BrowserFixture, extra: Record<string, string>): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: fixture.clientId, redirect_uri: fixture.redirectUri, ...extra });
  return `${fixture.base}/auth/oauth/authorize?${query}`;
}

describeEachBackend('OAuth in a real browser', (ctx) => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    if (skip) return;
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  async function newPage(): Promise<Page> {
    const context = await browser.newContext();
    page = await context.newPage();
    // A CSP that blocks our own style, or any script error, shows up here. (Chromium also logs each
    // 4xx page it loads, such as the 401 of a wrong password: those are expected.)
    page.on('console', (message) => {
      const text = message.text();
      if (
        /Content Security Policy/i.test(text) ||
        (message.type() === 'error' && !text.startsWith('Failed to load resource: the server responded'))
      ) {
        problems.push(text);
      }
    });
    page.on('pageerror', (error) => problems.push(error.message));
    return page;
  }

  it('signs in with the keyboard, is redirected with the code, and the code works with the API and refresh', { skip }, async () => {
    const fixture = await givenBrowserClient(ctx);
    const verifier = newSecret(48);
    const state = newSecret(8);
    await newPage();
    const opened = await page.goto(
      authorizeUrl(fixture, { state, code_challenge: pkceChallenge(verifier), code_challenge_method: 'S256' }),
    );
    assert.equal(opened?.status(), 200);
    assert.equal(await page.title(), 'Authorise Browser Test App · learnbase');
    assert.match(
      await page.locator('main').innerText(),
      new RegExp(`Browser Test App asks to use learnbase on behalf of the organisation ${fixture.tenant}`),
    );
    const cookies = await page.context().cookies();
    assert.equal(cookies.length, 1);
    assert.match(cookies[0]!.name, /^__Host-lb-signin-/);
    assert.deepEqual([cookies[0]!.secure, cookies[0]!.httpOnly, cookies[0]!.sameSite], [true, true, 'Strict']);

    // The e-mail field has the focus; a wrong password first, from the keyboard only.
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'email');
    await page.keyboard.type(fixture.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password');
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    assert.equal(await page.getByRole('alert').innerText(), 'The e-mail address or the password is not right.');
    assert.equal(await page.getByLabel('E-mail address').inputValue(), fixture.email);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'password', 'focus returns to the password');

    await page.getByLabel('Password').fill(fixture.password);
    await Promise.all([page.waitForURL(/\/auth\/demo\/callback\?/), page.getByRole('button', { name: 'Sign in and authorise' }).click()]);
    const landed = new URL(page.url());
    assert.equal(`${landed.origin}${landed.pathname}`, fixture.redirectUri);
    assert.equal(landed.searchParams.get('state'), state);
    const code = landed.searchParams.get('code');
    assert.ok(code);
    assert.equal(await page.locator('#code').innerText(), code);
    assert.match(await page.locator('#exchange').innerText(), new RegExp(`"code":"${code}"`));
    assert.deepEqual(await page.context().cookies(), [], 'the sign-in cookie is dropped');

    const exchanged = await fetch(`${fixture.base}/auth/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        client_id: fixture.clientId,
        client_secret: fixture.clientSecret,
        redirect_uri: fixture.redirectUri,
        code,
        code_verifier: verifier,
      }),
    });
    assert.equal(exchanged.status, 200);
    const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string; token_type: string; expires_in: number };
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.expires_in, 3600);

    const who = await fetch(`${fixture.base}/api/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, 'x-svc-tenant': fixture.tenant },
    });
    assert.equal(who.status, 200);
    assert.equal(((await who.json()) as { tenant: { name: string } }).tenant.name, fixture.tenant);

    const refreshed = await fetch(`${fixture.base}/auth/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: fixture.clientId,
        client_secret: fixture.clientSecret,
      }),
    });
    assert.equal(refreshed.status, 200);
    const renewed = (await refreshed.json()) as { access_token: string };
    const stillMe = await fetch(`${fixture.base}/api/me`, { headers: { authorization: `Bearer ${renewed.access_token}` } });
    assert.equal(stillMe.status, 200);

    assert.deepEqual(problems, [], 'no CSP violation or script error on the pages');
  });

  it('goes back to the client with access_denied when the admin cancels', { skip }, async () => {
    const fixture = await givenBrowserClient(ctx);
    await newPage();
    await page.goto(authorizeUrl(fixture, { state: 'cancel-me' }));
    await Promise.all([page.waitForURL(/\/auth\/demo\/callback\?/), page.getByRole('button', { name: 'Cancel' }).click()]);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('error'), 'access_denied');
    assert.equal(landed.searchParams.get('state'), 'cancel-me');
    assert.match(await page.getByRole('alert').innerText(), /access_denied/);
  });

  it('shows an error page, and stays on the server, for a redirect URI that is not registered', { skip }, async () => {
    const fixture = await givenBrowserClient(ctx);
    await newPage();
    const response = await page.goto(authorizeUrl({ ...fixture, redirectUri: `${fixture.redirectUri}/` }, {}));
    assert.equal(response?.status(), 400);
    assert.equal(new URL(page.url()).pathname, '/auth/oauth/authorize');
    assert.equal(await page.locator('h1').innerText(), 'Invalid redirect URI');
  });
});
