import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { guideOrder } from '../docs/guide-steps.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';

/** What Chromium sends when a person opens an address. */
const CHROMIUM =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';
const FIREFOX = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const HOST = 'lrs.test:9000';
const PUBLIC_URL = 'https://lrs.example.com/learning';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const GUIDES = readdirSync(DOCS)
  .filter((file) => /^[a-z0-9-]+\.md$/.test(file))
  .map((file) => file.slice(0, -3));
/** The server's address as the guides write it. */
const WRITTEN_ADDRESS = /http:\/\/(?:127\.0\.0\.1|localhost):8080(?![0-9])/;
/** Any form of it: the demo tenant's sub-domain, URL-encoded, a bare host. */
const ANY_WRITTEN_ADDRESS = /(?<![\w.-])(?:demo\.)?(?:127\.0\.0\.1|localhost)(?::|%3A)8080(?![0-9])/;
/** The reader's shell lines a guide's page shows for the addresses, read back. */
const shownVariables = (body: string) =>
  Object.fromEntries(
    [...body.matchAll(/(?:^|<code>)(LB|LB_DEMO)=&#39;([^&]*)&#39;(?=$|<\/code>)/gm)].map((match) => [match[1]!, match[2]!]),
  );

const get = (ctx: TestContext, url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' | 'POST' = 'GET') =>
  ctx.app.inject({ method, url, headers: { host: HOST, ...headers } });

const linksAt = (base: string) => ({
  console: `${base}/console/`,
  reference: `${base}/docs`,
  guides: `${base}/docs/guides/`,
  openapi: `${base}/openapi.json`,
  xapi: `${base}/xapi/`,
});

function assertPlainPage(res: { headers: Record<string, unknown>; body: string }) {
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(String(res.headers['content-security-policy']), /^default-src 'none'; style-src 'unsafe-inline'/);
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.match(String(res.headers.vary), /Accept/);
  assert.doesNotMatch(res.body, /<script/i);
}

function assertLinks(body: string, base: string) {
  const links = linksAt(base);
  for (const href of Object.values(links)) assert.ok(body.includes(`<a href="${href}">`), `a link to ${href}`);
  assert.match(body, /xAPI endpoint<\/a>[^\n]*credentials/);
  assert.ok(body.includes(`<a href="${links.console}"><strong>Open the console</strong></a>`), 'the console first');
}

describeEachBackend("GET / (no interface section: the server's front door)", (ctx) => {
  it('gives a browser a page naming the product and linking the reference, the guides, the OpenAPI description and the xAPI endpoint', async () => {
    for (const accept of [CHROMIUM, FIREFOX, 'text/html']) {
      const res = await get(ctx, '/', { accept });
      assert.equal(res.statusCode, 200, accept);
      assertPlainPage(res);
      assert.match(res.body, /learnbase: learning platform API and xAPI LRS/);
      assertLinks(res.body, `http://${HOST}`);
    }
  });

  it('gives an API client the same links as JSON: no Accept, any type, JSON, or JSON as good as HTML', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html', 'text/html;q=0.5, application/json']) {
      const res = await get(ctx, '/', accept === undefined ? {} : { accept });
      assert.equal(res.statusCode, 200, String(accept));
      assert.match(String(res.headers['content-type']), /^application\/json/, String(accept));
      assert.deepEqual(res.json(), { name: 'learnbase', links: linksAt(`http://${HOST}`) }, String(accept));
    }
  });

  it('answers HEAD as GET, without the body, and needs no tenant or credential', async () => {
    const page = await get(ctx, '/', { accept: CHROMIUM }, 'HEAD');
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.body, '');
    const json = await get(ctx, '/', {}, 'HEAD');
    assert.equal(json.statusCode, 200);
    assert.match(String(json.headers['content-type']), /^application\/json/);
    assert.equal(json.body, '');
  });
});

