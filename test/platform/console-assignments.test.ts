import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAdmin } from '../../src/modules/auth/admins/admin.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { newSecret } from '../../src/platform/issued-secrets.js';
import { ADL, agentOf, COURSE_A, COURSE_D, givenLearningTenant, PAST_DUE, requests, user } from '../learning/assignment-fixtures.js';
import { describeEachBackend } from '../support/build-test-app.js';
import { browserSkip, serveContentPage } from '../support/chromium.js';
import { consoleBrowser, type WIDTHS, widthsOn } from '../support/console-browser.js';
import type { GivenTenant } from '../support/given.js';

/**
 * The console's activities, assignments and assignment pages in Chromium against a real server on
 * each backend, as an admin uses them: the registry's hierarchy and tags, filtered through the
 * address, and a launch link made for a learner that opens the content as them; an assignment
 * created with the criteria builder after its preview of who matches, its page with everyone not
 * started, a completion sent over xAPI showing on a reload, the people filtered by status through
 * the address, the overdue of another assignment a click away, and the assignment deleted. axe-core
 * runs on every page at 1,280 pixels on both backends and at 390 on PGlite (widthsOn), and nothing the page's policy refuses or a script
 * error is allowed. With SAVE_SCREENSHOTS=1 each page is saved at both widths into docs/console/.
 */
const PASSWORD = 'correct horse battery staple';

const PROGRAMME = 'https://example.com/programmes/induction';
const FIRE_SAFETY = 'https://example.com/courses/fire-safety';
const MANUAL_HANDLING = 'https://example.com/courses/manual-handling';
const WORKING_AT_HEIGHT = 'https://example.com/courses/working-at-height';
/**
 * Each width's run assigns a course of its own, so the first run's completion is not the second's,
 * and not the one launched (a launch is a `launched` statement: its learner is in progress).
 */
const COURSE_OF: Record<(typeof WIDTHS)[number], { id: string; name: string }> = {
  1280: { id: MANUAL_HANDLING, name: 'Manual handling' },
  390: { id: WORKING_AT_HEIGHT, name: 'Working at height' },
};

/** The launched content: shows the launch parameters it was handed. */
const CONTENT_PAGE = `<!doctype html><html lang="en"><head><title>Course</title></head><body><main><h1>Course</h1>
<p id="actor"></p></main><script>
document.getElementById('actor').textContent = new URLSearchParams(location.search).get('actor') || 'none';
</script></body></html>`;

// A tenant's sub-domain of localhost reaches the test server: the launch links made there open in the browser.
const browser = consoleBrowser({ tenantSubdomains: true, context: { locale: 'en-GB', timezoneId: 'Europe/London' } });

interface Fixture {
  tenant: GivenTenant;
  owner: { email: string };
  /** The tenant's own address: `http://{tenant}.localhost:{port}`. */
  origin: string;
  contentOrigin: string;
  overdueId: string;
}

