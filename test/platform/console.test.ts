import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync, constants as zlibConstants } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { buildApp } from '../../src/server/app.js';
import { BACKENDS } from '../support/backends.js';
import { ROOT } from '../support/built.js';
import { describeEachBackend, testConfig } from '../support/build-test-app.js';
import { browserSkip, launchChromium } from '../support/chromium.js';
import { seriousViolations } from '../support/console-browser.js';

/**
 * The console served at /console/ (docs/console.md): its page, its hashed assets and their caching,
 * deep links, the Content-Security-Policy. The HTTP tests serve a build of their own (a page and
 * two assets), so they say what the server does whatever the console holds; the browser test runs
 * the real build (console/dist, made by `npm install`) in Chromium with the policy enforced.
 */

const fixture = mkdtempSync(join(tmpdir(), 'learnbase-console-'));
const PAGE =
  '<!doctype html><html lang="en"><head><title>console</title><script type="module" src="/console/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4_000))});`;
mkdirSync(join(fixture, 'assets'));
writeFileSync(join(fixture, 'index.html'), PAGE);
writeFileSync(join(fixture, 'assets', 'index-abc123.js'), SCRIPT);
// A file the build wrote compressed copies of (console/vite.config.ts), made here at a quality the
// server would not choose, so the bytes sent show which copy was sent.
const BUILT = `console.log(${JSON.stringify('y'.repeat(4_000))});`;
const BUILT_BR = brotliCompressSync(BUILT, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 } });
const BUILT_GZ = gzipSync(BUILT, { level: 1 });
writeFileSync(join(fixture, 'assets', 'chunk-built1.js'), BUILT);
writeFileSync(join(fixture, 'assets', 'chunk-built1.js.br'), BUILT_BR);
writeFileSync(join(fixture, 'assets', 'chunk-built1.js.gz'), BUILT_GZ);
writeFileSync(join(fixture, 'assets', 'index-def456.css'), 'body{margin:0}');
const empty = mkdtempSync(join(tmpdir(), 'learnbase-console-empty-'));
after(() => {
  rmSync(fixture, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

describeEachBackend(
  'GET /console/ (the console: no interface section)',
  (ctx) => {
    it('answers the page at /console/ and at any deep link below it, revalidated, with a strict policy', async () => {
      for (const url of ['/console/', '/console/people/4f1c?search=ada&page=2', '/console/reports/completion-by-unit', '/console/x/y/z']) {
        const response = await ctx.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
        assert.equal(response.statusCode, 200, url);
        assert.equal(response.body, PAGE, url);
        assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
        assert.equal(response.headers['cache-control'], 'no-cache');
        const policy = String(response.headers['content-security-policy']);
        assert.match(policy, /script-src 'self'(;|$)/, 'no inline script');
        assert.match(policy, /style-src 'self'(;|$)/, 'no inline style');
        assert.match(policy, /frame-ancestors 'none'/);
        assert.match(policy, /connect-src 'self'/);
        assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|\*/);
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
        assert.equal(response.headers['referrer-policy'], 'no-referrer');
      }
    });

    it('answers a hashed asset cached for a year, compressed as the client takes it, and 304 to its ETag', async () => {
      const url = '/console/assets/index-abc123.js';
      const plain = await ctx.app.inject({ method: 'GET', url });
      assert.equal(plain.statusCode, 200);
      assert.equal(plain.body, SCRIPT);
      assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
      assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers.vary, 'Accept-Encoding');

      const br = await ctx.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.equal(brotliDecompressSync(br.rawPayload).toString(), SCRIPT);
      assert.ok(br.rawPayload.length < SCRIPT.length / 10, `compressed to ${br.rawPayload.length} bytes`);
      const gzip = await ctx.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip;q=1, br;q=0' } });
      assert.equal(gzip.headers['content-encoding'], 'gzip');
      assert.equal(gunzipSync(gzip.rawPayload).toString(), SCRIPT);

      const again = await ctx.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(plain.headers.etag) } });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      const css = await ctx.app.inject({ method: 'GET', url: '/console/assets/index-def456.css' });
      assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
      const head = await ctx.app.inject({ method: 'HEAD', url });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
    });

    it('sends the compressed copies the build wrote as they are, and never serves them as files', async () => {
      const url = '/console/assets/chunk-built1.js';
      const br = await ctx.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br' } });
      assert.equal(br.statusCode, 200);
      assert.equal(br.headers['content-encoding'], 'br');
      assert.deepEqual(br.rawPayload, BUILT_BR);
      const gzip = await ctx.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
      assert.deepEqual(gzip.rawPayload, BUILT_GZ);
      const plain = await ctx.app.inject({ method: 'GET', url });
      assert.equal(plain.body, BUILT);
      for (const copy of [`${url}.br`, `${url}.gz`]) {
        const response = await ctx.app.inject({ method: 'GET', url: copy });
        assert.equal(response.statusCode, 404, copy);
        assert.equal(response.json().code, 'console.not_found');
      }
    });

    it('answers 404 to a file it does not have, never the page or a file outside the build', async () => {
      for (const url of [
        '/console/assets/index-zzz.js',
        '/console/assets/',
        '/console/assets/%2e%2e/%2e%2e/package.json',
        '/console/assets/..%2f..%2fpackage.json',
        '/console/assets/sub/index-abc123.js',
      ]) {
        const response = await ctx.app.inject({ method: 'GET', url });
        assert.notEqual(response.statusCode, 200, `${url}: ${response.body.slice(0, 80)}`);
        assert.doesNotMatch(response.body, /"name": "learnbase"|<div id="root">/, url);
        assert.equal(response.statusCode, 404, url);
        assert.ok(['console.not_found', 'route.not_found'].includes(response.json().code), `${url}: ${response.body}`);
      }
    });

    it('sends /console to /console/ keeping the query, and refuses other methods', async () => {
      const bare = await ctx.app.inject({ method: 'GET', url: '/console?tenant=acme' });
      assert.equal(bare.statusCode, 308);
      assert.equal(bare.headers.location, 'console/?tenant=acme', 'relative: below a public path too');
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const response = await ctx.app.inject({ method, url: '/console/people', payload: {} });
        assert.equal(response.statusCode, 404, method);
      }
    });

    it('names the tenant of a {tenant}.{base domain} host in the page, and none for another host', async () => {
      const named = await ctx.app.inject({
        method: 'GET',
        url: '/console/people',
        headers: { host: `acme.${ctx.config.baseDomain}:8080` },
      });
      assert.equal(named.statusCode, 200);
      assert.match(named.body, /<head>\s*<meta name="learnbase-tenant" content="acme" \/>/);
      assert.equal(named.body.replace(/\s*<meta name="learnbase-tenant"[^>]*>/, ''), PAGE);
      const plain = await ctx.app.inject({ method: 'GET', url: '/console/people', headers: { host: '127.0.0.1:8080' } });
      assert.notEqual(named.headers.etag, plain.headers.etag, 'each page its own ETag');
      const again = await ctx.app.inject({
        method: 'GET',
        url: '/console/',
        headers: { host: `acme.${ctx.config.baseDomain}`, 'if-none-match': String(named.headers.etag), 'accept-encoding': 'br' },
      });
      assert.equal(again.statusCode, 304);
      for (const host of [`a_b.${ctx.config.baseDomain}`, 'example.com', `${ctx.config.baseDomain}`]) {
        const response = await ctx.app.inject({ method: 'GET', url: '/console/', headers: { host } });
        assert.equal(response.statusCode, 200, host);
        assert.equal(response.body, PAGE, host);
      }
      const deep = await ctx.app.inject({ method: 'GET', url: '/console/', headers: { host: `a.b.${ctx.config.baseDomain}` } });
      assert.equal(deep.statusCode, 400);
      assert.equal(deep.json().code, 'tenant.invalid_host');
    });

    it('needs no credential and names no tenant: the page is the same for every caller', async () => {
      const tenant = await ctx.given.tenant();
      const other = await ctx.app.inject({ method: 'GET', url: '/console/', headers: { 'x-svc-tenant': tenant.name } });
      assert.equal(other.statusCode, 200);
      assert.equal(other.body, PAGE);
      const unknown = await ctx.app.inject({ method: 'GET', url: '/console/', headers: { 'x-svc-tenant': 'no-such-tenant' } });
      assert.equal(unknown.statusCode, 200);
    });
  },
  {},
  { console: { dist: fixture } },
);

