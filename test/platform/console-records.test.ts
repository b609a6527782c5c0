import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAdmin } from '../../src/modules/auth/admins/admin.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { newSecret } from '../../src/platform/issued-secrets.js';
import { ADL, agentOf, COURSE_A, COURSE_B, givenLearningTenant, requests, user } from '../learning/assignment-fixtures.js';
import { describeEachBackend } from '../support/build-test-app.js';
import { browserSkip } from '../support/chromium.js';
import { consoleBrowser, widthsOn } from '../support/console-browser.js';
import type { GivenTenant } from '../support/given.js';

/**
 * The console's statements, notifications and audit pages in Chromium against a real server on
 * each backend, as an admin uses them: statements filtered by verb through the form and kept
 * through a reload, a statement's JSON opened and closed by keyboard, pages followed by the LRS's
 * `more` links, the live view showing a statement sent meanwhile (and saying so) until it is turned
 * off; the LRS refused to an admin limited to a subtree, in the API's words; notifications and the
 * audit log listed, filtered, paged and empty. axe-core runs on every page at 1,280 pixels on both backends and at 390 on PGlite (widthsOn),
 * and nothing the page's policy refuses or a script error is allowed. With SAVE_SCREENSHOTS=1 each
 * page is saved at both widths into docs/console/.
 */
const PASSWORD = 'correct horse battery staple';
const COMPLETED = `${ADL}completed`;

const browser = consoleBrowser();

interface Fixture {
  tenant: GivenTenant;
  /** The timestamp of the two e-mails, sent before the text message. */
  emailsAt: string;
  owner: { email: string };
  scoped: { email: string };
}

/** A statement of the fixture: one of the people did something to a course. */
const statement = (person: string, verb: string, activity: string, name: string) => ({
  actor: agentOf(person),
  verb: { id: `${ADL}${verb}`, display: { 'en-US': verb } },
  object: { id: activity, definition: { name: { 'en-US': name } } },
  timestamp: new Date().toISOString(),
});

