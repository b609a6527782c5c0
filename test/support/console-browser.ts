import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import axe from 'axe-core';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { ROOT } from './built.js';
import { launchChromium } from './chromium.js';

/** The widths every console page is tried at: a laptop's and a phone's. */
export const WIDTHS = [1280, 390] as const;

/**
 * The widths a page's test runs at on `backend`: both on PGlite, a laptop's on PostgreSQL. What a
 * width changes (the layout, axe-core's findings, what the keyboard reaches) does not depend on the
 * storage, and what the storage changes is walked through at 1,280 px on both; the browser tests
 * are the longest of the suite, which must stay under 25 minutes.
 */
export function widthsOn(backend: 'pglite' | 'postgres'): readonly (typeof WIDTHS)[number][] {
  return backend === 'pglite' ? WIDTHS : [1280];
}

/** Where SAVE_SCREENSHOTS=1 saves each page's picture (docs/console.md shows them). */
const SCREENSHOTS = join(ROOT, 'docs', 'console');
const saveScreenshots = Boolean(process.env.SAVE_SCREENSHOTS);

/**
 * The serious and critical axe-core violations of the page as it stands, one line each. axe-core
 * (half a megabyte of script) is put into a document once: the console changes pages without
 * loading a new one.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (await page.evaluate("typeof window.axe === 'undefined'")) await page.evaluate(axe.source);
  const results = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as axe.AxeResults;
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** A page of its own and what went wrong on it: script errors and whatever the page's policy refused. */
export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  problems: string[];
}

/**
 * One browser for a test file's console tests (launched at the first test that needs it, closed
 * after the file), and what each test does with it: open a page at a width, sign in as a person
 * does, and check a page with axe-core (saving its picture when SAVE_SCREENSHOTS is set).
 */
export function consoleBrowser(options: { tenantSubdomains?: boolean; context?: BrowserContextOptions } = {}) {
  let launched: Promise<Browser> | undefined;
  after(async () => (await launched)?.close());
  before(() => saveScreenshots && mkdirSync(SCREENSHOTS, { recursive: true }));

  return {
    /** A browser context that fails the test on any script error or anything the policy refuses. */
    async open(width: number): Promise<OpenedPage> {
      launched ??= launchChromium({ tenantSubdomains: options.tenantSubdomains });
      const context = await (await launched).newContext({ viewport: { width, height: 900 }, ...options.context });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      return { context, page, problems };
    },

    /** From a console page (`address`, whole) through the server's sign-in page and back, as a person does it. */
    async signIn(page: Page, address: string, email: string, password: string) {
      await page.goto(address);
      await page.getByRole('link', { name: 'Sign in' }).click();
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
    },

    /**
     * axe-core on the page as it stands, and with SAVE_SCREENSHOTS its picture (a dialog: the
     * window, where it sits); a picture no one keeps is not taken (a whole page's costs a second).
     */
    async check(page: Page, name: string, width: number, fullPage = true) {
      assert.deepEqual(await seriousViolations(page), [], `axe-core on ${name} at ${width} px`);
      if (!saveScreenshots) return;
      const picture = await page.screenshot({ fullPage, path: join(SCREENSHOTS, `${name}-${width}.png`) });
      assert.ok(picture.length > 1000);
    },
  };
}