describe('GET /console/ of a server without the console’s build', () => {
  it('answers 503 with a page saying how to build it', async () => {
    const backend = BACKENDS[0]!;
    const opened = await backend.openMigrated();
    const app = await buildApp(testConfig(), opened.db, { logger: false, console: { dist: empty } });
    try {
      const response = await app.inject({ method: 'GET', url: '/console/people' });
      assert.equal(response.statusCode, 503);
      assert.match(response.body, /The console is not built/);
      assert.match(response.body, /npm install/);
      assert.equal(response.headers['cache-control'], 'no-store');
    } finally {
      await app.close();
      await opened.dispose();
    }
  });
});

/** One browser for the file, launched at first use; a tenant's sub-domain of localhost reaches the test server. */
let launched: Promise<Browser> | undefined;
const theBrowser = () => (launched ??= launchChromium({ tenantSubdomains: true }));
after(async () => (await launched)?.close());

describeEachBackend('the console in Chromium (its real build)', (ctx) => {
  let browser: Browser;
  before(async () => {
    if (!browserSkip) browser = await theBrowser();
  });

  it('is built by npm install: the page loads only the files the server has', { skip: browserSkip }, async () => {
    const page = readFileSync(join(ROOT, 'console', 'dist', 'index.html'), 'utf8');
    const files = [...page.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    assert.ok(
      files.some((file) => file.endsWith('.js')),
      page,
    );
    assert.doesNotMatch(page, /<script>|<script(?![^>]*\bsrc=)[^>]*>|<style|style="/, 'nothing inline');
    const built = readdirSync(join(ROOT, 'console', 'dist', 'assets'));
    for (const file of built.filter((name) => /\.(js|css)$/.test(name))) {
      const text = readFileSync(join(ROOT, 'console', 'dist', 'assets', file), 'utf8');
      assert.doesNotMatch(text, /["'`(]\/console\//, `${file} names the console's files relatively (a public path may come before them)`);
    }
    for (const file of files) {
      assert.ok(built.includes(file.slice('/console/assets/'.length)), file);
      const response = await ctx.app.inject({ method: 'GET', url: file });
      assert.equal(response.statusCode, 200, file);
    }
  });

  it('names the organisation of a tenant’s own address, and asks for none', { skip: browserSkip }, async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const port = new URL(await ctx.url()).port;
      await page.goto(`http://acme.${ctx.config.baseDomain}:${port}/console/?tenant=other`);
      await page.getByText('Organisation:').waitFor();
      assert.match(await page.locator('main').innerText(), /Organisation: acme/);
      assert.equal(await page.getByRole('button', { name: 'Choose another organisation' }).count(), 0);
      assert.equal(await page.getByRole('textbox').count(), 0);
    } finally {
      await context.close();
    }
  });

  for (const width of [1280, 390]) {
    it(`asks for the organisation, keeps it in the address, and runs under its policy at ${width} px`, { skip: browserSkip }, async () => {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      try {
        const base = await ctx.url();
        await page.goto(`${base}/console/`);
        const field = page.getByRole('textbox', { name: 'Your organisation' });
        await field.waitFor();
        assert.deepEqual(await seriousViolations(page), [], 'axe-core on the first page');

        // By keyboard: the field has the focus, a bad name is said beside it, a good one goes into the address.
        await page.keyboard.type('Not a name!');
        await page.keyboard.press('Enter');
        await page.getByText('An organisation’s name has letters, digits and hyphens').waitFor();
        assert.equal(new URL(page.url()).search, '');
        await field.fill('');
        await page.keyboard.type('Acme');
        await page.keyboard.press('Enter');
        await page.getByText('Organisation:').waitFor();
        assert.equal(new URL(page.url()).searchParams.get('tenant'), 'acme');
        await page.reload();
        await page.getByText('Organisation:').waitFor();
        assert.match(await page.locator('main').innerText(), /acme/);
        assert.deepEqual(await seriousViolations(page), [], 'axe-core with an organisation');

        // Any address below /console/ is the application: before signing in, its first page, whose
        // sign-in comes back to the address.
        await page.goto(`${base}/console/no/such/page?tenant=acme`);
        const signIn = page.getByRole('link', { name: 'Sign in' });
        await signIn.waitFor();
        assert.equal(await signIn.getAttribute('href'), '/console/auth/sign-in?tenant=acme&return=%2Fno%2Fsuch%2Fpage');
        assert.deepEqual(problems, [], 'no script error and nothing the policy refused');
      } finally {
        await context.close();
      }
    });
  }
});

/** A proxy in front of the server, as LEARNBASE_PUBLIC_URL with a path has: `/learning` taken off every path. */
async function strippingProxy(target: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').replace(/^\/learning(?=\/|$)/, '') || '/';
    const upstream = httpRequest(`${target}${path}`, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describeEachBackend(
  'the console behind LEARNBASE_PUBLIC_URL with a path',
  (ctx) => {
    it('names its files below the public path', async () => {
      const response = await ctx.app.inject({ method: 'GET', url: '/console/people' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, PAGE.replace('"/console/assets/', '"/learning/console/assets/'));
      const asset = await ctx.app.inject({ method: 'GET', url: '/console/assets/index-abc123.js' });
      assert.equal(asset.statusCode, 200, 'the files are served where the proxy sends them');
    });
  },
  { publicUrl: 'https://lrs.example.com/learning' },
  { console: { dist: fixture } },
);

describeEachBackend(
  'the console in Chromium through a proxy that strips the public path',
  (ctx) => {
    it('loads, runs and routes below /learning/console/', { skip: browserSkip }, async () => {
      const proxy = await strippingProxy(await ctx.url());
      const context = await (await theBrowser()).newContext();
      try {
        const page = await context.newPage();
        const problems: string[] = [];
        page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
        await page.goto(`${proxy.origin}/learning/console/?tenant=acme`);
        await page.getByText('Organisation:').waitFor();
        await page.goto(`${proxy.origin}/learning/console/no/such/page?tenant=acme`);
        const signIn = page.getByRole('link', { name: 'Sign in' });
        await signIn.waitFor();
        assert.equal(
          await signIn.getAttribute('href'),
          '/learning/console/auth/sign-in?tenant=acme&return=%2Fno%2Fsuch%2Fpage',
          'the sign-in is below the public path, and comes back to the page asked for',
        );
        await page.goto(`${proxy.origin}/learning/console`);
        await page.getByRole('textbox', { name: 'Your organisation' }).waitFor();
        assert.equal(new URL(page.url()).pathname, '/learning/console/', 'the server sends the bare address on, below the path');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
        await proxy.close();
      }
    });
  },
  { publicUrl: 'https://lrs.example.com/learning' },
);