describeEachBackend('the console’s activities and assignments in Chromium', (ctx) => {
  let fixture: Fixture;
  let content: Awaited<ReturnType<typeof serveContentPage>> | undefined;

  before(async () => {
    if (browserSkip) return;
    const port = new URL(await ctx.url()).port;
    content = await serveContentPage(CONTENT_PAGE);
    const tenant = await givenLearningTenant(ctx);
    const r = requests(ctx);
    const catalogue = await r.call('PUT', '/api/competencies', tenant.headers, [{ name: 'Fire safety' }]);
    assert.equal(catalogue.statusCode, 200, catalogue.body);
    const registered = await r.call('PUT', '/api/activities', tenant.headers, [
      { id: PROGRAMME, definition: { name: { en: 'Induction' } }, tags: ['mandatory'] },
      {
        id: FIRE_SAFETY,
        definition: { name: { en: 'Fire safety' }, description: { en: 'The yearly fire safety course.' } },
        parentId: PROGRAMME,
        tags: ['mandatory', 'safety'],
        launchUrl: `${content.origin}/fire-safety/index.html`,
        competencies: ['Fire safety'],
      },
      { id: MANUAL_HANDLING, definition: { name: { en: 'Manual handling' } }, parentId: PROGRAMME, tags: ['safety'] },
      { id: WORKING_AT_HEIGHT, definition: { name: { en: 'Working at height' } }, parentId: PROGRAMME, tags: ['safety'] },
    ]);
    assert.equal(registered.statusCode, 200, registered.body);
    await r.importUsers(tenant, [
      { ...user('E1', { positionNumber: 'DEV1', jobCode: 'J-ENG', city: 'London', email: 'ada@example.com' }), name: 'Ada Lovelace' },
      { ...user('E2', { positionNumber: 'CTO', jobCode: 'J-ENG', city: 'Paris', email: 'alan@example.com' }), name: 'Alan Turing' },
      { ...user('E3', { positionNumber: 'CFO', jobCode: 'J-ACC', city: 'London', email: 'grace@example.com' }), name: 'Grace Hopper' },
    ]);
    // An assignment already past its due date: everyone is overdue.
    const overdue = await r.create(tenant, {
      name: 'Onboarding basics',
      activityIds: [COURSE_A, COURSE_D],
      people: { organisationId: 'CEO' },
      dueAt: PAST_DUE,
    });
    const record = await new TenancyService(ctx.db, 0).findById(tenant.id);
    const owner = await createAdmin(ctx.db, record!, `owner-${newSecret(4).toLowerCase()}@example.com`, PASSWORD);
    fixture = {
      tenant,
      owner,
      origin: `http://${tenant.name}.localhost:${port}`,
      contentOrigin: content.origin,
      overdueId: overdue.id,
    };
  });
  after(async () => content?.close());

  const open = (width: number) => browser.open(width);

  const signIn = (page: Page, email: string, path: string) => browser.signIn(page, `${fixture.origin}${path}`, email, PASSWORD);

  const check = browser.check;

  /** How many people the table beside the chart counts for a status. */
  const peopleWith = async (page: Page, status: string) =>
    (
      await page
        .getByRole('grid', { name: 'People by status' })
        .getByRole('row', { name: status, exact: true })
        .getByRole('gridcell')
        .first()
        .innerText()
    ).trim();

  const rowHeaders = async (page: Page, table: string) =>
    (await page.getByRole('grid', { name: table }).getByRole('rowheader').allInnerTexts()).map((text) => text.trim());

  for (const width of widthsOn(ctx.backend)) {
    it(`an admin reads the registry and makes a launch link for a learner at ${width} px`, { skip: browserSkip }, async () => {
      const { context, page, problems } = await open(width);
      try {
        await signIn(page, fixture.owner.email, '/console/activities');
        const tree = page.getByRole('treegrid', { name: 'Activities by hierarchy' });
        // The registry's size, as the API counts it.
        const total = await page.evaluate(async () => Number((await fetch('/api/activities?limit=1')).headers.get('x-total-count')));
        assert.ok(total >= 4, `the four safety activities at least: ${total}`);
        await page.getByRole('heading', { name: `${total} activities`, exact: true }).waitFor();
        const programme = tree.getByRole('row', { name: 'Induction' });
        const fire = tree.getByRole('row', { name: 'Fire safety' });
        await fire.waitFor();
        assert.equal(await programme.getAttribute('aria-level'), '1');
        assert.equal(await fire.getAttribute('aria-level'), '2', 'the course sits below its programme');
        assert.equal(await tree.getByRole('row', { name: 'Manual handling' }).getAttribute('aria-level'), '2');
        assert.match(await fire.innerText(), /mandatory[\s\S]*safety[\s\S]*launchable/);

        // A tag, chosen from the list, is kept in the address and through a reload.
        await page.getByRole('button', { name: /Tag/ }).click();
        await page.getByRole('option', { name: 'safety (3)' }).click();
        assert.equal(new URL(page.url()).searchParams.get('tag'), 'safety');
        await page.reload();
        await fire.waitFor();
        assert.equal(await tree.getByRole('row', { name: 'A', exact: true }).count(), 0, 'an activity without the tag is left out');
        assert.equal(await programme.count(), 1, 'the programme above the matches is kept to show where they sit');

        await fire.click();
        assert.equal(new URL(page.url()).searchParams.get('activity'), FIRE_SAFETY);
        const details = page.getByRole('region', { name: 'Fire safety' });
        await details.waitFor();
        const facts = await details.innerText();
        assert.match(facts, /The yearly fire safety course\./);
        assert.match(facts, /Develops\s*Fire safety/);
        assert.match(facts, /Done when\s*completed or passed/);
        assert.match(facts, /Above it\s*Induction/);

        // A word of a name, searched by the API (q) once the typing pauses: the address says what the page shows.
        const searchbox = page.getByRole('searchbox', { name: 'Find by name, id or description' });
        await searchbox.fill('handl');
        await fire.waitFor({ state: 'detached' });
        await tree.getByRole('row', { name: 'Manual handling' }).waitFor();
        await page.getByText('1 activity matches “handl” with the tag safety.').waitFor();
        assert.equal(new URL(page.url()).searchParams.get('q'), 'handl');
        assert.equal(await programme.count(), 1, 'the programme above the match is kept');
        // A word of a description, in any case, kept through a reload.
        await searchbox.fill('YEARLY');
        await page.getByText('1 activity matches “YEARLY” with the tag safety.').waitFor();
        await fire.waitFor();
        assert.equal(await tree.getByRole('row', { name: 'Manual handling' }).count(), 0);
        await page.reload();
        await fire.waitFor();
        assert.equal(await page.getByRole('searchbox', { name: 'Find by name, id or description' }).inputValue(), 'YEARLY');
        // A link from before the search was the API's q (`?search=`) still finds what it named.
        const oldLink = new URL(page.url());
        oldLink.searchParams.delete('q');
        oldLink.searchParams.set('search', 'handl');
        await page.goto(oldLink.toString());
        await page.getByText('1 activity matches “handl” with the tag safety.').waitFor();
        assert.equal(await searchbox.inputValue(), 'handl');
        await searchbox.fill('nothing like it');
        await page.getByText('No activity matches these filters.').waitFor();
        await searchbox.fill('');
        await fire.waitFor();
        await page.waitForURL((url) => !url.searchParams.has('q') && !url.searchParams.has('search'));
        await page.getByText('3 activities carry the tag safety.').waitFor();
        await check(page, 'activities', width);

        // A launch link for Ada: a learner credential of her own, in a link on the organisation's address.
        await page.getByRole('combobox', { name: 'Learner' }).fill('Ada');
        await page.getByRole('option', { name: /Ada Lovelace/ }).click();
        await page.getByRole('button', { name: 'Make a launch link' }).click();
        const link = await page.getByRole('textbox', { name: 'Launch link for Ada Lovelace' }).inputValue();
        assert.ok(link.startsWith(`${fixture.origin}/api/activities/launch?activityId=`), link);
        assert.deepEqual(problems, []);

        const learner = await context.newPage();
        await learner.goto(link);
        const landed = new URL(learner.url());
        assert.equal(`${landed.origin}${landed.pathname}`, `${fixture.contentOrigin}/fire-safety/index.html`);
        const actor = JSON.parse(landed.searchParams.get('actor') ?? '{}');
        assert.deepEqual(actor.account, agentOf('E1').account);
        assert.equal(actor.name, 'Ada Lovelace');
        await learner.close();
      } finally {
        await context.close();
      }
    });
  }

  for (const width of widthsOn(ctx.backend)) {
    it(`an admin creates an assignment, follows its progress, filters its people and deletes it at ${width} px`, {
      skip: browserSkip,
    }, async () => {
      const { context, page, problems } = await open(width);
      const course = COURSE_OF[width];
      const name = `Safety ${width}`;
      try {
        await signIn(page, fixture.owner.email, '/console/assignments');
        await page.getByRole('grid', { name: 'Assignments' }).getByRole('link', { name: 'Onboarding basics', exact: true }).waitFor();

        await page.getByRole('tab', { name: 'Create an assignment' }).click();
        assert.equal(new URL(page.url()).searchParams.get('tab'), 'create');
        await page.getByRole('textbox', { name: 'Name' }).fill(name);
        const activity = page.getByRole('checkbox', { name: new RegExp(`^${course.name}`) });
        await activity.focus();
        await page.keyboard.press('Space');
        assert.ok(await activity.isChecked());
        // The due date by keyboard, as the date field's segments take it (day, month, year in en-GB).
        await page.locator('.date-input [data-type="day"]').click();
        await page.keyboard.type('31122099');
        // Who: the people of London, with the criteria builder.
        await page
          .getByRole('button', { name: /^Add condition/ })
          .first()
          .click();
        await page.getByRole('combobox', { name: 'Attribute name' }).fill('city');
        await page.keyboard.press('Tab');
        await page.getByRole('textbox', { name: 'Value' }).fill('London');
        const preview = page.getByTestId('preview');
        await preview.getByText('2 people match').waitFor();
        assert.match(await preview.innerText(), /Ada Lovelace, Grace Hopper/);
        await check(page, 'assignments-create', width);

        await page.getByRole('button', { name: 'Create the assignment' }).click();
        await page.getByRole('heading', { name, level: 1 }).waitFor();
        const address = new URL(page.url());
        assert.equal(address.pathname, '/console/assignments/assignment');
        const id = address.searchParams.get('id')!;
        const stored = await requests(ctx).item(fixture.tenant, id);
        assert.deepEqual(stored.activityIds, [course.id]);
        assert.deepEqual(stored.people, { criteria: { field: 'attributes.city', op: 'eq', value: 'London' } });
        assert.equal(stored.dueAt, '2099-12-31T23:59:59.000Z', 'due by the end of the day chosen, in the admin’s time zone');

        await page.getByRole('grid', { name: 'People by status' }).waitFor();
        assert.equal(await peopleWith(page, 'Not started'), '2');
        assert.equal(await peopleWith(page, 'Completed'), '0');
        assert.deepEqual((await rowHeaders(page, 'People of the assignment')).sort(), ['Ada Lovelace', 'Grace Hopper']);
        assert.match(await page.getByRole('grid', { name: 'People of the assignment' }).innerText(), /Not started[\s\S]*Not started/);

        // Ada completes the course, through the xAPI: a reload shows it.
        await requests(ctx).statements(fixture.tenant, [
          {
            actor: agentOf('E1'),
            verb: { id: `${ADL}completed`, display: { en: 'completed' } },
            object: { id: course.id },
            timestamp: new Date().toISOString(),
          },
        ]);
        await page.reload();
        await page.getByRole('grid', { name: 'People by status' }).waitFor();
        assert.equal(await peopleWith(page, 'Completed'), '1');
        assert.equal(await peopleWith(page, 'Not started'), '1');
        await check(page, 'assignment', width);

        // The people of one status, through the address, and through the tabs.
        await page.goto(`${fixture.origin}/console/assignments/assignment?id=${id}&status=completed`);
        await page.getByRole('tab', { name: 'Completed (1)', selected: true }).waitFor();
        await page.getByRole('grid', { name: 'People completed' }).waitFor();
        assert.deepEqual(await rowHeaders(page, 'People completed'), ['Ada Lovelace']);
        await page.getByRole('tab', { name: 'Not started (1)' }).click();
        await page.getByRole('grid', { name: 'People not started' }).waitFor();
        assert.equal(new URL(page.url()).searchParams.get('status'), 'assigned');
        assert.deepEqual(await rowHeaders(page, 'People not started'), ['Grace Hopper']);

        // The list shows each assignment's progress.
        await page.getByRole('link', { name: 'Assignments', exact: true }).first().click();
        const row = page.getByRole('grid', { name: 'Assignments' }).getByRole('row', { name: new RegExp(name) });
        await row.getByText('1 of 2 done').waitFor();
        await page
          .getByRole('grid', { name: 'Assignments' })
          .getByRole('row', { name: /Onboarding basics/ })
          .getByText(/of 3 done/)
          .waitFor();
        await check(page, 'assignments', width);

        // The overdue of another assignment are a click away.
        await page.getByRole('link', { name: '3 overdue in Onboarding basics' }).click();
        await page.getByRole('grid', { name: 'People overdue' }).waitFor();
        assert.equal(new URL(page.url()).searchParams.get('status'), 'overdue');
        assert.deepEqual((await rowHeaders(page, 'People overdue')).sort(), ['Ada Lovelace', 'Alan Turing', 'Grace Hopper']);
        await page.getByRole('tab', { name: 'Everyone (3)' }).click();
        assert.equal(new URL(page.url()).searchParams.get('status'), null);
        await page.getByRole('link', { name: 'See who is overdue' }).click();
        await page.getByRole('tab', { name: 'Overdue (3)', selected: true }).waitFor();
        await check(page, 'assignment-overdue', width);

        // Deleted, once confirmed.
        await page.goto(`${fixture.origin}/console/assignments/assignment?id=${id}`);
        await page.getByRole('button', { name: 'Delete the assignment' }).click();
        const dialog = page.getByRole('alertdialog');
        await dialog.getByRole('button', { name: 'Keep it' }).click();
        await dialog.waitFor({ state: 'detached' });
        await page.getByRole('button', { name: 'Delete the assignment' }).click();
        await check(page, 'assignment-delete', width);
        await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
        await page.getByRole('tab', { name: 'All assignments', selected: true }).waitFor();
        await page.getByRole('grid', { name: 'Assignments' }).getByRole('link', { name: 'Onboarding basics', exact: true }).waitFor();
        assert.equal(await page.getByRole('link', { name }).count(), 0);
        const gone = await requests(ctx).call('GET', `/api/assignments/item?id=${id}`, fixture.tenant.headers);
        assert.equal(gone.statusCode, 404);
        assert.deepEqual(problems, [], 'no script error and nothing the policy refused');
      } finally {
        await context.close();
      }
    });
  }

  it('an assignment page with a status it does not know, or an id no assignment has, says so in words', { skip: browserSkip }, async () => {
    const { context, page, problems } = await open(1280);
    try {
      await signIn(page, fixture.owner.email, `/console/assignments/assignment?id=${fixture.overdueId}&status=late`);
      await page.getByRole('heading', { name: 'Onboarding basics', level: 1 }).waitFor();
      assert.match(await page.getByRole('alert').innerText(), /"late", which is none of the five/);
      await page.getByRole('grid', { name: 'People of the assignment' }).waitFor();
      await page.goto(`${fixture.origin}/console/assignments/assignment?id=00000000-0000-4000-8000-000000000000`);
      await page.getByRole('alert').waitFor();
      assert.match(await page.getByRole('alert').innerText(), /assignment/i);
      await page.getByRole('alert').getByRole('link', { name: 'list of assignments' }).waitFor();
      // The browser logs the refused request (404): the page says it in words.
      assert.deepEqual(
        problems.filter((problem) => !/status of 404/.test(problem)),
        [],
      );
    } finally {
      await context.close();
    }
  });
});
