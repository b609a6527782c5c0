import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';

describeEachBackend('the guides under /docs/guides/', (ctx) => {
  it('lists every guide on the index page, by its title', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/docs/guides/' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.match(res.body, /<a href="\/docs\/guides\/oauth">/);
    assert.match(res.body, /<a href="\/docs\/guides\/operations">/);
  });

  it('renders a guide to HTML, with heading anchors and links between guides leading to their pages', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/docs/guides/oauth' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<title>[^<]+<\/title>/);
    assert.match(res.body, /<h1 id="[^"]+">/);
    assert.match(res.body, /<a href="\/docs\/guides\/[a-z-]+(#[^"]*)?">/, 'a link to another guide');
    assert.doesNotMatch(res.body, /href="[a-z-]+\.md/, 'no link left pointing at a Markdown file');
    assert.doesNotMatch(res.body, /<script/i);

    const etag = String(res.headers.etag);
    const again = await ctx.app.inject({ method: 'GET', url: '/docs/guides/oauth', headers: { 'if-none-match': etag } });
    assert.equal(again.statusCode, 304);
  });

  it('answers an unknown guide, and any path that is not one, with a JSON 404 (a browser too: only unknown routes have a page, test/platform/pages.test.ts)', async () => {
    for (const url of [
      '/docs/guides/nothing',
      '/docs/guides/..%2Fpackage.json',
      '/docs/guides/..%2F..%2Fpackage.json',
      '/docs/guides/oauth.md',
      '/docs/guides/OAUTH',
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(res.json().code, /^(docs|route)\.not_found$/, url);
      assert.doesNotMatch(res.body, /"name": "learnbase"/, url);
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/docs/guides/nothing' })).json().code, 'docs.not_found');
    const browser = await ctx.app.inject({ method: 'GET', url: '/docs/guides/nothing', headers: { accept: 'text/html,*/*;q=0.8' } });
    assert.equal(browser.json().code, 'docs.not_found');
    // The router resolves dot segments first: /docs/guides/%2e%2e is /docs/, the API reference.
    const dots = await ctx.app.inject({ method: 'GET', url: '/docs/guides/%2e%2e/%2e%2e/package.json' });
    assert.doesNotMatch(dots.body, /"name": "learnbase"/);
  });

  it('leaves the API reference at /docs', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /swagger/i);
  });

  it("dresses the API reference as the product: its name and package.json's version, its own mark and icon, a link back to the guides, nothing from elsewhere", async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    const page = await ctx.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`<title>learnbase ${version.replaceAll('.', '\\.')}: API reference</title>`));
    assert.match(page.body, /<link rel="icon" type="image\/svg\+xml" href="\.\/static\/theme\/favicon\.svg" sizes="any" \/>/);
    assert.doesNotMatch(page.body, /favicon-(16|32)x(16|32)\.png/, "Swagger's icon is gone");
    for (const [, address] of page.body.matchAll(/(?:src|href)="([^"]*)"/g)) {
      assert.doesNotMatch(address!, /^(https?:)?\/\//, `${address}: everything from this server`);
    }

    const icon = await ctx.app.inject({ method: 'GET', url: '/docs/static/theme/favicon.svg' });
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
    assert.match(icon.body, /^<svg /);

    // The plugin draws the logo from its initializer script, as a data: URL: ours, leading to the guides.
    const script = await ctx.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    assert.equal(script.statusCode, 200);
    const logo = /img\.src = 'data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)'/.exec(script.body);
    assert.ok(logo, 'a logo of ours');
    const mark = Buffer.from(logo[1]!, 'base64').toString('utf8');
    assert.match(mark, /<text [^>]*>learnbase<\/text>/);
    assert.doesNotMatch(mark, /fastify/i);
    assert.match(script.body, /img\.href = '\/docs\/guides\/'/);

    for (const url of ['/docs/json', '/openapi.json']) {
      const document = await ctx.app.inject({ method: 'GET', url });
      assert.equal(document.statusCode, 200, url);
      const { info } = document.json() as { info: { title: string; version: string; description: string } };
      assert.equal(info.title, 'learnbase', url);
      assert.equal(info.version, version, url);
      assert.match(info.description, /\[\/docs\/guides\/\]\(\/docs\/guides\/\)/, `${url}: a link back to the guides`);
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/docs/guides/' })).statusCode, 200);
  });

  it("points the API key's Deprecation Link at the OAuth guide, which is served", async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: { ...tenant.headers, host: '127.0.0.1:8080' } });
    assert.equal(res.statusCode, 200);
    const link = /^<([^>]+)>; rel="deprecation"; type="text\/html"$/.exec(String(res.headers.link));
    assert.ok(link, String(res.headers.link));
    const url = new URL(link[1]!);
    assert.equal(url.pathname, '/docs/guides/oauth');
    assert.equal((await ctx.app.inject({ method: 'GET', url: url.pathname })).statusCode, 200);
  });
});