describeEachBackend("unknown addresses (no interface section: the server's front door)", (ctx) => {
  it('gives a browser a 404 page saying nothing is there, with the way back', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await get(ctx, '/nothing/here?x=1', { accept: CHROMIUM }, method);
      assert.equal(res.statusCode, 404, method);
      assertPlainPage(res);
      if (method === 'HEAD') continue;
      assert.match(res.body, /<h1>Nothing here<\/h1>/);
      assert.match(res.body, /<code>\/nothing\/here<\/code>/);
      assertLinks(res.body, `http://${HOST}`);
    }
  });

  it('escapes the path it shows', async () => {
    const res = await get(ctx, "/it's&<b>", { accept: CHROMIUM });
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /<code>\/it&#39;s&#38;%3Cb%3E<\/code>/);
    assert.doesNotMatch(res.body, /<b>/);
  });

  it('keeps the JSON 404 for API clients, and for any method but GET and HEAD whatever they accept', async () => {
    const cases: Array<['GET' | 'POST', Record<string, string>]> = [
      ['GET', {}],
      ['GET', { accept: '*/*' }],
      ['GET', { accept: 'application/json' }],
      ['POST', { accept: CHROMIUM }],
    ];
    for (const [method, headers] of cases) {
      const res = await get(ctx, '/nothing', headers, method);
      assert.equal(res.statusCode, 404, `${method} ${JSON.stringify(headers)}`);
      assert.deepEqual(res.json(), { code: 'route.not_found', message: `No resource at ${method} /nothing.` });
    }
  });
});

