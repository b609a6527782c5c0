import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium for the browser tests, driven by playwright-core. Without it they are skipped
 * (`browserSkip` says why), unless REQUIRE_BROWSER_TESTS is set, as `.ci/run` sets it: CI never
 * skips them.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.REQUIRE_BROWSER_TESTS) {
  throw new Error(`Chromium is required for the browser tests but is not at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH.`);
}

/** A test's `skip`: false when Chromium is there, else the reason. */
export const browserSkip: false | string = available
  ? false
  : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

/**
 * Headless Chromium. `tenantSubdomains`: the tenants' sub-domains of localhost reach the test server
 * on 127.0.0.1 (not ::1).
 */
export function launchChromium(options: { tenantSubdomains?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-gpu',
      ...(options.tenantSubdomains ? ['--host-resolver-rules=MAP *.localhost 127.0.0.1'] : []),
    ],
  });
}

/** Launched content for the browser tests: `page` served at every path of a loopback origin of its own. */
export async function serveContentPage(page: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
