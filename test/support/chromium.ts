import { existsSync } from 'node:fs';
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