describeEachBackend('the console’s records in Chromium: statements, notifications, audit', (ctx) => {
  let fixture: Fixture;
  let base: string;

  before(async () => {
    if (browserSkip) return;
    base = await ctx.url();
    const tenant = await givenLearningTenant(ctx);
    const r = requests(ctx);
    await r.importUsers(tenant, [
      { ...user('E1', { positionNumber: 'DEV1', jobCode: 'J-ENG' }), name: 'Ada Lovelace' },
      { ...user('E2', { positionNumber: 'CTO', jobCode: 'J-ENG' }), name: 'Alan Turing' },
      { ...user('E3', { positionNumber: 'CFO', jobCode: 'J-ACC' }), name: 'Grace Hopper' },
    ]);
    // Three completions among five statements: a page of two has a next one.
    for (const one of [
      statement('E1', 'attempted', COURSE_A, 'Course A'),
      statement('E1', 'completed', COURSE_A, 'Course A'),
      statement('E2', 'completed', COURSE_A, 'Course A'),
      statement('E3', 'passed', COURSE_B, 'Course B'),
      statement('E3', 'completed', COURSE_B, 'Course B'),
    ]) {
      await r.statements(tenant, [one]);
    }
    // Three notifications, two by e-mail, then a text message later.
    const emails = await r.call('POST', '/api/notifications', tenant.headers, [
      { actor: agentOf('E1'), activity: { id: COURSE_A }, channel: 'email', object: { subject: 'Course A is due on Friday' } },
      { actor: agentOf('E2'), activity: { id: COURSE_A }, channel: 'email', object: { subject: 'Course A is due on Monday' } },
    ]);
    assert.equal(emails.statusCode, 201, emails.body);
    const emailsAt = (JSON.parse(emails.body) as { timestamp: string }[]).map((one) => one.timestamp).sort()[1]!;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const text = await r.call('POST', '/api/notifications', tenant.headers, [
      { actor: agentOf('E3'), activity: { id: COURSE_B }, channel: 'sms', object: { subject: 'Course B: well done' } },
    ]);
    assert.equal(text.statusCode, 201, text.body);
    // The HR system creates a person: audited `actor.created`, with its source.
    const created = await r.call(
      'PUT',
      '/api/actors/agents',
      { ...tenant.headers, 'svc-account-source': 'hr-sync' },
      {
        name: 'Katherine Johnson',
        account: { homePage: 'https://hr.example.com', name: 'E4' },
      },
    );
    assert.equal(created.statusCode, 201, created.body);
    const record = await new TenancyService(ctx.db, 0).findById(tenant.id);
    const owner = await createAdmin(ctx.db, record!, `owner-${newSecret(4).toLowerCase()}@example.com`, PASSWORD);
    const scoped = await createAdmin(ctx.db, record!, `cto-${newSecret(4).toLowerCase()}@example.com`, PASSWORD, 'CTO');
    fixture = { tenant, emailsAt, owner, scoped };
  });

  const open = (width: number) => browser.open(width);

  const signIn = (page: Page, email: string, path: string) =>
    browser.signIn(page, `${base}${path}${path.includes('?') ? '&' : '?'}tenant=${fixture.tenant.name}`, email, PASSWORD);

  const check = browser.check;

  /** The text of each row of the page's table (its header aside). */
  const rowsOf = (page: Page) => page.locator('table.data tbody tr').allInnerTexts();
  const sendStatement = (one: unknown) => requests(ctx).statements(fixture.tenant, [one]);

  for (const width of widthsOn(ctx.backend)) {
    it(`an admin filters statements by verb, reads one's JSON, pages with more and watches the live view at ${width} px`, {
      skip: browserSkip,
    }, async () => {
      const { context, page, problems } = await open(width);
      try {
        await signIn(page, fixture.owner.email, '/console/statements');
        await page.getByRole('heading', { name: 'Newest stored first' }).waitFor();
        await page.locator('table.data').waitFor();
        assert.ok((await rowsOf(page)).length >= 5);

        // The verb through the form, by the ADL verb's name.
        await page.getByRole('textbox', { name: 'Verb' }).fill('completed');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.waitForURL((url) => url.searchParams.get('verb') === COMPLETED);
        const completed = async () => {
          const rows = await rowsOf(page);
          assert.ok(rows.length >= 3, `at least the fixture's three completions: ${rows.join(' | ')}`);
          for (const row of rows) assert.match(row, /completed/);
          for (const row of rows) assert.doesNotMatch(row, /attempted|passed/);
        };
        await page.waitForFunction(() => {
          const table = document.querySelector('table.data');
          return table !== null && !table.textContent?.includes('attempted');
        });
        await completed();
        await page.reload();
        await page.locator('table.data').waitFor();
        await completed();
        assert.equal(await page.getByRole('textbox', { name: 'Verb' }).inputValue(), COMPLETED, 'the form reads the address back');
        await check(page, 'statements', width);

        // A statement's JSON in a dialog, by keyboard: Enter on its row; the JSON focusable; Escape closes it, focus back on the row.
        const first = page.locator('table.data tbody tr').first();
        const id = (await first.getAttribute('data-key')) ?? '';
        await first.focus();
        await page.keyboard.press('Enter');
        const dialog = page.getByRole('dialog');
        await dialog.waitFor();
        const region = dialog.getByRole('region', { name: /as JSON$/ });
        const text = await region.innerText();
        assert.equal(JSON.parse(text).id, id);
        assert.equal(JSON.parse(text).verb.id, COMPLETED);
        await region.focus();
        assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'PRE');
        await check(page, 'statements-json', width, false);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
        // The dialog gives the focus back once it has gone, a moment after it leaves the page.
        await page
          .waitForFunction((key) => document.activeElement?.getAttribute('data-key') === key, id, { timeout: 2_000 })
          .catch(() => {});
        assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-key')), id);
        assert.equal(await page.getByRole('button', { name: `JSON of statement ${id}` }).count(), 1, 'and a button for a pointer');

        // Two a page: the LRS's more link, kept in the address.
        await page.getByRole('textbox', { name: 'Per page' }).fill('2');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.waitForURL((url) => url.searchParams.get('limit') === '2');
        await page.waitForFunction(() => document.querySelectorAll('table.data tbody tr').length === 2);
        const firstPage = await rowsOf(page);
        await page.getByRole('link', { name: 'Next page' }).click();
        await page.waitForURL((url) => (url.searchParams.get('more') ?? '').startsWith('/xapi/statements?'));
        await page.getByRole('heading', { name: 'A later page' }).waitFor();
        await page.locator('table.data').waitFor();
        const second = await rowsOf(page);
        assert.ok(second.length >= 1 && second.length <= 2);
        for (const row of second) assert.ok(!firstPage.includes(row), 'pages never repeat a statement');
        await page.reload();
        await page.getByRole('heading', { name: 'A later page' }).waitFor();
        await page.locator('table.data').waitFor();
        assert.deepEqual(await rowsOf(page), second, 'a reload shows the same page');
        await page.getByRole('link', { name: 'Back to the first page' }).click();
        await page.getByRole('heading', { name: 'Newest stored first' }).waitFor();
        await page.waitForFunction(() => document.querySelectorAll('table.data tbody tr').length === 2);
        assert.deepEqual(await rowsOf(page), firstPage);

        // The live view, by keyboard: a statement sent meanwhile appears at the top, and is announced.
        const live = page.getByRole('switch', { name: 'Live view' });
        await live.focus();
        await page.keyboard.press('Space');
        await page.getByRole('status').filter({ hasText: 'Live view on' }).waitFor();
        await sendStatement(statement('E2', 'completed', `https://example.com/courses/live-${width}`, `Live ${width}`));
        await page
          .getByRole('status')
          .filter({ hasText: /^1 new statement arrived/ })
          .waitFor({ timeout: 10_000 });
        const top = page.locator('table.data tbody tr').first();
        assert.match(await top.innerText(), new RegExp(`Live ${width}`));
        assert.match(await top.innerText(), /new/);
        await check(page, 'statements-live', width);
        await page.keyboard.press('Space');
        await page.getByRole('status').filter({ hasText: 'Live view off' }).waitFor();
        assert.equal(await live.isChecked(), false);
        await sendStatement(statement('E2', 'completed', `https://example.com/courses/after-${width}`, `After ${width}`));
        await page.waitForTimeout(4000);
        assert.equal(await page.getByText(`After ${width}`).count(), 0, 'off, the live view asks nothing more');

        // Oldest first, among the filters folded away: the live view (newest first) says why it is off.
        await page.getByRole('button', { name: 'More filters' }).click();
        await page.getByRole('checkbox', { name: 'Oldest first' }).focus();
        await page.keyboard.press('Space');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.getByRole('heading', { name: 'Oldest stored first' }).waitFor();
        assert.equal(new URL(page.url()).searchParams.get('ascending'), 'true');
        assert.equal(await live.isDisabled(), true);
        await page.getByText('clear “Oldest first” to use it').waitFor();
        await page.reload();
        assert.equal(await page.getByRole('checkbox', { name: 'Oldest first' }).isChecked(), true, 'set, the fold opens');
        assert.deepEqual(problems, [], 'no script error and nothing the policy refused');
      } finally {
        await context.close();
      }
    });
  }

  for (const width of widthsOn(ctx.backend)) {
    it(`an admin limited to the CTO's subtree is told, in the API's words, that the LRS is not theirs at ${width} px`, {
      skip: browserSkip,
    }, async () => {
      const { context, page, problems } = await open(width);
      try {
        await signIn(page, fixture.scoped.email, '/console/statements');
        const alert = page.getByRole('alert');
        await alert.waitFor();
        assert.match(await alert.innerText(), /limited to an organisation subtree; the LRS \(\/xapi\/\) needs an unscoped one/);
        assert.equal(await page.getByRole('switch', { name: 'Live view' }).isDisabled(), true);
        await check(page, 'statements-scoped', width);
        // The browser logs the refused request: the 403 the page says in words.
        assert.deepEqual(
          problems.filter((problem) => !/status of 403/.test(problem)),
          [],
        );
      } finally {
        await context.close();
      }
    });
  }

  for (const width of widthsOn(ctx.backend)) {
    it(`an admin lists, filters and pages the notifications at ${width} px`, { skip: browserSkip }, async () => {
      const { context, page, problems } = await open(width);
      try {
        await signIn(page, fixture.owner.email, '/console/notifications');
        await page.getByRole('heading', { name: 'Notifications 1 to 3 of 3, newest first' }).waitFor();
        const all = await rowsOf(page);
        assert.match(all.join('\n'), /Ada Lovelace[\s\S]*Course A is due on Friday/);
        assert.match(all.join('\n'), /Grace Hopper[\s\S]*sms/);

        await page.getByRole('textbox', { name: 'Channel' }).fill('email');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.waitForURL((url) => url.searchParams.get('channel') === 'email');
        await page.getByRole('heading', { name: 'Notifications 1 to 2 of 2, newest first' }).waitFor();
        await page.reload();
        await page.getByRole('heading', { name: 'Notifications 1 to 2 of 2, newest first' }).waitFor();
        assert.equal(await page.getByRole('textbox', { name: 'Channel' }).inputValue(), 'email');
        for (const row of await rowsOf(page)) assert.match(row, /email/);
        await check(page, 'notifications', width);
        await page.locator('table.data tbody tr').filter({ hasText: 'Ada Lovelace' }).click();
        const dialog = page.getByRole('dialog');
        assert.equal(JSON.parse(await dialog.getByRole('region').innerText()).object.subject, 'Course A is due on Friday');
        await dialog.getByRole('button', { name: 'Close' }).click();
        await dialog.waitFor({ state: 'detached' });

        // One a page: the API's skip, in the address.
        await page.getByRole('textbox', { name: 'Per page' }).fill('1');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.getByRole('heading', { name: 'Notifications 1 to 1 of 2, newest first' }).waitFor();
        await page.getByRole('link', { name: 'Next' }).click();
        await page.getByRole('heading', { name: 'Notifications 2 to 2 of 2, newest first' }).waitFor();
        assert.equal(new URL(page.url()).searchParams.get('skip'), '1');
        assert.equal(await page.getByRole('link', { name: 'Next' }).count(), 0, 'the last page has no next one');
        assert.match((await rowsOf(page)).join('\n'), /Ada Lovelace/, 'the oldest by e-mail');

        // Until the e-mails were sent: the text message, later, is left out, through a reload too.
        await page.getByRole('button', { name: 'Clear the filters' }).click();
        await page.getByRole('heading', { name: 'Notifications 1 to 3 of 3, newest first' }).waitFor();
        await page.getByRole('textbox', { name: 'Until' }).fill(fixture.emailsAt);
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.waitForURL((url) => url.searchParams.get('until') === fixture.emailsAt);
        await page.getByRole('heading', { name: 'Notifications 1 to 2 of 2, newest first' }).waitFor();
        await page.reload();
        await page.getByRole('heading', { name: 'Notifications 1 to 2 of 2, newest first' }).waitFor();
        assert.equal(await page.getByRole('textbox', { name: 'Until' }).inputValue(), fixture.emailsAt);
        assert.doesNotMatch((await rowsOf(page)).join('\n'), /Grace Hopper|sms/);
        // An until before since is said beside it, and nothing is applied.
        await page.getByRole('textbox', { name: 'Since' }).fill('2999-01-01');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.getByText('This must come after “Since”.').waitFor();
        assert.equal(new URL(page.url()).searchParams.get('since'), null);

        // A person by e-mail address who received nothing: the empty state says what to do.
        await page.getByRole('button', { name: 'Clear the filters' }).click();
        await page.getByRole('heading', { name: 'Notifications 1 to 3 of 3, newest first' }).waitFor();
        await page.getByRole('textbox', { name: 'Person' }).fill('nobody@example.com');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.getByText('No notification matches.').waitFor();
        assert.equal(new URL(page.url()).searchParams.get('actorId'), 'mbox|mailto:nobody@example.com');
        await check(page, 'notifications-empty', width);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
  }

  for (const width of widthsOn(ctx.backend)) {
    it(`an admin reads the audit log, filters it by action, source and time, and opens an entry at ${width} px`, {
      skip: browserSkip,
    }, async () => {
      const { context, page, problems } = await open(width);
      try {
        await signIn(page, fixture.owner.email, '/console/audit');
        // The admin creates an API key (through the API, as the access page does): audited api_key.created.
        const key = await page.evaluate(async () => {
          const session = await (await fetch('/console/auth/session')).json();
          const answer = await fetch('/api/api-keys', { method: 'POST', headers: { 'x-csrf-token': session.csrfToken } });
          return (await answer.json()).key as string;
        });
        await page.reload();
        // The heading says how many entries the log holds, as the API counts them.
        const total = await page.evaluate(async () => Number((await fetch('/api/audit?limit=1')).headers.get('x-total-count')));
        assert.ok(total >= 2, `the import's and the key's entries at least: ${total}`);
        await page
          .getByRole('heading', { name: `Entries 1 to ${Math.min(total, 50)} of ${total.toLocaleString('en')}, newest first` })
          .waitFor();
        const all = (await rowsOf(page)).join('\n');
        assert.match(all, /api_key\.created/);
        assert.match(all, /actor\.created[\s\S]*Katherine Johnson[\s\S]*hr-sync/);

        // By action, chosen from the catalogue GET /api/audit/actions answers, each with what records it.
        await page.getByRole('combobox', { name: 'Action' }).fill('api_key');
        const option = page.getByRole('option', { name: 'api_key.created' });
        assert.match(await option.innerText(), /An API key was issued\./);
        assert.equal(await page.getByRole('option').count(), 2, 'api_key.created and api_key.revoked');
        await option.click();
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.waitForURL((url) => url.searchParams.get('action') === 'api_key.created');
        await page.reload();
        await page.locator('table.data').waitFor();
        // The field names the action once the catalogue is read.
        await page.waitForFunction(() => document.querySelector<HTMLInputElement>('input[role="combobox"]')?.value === 'api_key.created');
        const rows = await rowsOf(page);
        for (const row of rows) assert.match(row, /api_key\.created/);
        assert.match(rows[0]!, new RegExp(`you \\(${fixture.owner.email.replace(/[.]/g, '\\.')}\\)`));
        await check(page, 'audit', width);

        // An entry's details in a dialog, closed by Escape.
        await page
          .getByRole('button', { name: /^Details of api_key\.created/ })
          .first()
          .click();
        const dialog = page.getByRole('dialog');
        await dialog.waitFor();
        assert.match(await dialog.innerText(), /An API key was issued\./);
        assert.equal(JSON.parse(await dialog.getByRole('region').innerText()).details.key, key);
        await check(page, 'audit-details', width, false);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        // By source and time: the HR system's write, then a range that holds nothing.
        await page.getByRole('button', { name: 'Clear the filters' }).click();
        await page.waitForURL((url) => url.search === '');
        await page.getByRole('textbox', { name: 'Source' }).fill('hr-sync');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.getByRole('heading', { name: 'Entries 1 to 1 of 1, newest first' }).waitFor();
        assert.match((await rowsOf(page)).join('\n'), /actor\.created[\s\S]*Katherine Johnson/);
        // One a page: the API's skip, in the address.
        await page.getByRole('textbox', { name: 'Source' }).fill('');
        await page.getByRole('textbox', { name: 'Per page' }).fill('1');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.getByRole('heading', { name: /^Entries 1 to 1 of \d+, newest first$/ }).waitFor();
        await page.getByRole('link', { name: 'Next' }).click();
        await page.getByRole('heading', { name: /^Entries 2 to 2 of \d+, newest first$/ }).waitFor();
        assert.equal(new URL(page.url()).searchParams.get('skip'), '1');
        await page.getByRole('link', { name: 'Previous' }).click();
        await page.getByRole('heading', { name: /^Entries 1 to 1 of \d+, newest first$/ }).waitFor();
        await page.getByRole('textbox', { name: 'Since' }).fill('2999-01-02');
        await page.getByRole('textbox', { name: 'Until' }).fill('2999-01-01');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.getByText('This must come after “Since”.').waitFor();
        assert.equal(new URL(page.url()).searchParams.get('since'), null, 'nothing is applied while a field is wrong');
        await page.getByRole('textbox', { name: 'Until' }).fill('');
        await page.getByRole('button', { name: 'Apply' }).click();
        await page.waitForURL((url) => url.searchParams.get('since') === '2999-01-02T00:00:00.000Z');
        await page.getByText('No entry matches.').waitFor();

        // An action the log never records, from an old link: the API's words beside the field.
        await page.goto(`${base}/console/audit?tenant=${fixture.tenant.name}&action=api_key.lost`);
        const action = page.getByRole('combobox', { name: 'Action' });
        await page.getByText("'action' must be one of the actions GET /api/audit/actions lists.").waitFor();
        assert.equal(await action.inputValue(), 'api_key.lost');
        assert.equal(await action.getAttribute('aria-invalid'), 'true');
        await page.getByText('Nothing is listed: the filter said above was refused.', { exact: false }).waitFor();
        await check(page, 'audit-refused', width);
        // The browser logs the refused request: the 400 the page says in words.
        assert.deepEqual(
          problems.filter((problem) => !/status of 400/.test(problem)),
          [],
        );
      } finally {
        await context.close();
      }
    });
  }
});
