import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, launchChromium, serveContentPage } from '../support/chromium.js';
import { describeEachBackend } from '../support/build-test-app.js';
import { givenLaunch } from './launch-fixtures.js';

/**
 * A launch in a real browser: Debian's Chromium, driven by playwright-core, opens the launch link
 * on the tenant's sub-domain, follows the redirect to the content page the test serves on another
 * origin, and the page's own script stores a statement with the `endpoint` and `auth` it was
 * handed (through the LRS's CORS). `.ci/run` sets REQUIRE_BROWSER_TESTS, so CI never skips this.
 */
const skip = browserSkip;

const INITIALIZED = 'http://adlnet.gov/expapi/verbs/initialized';

/** What launched content does first, as TinCanJS would: read the launch parameters, send a statement. */
const CONTENT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Course</title></head>
<body><p id="result">running</p>
<script>
(async () => {
  const result = document.getElementById('result');
  try {
    const query = new URLSearchParams(location.search);
    const endpoint = query.get('endpoint');
    const actor = JSON.parse(query.get('actor'));
    const response = await fetch(endpoint + 'statements', {
      method: 'POST',
      headers: { Authorization: query.get('auth'), 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' },
      body: JSON.stringify({
        actor,
        verb: { id: '${INITIALIZED}', display: { 'en-US': 'initialized' } },
        object: { id: query.get('activity_id'), objectType: 'Activity' },
        context: { registration: query.get('registration') },
      }),
    });
    result.textContent = response.status + ' ' + (await response.text());
  } catch (error) {
    result.textContent = 'error ' + error;
  }
})();
</script></body></html>`;

describeEachBackend('Launch in a real browser', (ctx) => {
  let browser: Browser;
  let content: Awaited<ReturnType<typeof serveContentPage>>;
  let contentOrigin: string;

  before(async () => {
    content = await serveContentPage(CONTENT_PAGE);
    contentOrigin = content.origin;
    if (skip) return;
    browser = await launchChromium({ tenantSubdomains: true });
  });
  after(async () => {
    await browser?.close();
    await content?.close();
  });

  it('lands on the content page, whose script stores a statement with the handed endpoint and auth', { skip }, async () => {
    const base = new URL(await ctx.url());
    const fixture = await givenLaunch(ctx, contentOrigin);
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });

    await page.goto(`http://${fixture.tenant.name}.localhost:${base.port}${fixture.launchPath}`);
    const landed = new URL(page.url());
    assert.equal(`${landed.origin}${landed.pathname}`, `${contentOrigin}/course/index.html`);
    assert.equal(landed.searchParams.get('endpoint'), `http://${fixture.tenant.name}.localhost:${base.port}/xapi/`);
    await page.waitForFunction(() => document.getElementById('result')?.textContent !== 'running');
    const result = (await page.locator('#result').innerText()).trim();
    assert.match(result, /^200 \["[0-9a-f-]{36}"\]$/, result);
    assert.deepEqual(problems, []);

    const found = await ctx.app.inject({
      method: 'GET',
      url: `/xapi/statements?${new URLSearchParams({ verb: INITIALIZED, activity: fixture.activityId })}`,
      headers: fixture.tenant.xapi,
    });
    assert.equal(found.statusCode, 200, found.body);
    const [stored, ...more] = found.json().statements;
    assert.equal(more.length, 0);
    assert.equal(stored.id, JSON.parse(result.slice(4))[0]);
    assert.deepEqual(stored.actor.account, fixture.agent.account);
    assert.equal(stored.context.registration, landed.searchParams.get('registration'));
    // The launch token's session is the statement's authority.
    assert.match(stored.authority.account.name, /^[0-9a-f-]{36}$/);
  });
});
