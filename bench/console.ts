import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { seed, startLearningTenant } from './learning-tenant.js';
import {
  adminQuery,
  BENCH_TENANT,
  cliJson,
  createStorage,
  DEFAULT_POSTGRES,
  ensureBuilt,
  integer,
  log,
  publishReport,
  quantile,
  runBench,
  UsageError,
} from './support.js';

const USAGE = `Usage: node --import tsx bench/console.ts --backend pglite|postgres [options]

  --backend pglite|postgres   which storage the server runs on (required)
  --people N                  people of the learning benchmark's tenant (default 100000), ten to a position
  --statements N              statements (default 200000)
  --runs N                    page loads measured per case (default 7; the median is reported)
  --chromium PATH             the browser (default /usr/bin/chromium)
  --database URL              PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})
  --no-save                   do not write bench/results/`;

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      backend: { type: 'string' },
      people: { type: 'string', default: '100000' },
      statements: { type: 'string', default: '200000' },
      runs: { type: 'string', default: '7' },
      chromium: { type: 'string', default: '/usr/bin/chromium' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
      'no-save': { type: 'boolean', default: false },
    },
  });
  if (values.backend !== 'pglite' && values.backend !== 'postgres') throw new UsageError('--backend must be pglite or postgres.');
  const people = integer('--people', values.people, 1_000, 1_000_000);
  return {
    backend: values.backend as 'pglite' | 'postgres',
    shape: {
      people,
      positions: Math.ceil(people / 10),
      jobs: 500,
      activities: 2_000,
      statements: integer('--statements', values.statements, 0, 10 * people),
    },
    runs: integer('--runs', values.runs, 1, 100),
    chromium: values.chromium,
    database: values.database,
    save: !values['no-save'],
  };
}

const ADMIN = { email: 'bench-admin@example.com', password: 'a bench passphrase of some length' };

/** Milliseconds from starting `navigate` (which resolves as the page's answer starts) to `ready` resolving: what a person waits. */
async function timed(navigate: () => Promise<unknown>, ready: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await navigate();
  await ready();
  return Math.round(performance.now() - started);
}

/** The compressed bytes of JavaScript the page loaded (the bodies as sent, before decompression). */
const scriptBytes = (page: Page) =>
  page.evaluate(() =>
    (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((entry) => entry.name.endsWith('.js'))
      .reduce((sum, entry) => sum + entry.encodedBodySize, 0),
  );

const median = (values: number[]) => quantile(Float64Array.from(values).sort(), 0.5);

/**
 * The console's figures (issue 40): the first view's load from a cold cache and a warm one with
 * the compressed JavaScript it takes, then, signed in, the overview, the people page and a report
 * at the learning benchmark's size, each from the address to its answer on the screen, in Debian's
 * Chromium on loopback.
 */
async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const storage = await createStorage(options);
  log(`storage: ${storage.describe}`);
  const api = await startLearningTenant(storage);
  const { base } = api;
  const seeded = await seed(api, options.shape);
  if (storage.statsUrl) await adminQuery(storage.statsUrl, 'VACUUM (ANALYZE)');
  await cliJson(['admin', 'create', '--tenant', BENCH_TENANT, '--email', ADMIN.email, '--password', ADMIN.password, ...storage.flags]);

  const browser = await chromium.launch({
    executablePath: options.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const start = `${base}/console/?tenant=${BENCH_TENANT}`;
    const signInLink = (page: Page) => page.getByRole('link', { name: 'Sign in' }).waitFor();

    // The first view from a cold cache: a new context each run, nothing cached.
    const cold: number[] = [];
    let firstViewScript = 0;
    for (let run = 0; run < options.runs; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      cold.push(
        await timed(
          () => page.goto(start, { waitUntil: 'commit' }),
          () => signInLink(page),
        ),
      );
      firstViewScript = await scriptBytes(page);
      await context.close();
    }
    log(`first view, cold: median ${median(cold)} ms, ${firstViewScript} bytes of compressed JavaScript`);

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(start);
    await signInLink(page);
    const warm: number[] = [];
    for (let run = 0; run < options.runs; run++)
      warm.push(
        await timed(
          () => page.reload({ waitUntil: 'commit' }),
          () => signInLink(page),
        ),
      );
    log(`first view, warm: median ${median(warm)} ms`);

    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail address').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    const pages = {
      overview: { path: '/console/', ready: () => page.getByRole('heading', { name: 'Statements and active learners per day' }).waitFor() },
      people: { path: '/console/people', ready: () => page.getByRole('heading', { name: /\d+ people/ }).waitFor() },
      peopleFiltered: {
        path: `/console/people?q=${Buffer.from(JSON.stringify({ field: 'attributes.cohort', op: 'eq', value: 'A' })).toString('base64url')}`,
        ready: () => page.getByRole('heading', { name: /\d+ people/ }).waitFor(),
      },
      reportByUnit: {
        path: '/console/reports?report=by-unit',
        ready: () => page.getByRole('rowheader').first().waitFor({ timeout: 120_000 }),
      },
      reportByJob: {
        path: '/console/reports?report=by-job',
        ready: () => page.getByRole('rowheader').first().waitFor({ timeout: 120_000 }),
      },
      organisation: { path: '/console/organisation', ready: () => page.getByRole('row', { name: /P000000/ }).waitFor() },
    };
    const measured: Record<string, { medianMs: number; runsMs: number[] }> = {};
    for (const [name, one] of Object.entries(pages)) {
      const runs: number[] = [];
      for (let run = 0; run < options.runs; run++)
        runs.push(await timed(() => page.goto(`${base}${one.path}`, { waitUntil: 'commit' }), one.ready));
      measured[name] = { medianMs: median(runs), runsMs: runs };
      log(`${name}: median ${median(runs)} ms`);
    }
    await context.close();

    const report = {
      backend: options.backend,
      node: process.version,
      cpus: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      startedAt: new Date().toISOString(),
      data: { ...options.shape, seedSeconds: seeded },
      firstView: {
        coldMs: median(cold),
        coldRunsMs: cold,
        warmMs: median(warm),
        warmRunsMs: warm,
        compressedScriptBytes: firstViewScript,
      },
      signedIn: measured,
    };
    publishReport('console', report, options.save);
  } finally {
    await browser.close();
  }
  return 0;
}

await runBench(main, USAGE);