describeEachBackend("the guides at the address they were reached at (no interface section: the server's front door)", (ctx) => {
  /** A guide that writes the server's address, whichever it is today. */
  const withAddress = GUIDES.find((name) => WRITTEN_ADDRESS.test(readFileSync(`${DOCS}${name}.md`, 'utf8')));

  it('writes the Host the request came in on for the address the guides give, code blocks included', async () => {
    assert.ok(withAddress, 'a guide gives the server address');
    const res = await get(ctx, `/docs/guides/${withAddress}`);
    assert.equal(res.statusCode, 200);
    assert.doesNotMatch(res.body, WRITTEN_ADDRESS);
    assert.ok(res.body.includes(`http://${HOST}/`), 'the address as the request reached it');
  });

  it('shows the reader the lines that set $LB and $LB_DEMO to this server, and every form of the written address replaced', async () => {
    const usingLb = GUIDES.filter((name) => readFileSync(`${DOCS}${name}.md`, 'utf8').includes('"$LB/'));
    assert.ok(usingLb.includes('provisioning') && usingLb.includes('tenancy-and-authentication'));
    for (const name of GUIDES) {
      const res = await get(ctx, `/docs/guides/${name}`);
      assert.equal(res.statusCode, 200, name);
      assert.doesNotMatch(res.body, ANY_WRITTEN_ADDRESS, `${name}: an address as written`);
      if (!usingLb.includes(name)) continue;
      assert.deepEqual(shownVariables(res.body), { LB: `http://${HOST}`, LB_DEMO: 'http://demo.localhost:9000' }, name);
      assert.match(res.body, /<nav>.*<\/nav>\n<p>The examples read the server's address from the shell variable <code>LB<\/code>/);
    }
    // The launch's answer encodes the demo tenant's address; the prose names the bare host.
    const provisioning = (await get(ctx, '/docs/guides/provisioning')).body;
    assert.ok(provisioning.includes('endpoint=http%3A%2F%2Fdemo.localhost%3A9000%2Fxapi%2F'));
    assert.ok(provisioning.includes('<code>http://demo.localhost:9000</code> (<code>$LB_DEMO</code>'));
    assert.ok(provisioning.includes(`on <code>${HOST}</code> names the tenant as well`));
    assert.ok(provisioning.includes('curl -si -G &quot;$LB_DEMO/api/activities/launch&quot;'), 'the commands keep the variables');
  });

  it("shows a tenant's sub-domain as the server's address, the sub-domain being the demo tenant's", async () => {
    const res = await get(ctx, '/docs/guides/provisioning', { host: 'acme.localhost:9000' });
    assert.deepEqual(shownVariables(res.body), { LB: 'http://localhost:9000', LB_DEMO: 'http://demo.localhost:9000' });
  });

  it("lists the guides in README's order, saying that each builds on the ones before, then the others", async () => {
    const res = await get(ctx, '/docs/guides/');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const order = guideOrder(readme).map((path) => path.slice('docs/'.length, -'.md'.length));
    const path = /<ol>([\s\S]*?)<\/ol>/.exec(res.body)?.[1] ?? '';
    assert.deepEqual(
      [...path.matchAll(/<li><a href="\/docs\/guides\/([a-z0-9-]+)">/g)].map((match) => match[1]),
      order,
    );
    assert.match(
      res.body,
      /In this order the guides are one path[^<]*<code>npm start<\/code>[^<]*each guide's examples build on what the ones before made/,
    );
    assert.deepEqual(shownVariables(res.body), { LB: `http://${HOST}`, LB_DEMO: 'http://demo.localhost:9000' });
    const also = /<h2>Also here<\/h2>\n<ul>([\s\S]*?)<\/ul>/.exec(res.body)?.[1] ?? '';
    const others = GUIDES.filter((name) => !order.includes(name)).sort();
    assert.ok(others.length > 0, 'a guide outside the path (architecture)');
    assert.deepEqual(
      [...also.matchAll(/<li><a href="\/docs\/guides\/([a-z0-9-]+)">/g)].map((match) => match[1]),
      others,
    );
    assert.match(path, /<a href="\/docs\/guides\/oauth">[^<]+<\/a>: OAuth clients, the browser step/, "README's words for each");
    const there = await get(ctx, '/docs/guides/', { host: 'lrs.other:8443' });
    assert.equal(shownVariables(there.body).LB, 'http://lrs.other:8443');
    assert.notEqual(there.headers.etag, res.headers.etag);
  });

  it('gives each address its own ETag', async () => {
    const here = await get(ctx, `/docs/guides/${withAddress}`);
    const there = await get(ctx, `/docs/guides/${withAddress}`, { host: 'lrs.other:8443' });
    assert.ok(there.body.includes('http://lrs.other:8443/'));
    assert.notEqual(here.headers.etag, there.headers.etag);
    assert.equal((await get(ctx, `/docs/guides/${withAddress}`, { 'if-none-match': String(here.headers.etag) })).statusCode, 304);
    const stale = await get(ctx, `/docs/guides/${withAddress}`, { host: 'lrs.other:8443', 'if-none-match': String(here.headers.etag) });
    assert.equal(stale.statusCode, 200);
  });

  it('links every mention of another guide, as text or code, with the section it names, and leaves code blocks alone', async () => {
    let mentions = 0;
    let sections = 0;
    for (const name of GUIDES) {
      const res = await get(ctx, `/docs/guides/${name}`);
      assert.equal(res.statusCode, 200, name);
      const blocks = res.body.match(/<pre>[\s\S]*?<\/pre>/g) ?? [];
      for (const block of blocks) assert.doesNotMatch(block, /<a /, `${name}: no link in a code block`);
      const outsideCode = blocks.reduce((body, block) => body.replace(block, ''), res.body);
      const linked =
        outsideCode.match(/<a href="\/docs\/guides\/[a-z0-9-]+(#[^"]*)?">(<code>)?docs\/[a-z0-9-]+\.md(<\/code>)?[^<]*<\/a>/g) ?? [];
      mentions += linked.length;
      sections += linked.filter((link) => link.includes('#')).length;
      const left = outsideCode.replace(/<a [^>]*>[\s\S]*?<\/a>/g, '');
      for (const [mention, guide] of left.matchAll(/(?<![\w/.-])docs\/([a-z0-9-]+)\.md/g)) {
        assert.ok(!GUIDES.includes(guide!), `${name}: "${mention}" is not a link`);
      }
    }
    assert.ok(mentions > 0, 'the guides mention each other');
    assert.ok(sections > 0, 'some mentions name a section');
  });

  it('leads every link to a section of another guide to a heading that page has', async () => {
    const pages = new Map<string, string>();
    for (const name of GUIDES) pages.set(name, (await get(ctx, `/docs/guides/${name}`)).body);
    const missing: string[] = [];
    for (const [name, body] of pages) {
      for (const [, guide, anchor] of body.matchAll(/<a href="\/docs\/guides\/([a-z0-9-]+)#([^"]+)"/g)) {
        if (!pages.get(guide!)?.includes(` id="${anchor}"`)) missing.push(`${name} → ${guide}#${anchor}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});

describeEachBackend(
  'the guides with LEARNBASE_PUBLIC_URL',
  (ctx) => {
    it('write the configured address, whatever Host the request names', async () => {
      const name = GUIDES.find((guide) => WRITTEN_ADDRESS.test(readFileSync(`${DOCS}${guide}.md`, 'utf8')));
      const res = await get(ctx, `/docs/guides/${name}`, { host: 'internal:8080' });
      assert.equal(res.statusCode, 200);
      assert.doesNotMatch(res.body, WRITTEN_ADDRESS);
      assert.ok(res.body.includes(`${PUBLIC_URL}/`));
      assert.ok(!res.body.includes('internal:8080'));
      const provisioning = await get(ctx, '/docs/guides/provisioning', { host: 'internal:8080' });
      assert.deepEqual(shownVariables(provisioning.body), { LB: PUBLIC_URL, LB_DEMO: 'https://demo.localhost/learning' });
    });

    it("build GET /'s links on it too (no interface section: the server's front door)", async () => {
      const res = await get(ctx, '/', { host: 'internal:8080' });
      assert.deepEqual(res.json().links, linksAt(PUBLIC_URL));
    });
  },
  { publicUrl: PUBLIC_URL },
);
