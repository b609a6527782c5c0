import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { migrationFiles, pendingMigrations } from '../../src/platform/database/migrate.js';
import { givenOAuth, REDIRECT_URI, type OAuthFixture } from '../auth/oauth-token-fixtures.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { createPostgresDatabase } from '../support/backends.js';
import { describeEachBackend, testConfig } from '../support/build-test-app.js';
import { openMigratedPglite } from '../support/templates.js';

/**
 * What parse-prometheus-text-format (no types of its own) makes of the text format. It throws on
 * a line that is not the format, so every scrape below checks the whole answer. It folds the
 * series of a labelled histogram into one, so those are read with `histogramSeries`.
 */
interface Sample {
  labels?: Record<string, string>;
  value?: string;
}
interface Family {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Sample[];
}
const parsePrometheus = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[];

const TOKEN = `metrics-${randomBytes(24).toString('hex')}`;
const ELSEWHERE = '203.0.113.9';

async function scrape(app: FastifyInstance, options: Partial<InjectOptions> = {}): Promise<Family[]> {
  const res = await app.inject({ method: 'GET', url: '/metrics', ...options });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return parsePrometheus(res.body);
}

function family(families: Family[], name: string): Family {
  return families.find((item) => item.name === name) ?? assert.fail(`no ${name} in /metrics`);
}

/** The sample of `name` whose labels include `labels`; undefined when there is none. */
function sample(families: Family[], name: string, labels: Record<string, string>): Sample | undefined {
  return family(families, name).metrics.find((item) => Object.entries(labels).every(([key, value]) => item.labels?.[key] === value));
}

/** A counter's or gauge's value for these labels; 0 when the series does not exist yet. */
function value(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const found = families.some((item) => item.name === name) ? sample(families, name, labels) : undefined;
  return found ? Number(found.value) : 0;
}

/** The lines of one histogram series (`_bucket`, `_sum`, `_count`) whose labels include `labels`. */
function histogramSeries(text: string, name: string, labels: Record<string, string>) {
  const series = { buckets: new Map<string, number>(), sum: Number.NaN, count: Number.NaN, labels: {} as Record<string, string> };
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (!match || !match[1]!.startsWith(name)) continue;
    const lineLabels = Object.fromEntries([...match[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((item) => [item[1]!, item[2]!]));
    if (!Object.entries(labels).every(([key, value]) => lineLabels[key] === value)) continue;
    const { le, ...rest } = lineLabels;
    series.labels = rest;
    const number = Number(match[3]);
    if (match[1] === `${name}_bucket` && le !== undefined) series.buckets.set(le, number);
    else if (match[1] === `${name}_sum`) series.sum = number;
    else if (match[1] === `${name}_count`) series.count = number;
  }
  return series;
}

const hidden = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? assert.fail(`no ${name} field`);

/** Opens the sign-in page and posts `password` for the fixture's admin. */
async function signIn(app: FastifyInstance, oauth: OAuthFixture, password: string) {
  const query = new URLSearchParams({ response_type: 'code', client_id: oauth.client.clientId, redirect_uri: REDIRECT_URI, state: 's' });
  const page = await app.inject({ method: 'GET', url: `/auth/oauth/authorize?${query}` });
  assert.equal(page.statusCode, 200, page.body);
  const cookie = page.cookies.find((item) => item.name.startsWith('__Host-lb-signin-')) ?? assert.fail('no sign-in cookie');
  const body = new URLSearchParams({
    request_id: hidden(page.body, 'request_id'),
    client_id: hidden(page.body, 'client_id'),
    csrf_token: hidden(page.body, 'csrf_token'),
    email: oauth.adminEmail,
    password,
    action: 'authorize',
  });
  return app.inject({
    method: 'POST',
    url: '/auth/oauth/authorize',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
    cookies: { [cookie.name]: cookie.value },
  });
}

describeEachBackend(
  'GET /metrics',
  (ctx) => {
    it('counts a request by route pattern, method and status, with its latency in the histogram', async () => {
      const tenant = await ctx.given.tenant();
      const username = `nobody-${randomBytes(6).toString('hex')}`;
      const before = await scrape(ctx.app);
      const labels = { route: '/api/auth/basic/:username', method: 'DELETE', status: '404' };
      const countBefore = value(before, 'learnbase_http_requests_total', labels);

      const res = await ctx.app.inject({ method: 'DELETE', url: `/api/auth/basic/${username}`, headers: tenant.headers });
      assert.equal(res.statusCode, 404, res.body);

      const text = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.ok(!text.includes(username), 'the raw URL is never a label');
      const after = parsePrometheus(text);
      assert.equal(family(after, 'learnbase_http_requests_total').type, 'COUNTER');
      assert.equal(value(after, 'learnbase_http_requests_total', labels), countBefore + 1);
      assert.equal(family(after, 'learnbase_http_request_duration_seconds').type, 'HISTOGRAM');
      const timed = histogramSeries(text, 'learnbase_http_request_duration_seconds', labels);
      assert.equal(timed.count, countBefore + 1);
      assert.ok(timed.sum > 0 && timed.sum < 60, `sum ${timed.sum}`);
      assert.equal(timed.buckets.get('+Inf'), countBefore + 1);
      assert.equal(timed.buckets.size, 14, 'thirteen bounds and +Inf');
      assert.deepEqual(timed.labels, { ...labels, worker: '0' }, 'every series names its process');
    });

    it('puts every request that matches no route under route="unmatched"', async () => {
      const path = `/no-such-${randomBytes(4).toString('hex')}`;
      const before = value(await scrape(ctx.app), 'learnbase_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' });
      assert.equal((await ctx.app.inject({ method: 'GET', url: path })).statusCode, 404);
      const text = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.ok(!text.includes(path));
      assert.equal(
        value(parsePrometheus(text), 'learnbase_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' }),
        before + 1,
      );
    });

    it('reports the database connections, and counts failed statements by SQLSTATE', async () => {
      const before = await scrape(ctx.app);
      const open = value(before, 'learnbase_db_connections_open');
      const idle = value(before, 'learnbase_db_connections_idle');
      assert.ok(open >= 1, `open connections: ${open}`);
      assert.ok(idle >= 0 && idle <= open);
      assert.equal(value(before, 'learnbase_db_waiting'), 0);
      if (ctx.backend === 'pglite') assert.equal(open, 1);

      const errorsBefore = value(before, 'learnbase_db_query_errors_total', { code: '42P01' });
      await assert.rejects(ctx.db.query('SELECT * FROM no_such_table'));
      await assert.rejects(ctx.db.transaction((tx) => tx.query('SELECT * FROM no_such_table')));
      const syntaxBefore = value(before, 'learnbase_db_query_errors_total', { code: '42601' });
      await assert.rejects(ctx.db.script('SELEC 1'));
      const after = await scrape(ctx.app);
      assert.equal(value(after, 'learnbase_db_query_errors_total', { code: '42P01' }), errorsBefore + 2, 'one count per failed statement');
      assert.equal(value(after, 'learnbase_db_query_errors_total', { code: '42601' }), syntaxBefore + 1);
    });

    it('counts the rows of the statements that wrote concurrent PUTs of new documents together', async () => {
      const tenant = await ctx.given.tenant();
      const before = histogramSeries((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body, 'learnbase_db_write_batch_rows', {
        writes: 'new_documents',
      });
      const [rowsBefore, batchesBefore] = [before.sum || 0, before.count || 0];
      const agent = JSON.stringify({ mbox: 'mailto:metrics@example.com' });
      const puts = await Promise.all(
        Array.from({ length: 12 }, (_, n) =>
          ctx.app.inject({
            method: 'PUT',
            url: `/xapi/activities/state?${new URLSearchParams({ activityId: 'https://example.com/metrics', agent, stateId: `s${n}` })}`,
            headers: { ...tenant.xapi, 'content-type': 'application/json' },
            payload: JSON.stringify({ n }),
          }),
        ),
      );
      assert.ok(puts.every((res) => res.statusCode === 204));
      const after = histogramSeries((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body, 'learnbase_db_write_batch_rows', {
        writes: 'new_documents',
      });
      assert.equal(after.sum - rowsBefore, 12, 'every new document was written by one batch');
      const batches = after.count - batchesBefore;
      assert.ok(batches >= 1 && batches < 12, `12 concurrent PUTs shared statements: ${batches} batches`);
    });

    it('counts hits and misses of the named caches', async () => {
      const tenant = await ctx.given.tenant();
      const before = await scrape(ctx.app);
      const hits = value(before, 'learnbase_cache_lookups_total', { cache: 'api_key', result: 'hit' });
      const misses = value(before, 'learnbase_cache_lookups_total', { cache: 'api_key', result: 'miss' });
      for (let i = 0; i < 3; i += 1)
        assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/me', headers: tenant.headers })).statusCode, 200);
      const after = await scrape(ctx.app);
      assert.equal(
        value(after, 'learnbase_cache_lookups_total', { cache: 'api_key', result: 'miss' }),
        misses + 1,
        'the first use reads the key',
      );
      assert.equal(value(after, 'learnbase_cache_lookups_total', { cache: 'api_key', result: 'hit' }), hits + 2, 'the next two reuse it');
      assert.ok(value(after, 'learnbase_cache_lookups_total', { cache: 'tenant_by_name', result: 'hit' }) >= 1);
    });

    it('counts failed sign-ins, and the 429s of a locked account', async () => {
      const oauth = await givenOAuth(ctx);
      const before = await scrape(ctx.app);
      const failures = value(before, 'learnbase_sign_in_failures_total', { kind: 'admin' });
      const lockouts = value(before, 'learnbase_sign_in_lockouts_total', { kind: 'admin' });
      assert.equal((await signIn(ctx.app, oauth, 'wrong password 1')).statusCode, 401);
      assert.equal((await signIn(ctx.app, oauth, 'wrong password 2')).statusCode, 429, 'the second failure reaches the limit');
      assert.equal((await signIn(ctx.app, oauth, oauth.adminPassword)).statusCode, 429, 'refused, even with the right password');
      const after = await scrape(ctx.app);
      assert.equal(value(after, 'learnbase_sign_in_failures_total', { kind: 'admin' }), failures + 2);
      assert.equal(value(after, 'learnbase_sign_in_lockouts_total', { kind: 'admin' }), lockouts + 2);
    });

    it("counts a learner credential's failed checks", async () => {
      const tenant = await ctx.given.tenant();
      const before = value(await scrape(ctx.app), 'learnbase_sign_in_failures_total', { kind: 'credential' });
      const authorization = `Basic ${Buffer.from('some-learner:not-the-password').toString('base64')}`;
      const res = await ctx.app.inject({ method: 'GET', url: '/api/me', headers: { authorization, 'x-svc-tenant': tenant.name } });
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(value(await scrape(ctx.app), 'learnbase_sign_in_failures_total', { kind: 'credential' }), before + 1);
    });

    it("includes Node's own figures, labelled with the worker", async () => {
      const families = await scrape(ctx.app);
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_eventloop_lag_seconds',
        'nodejs_heap_size_used_bytes',
      ]) {
        assert.equal(family(families, name).metrics[0]?.labels?.worker, '0', name);
      }
      const names = families.map((item) => item.name);
      assert.equal(new Set(names).size, names.length, 'each metric once');
    });

    it('serves a client on this host over a real socket, without a token', async () => {
      const res = await fetch(`${await ctx.url()}/metrics`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /^text\/plain/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.ok(parsePrometheus(await res.text()).some((item) => item.name === 'learnbase_http_requests_total'));
    });

    it('refuses a client on another host without the token, or with a wrong one (403)', async () => {
      for (const headers of [
        {},
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
        { authorization: `Basic ${TOKEN}` },
        { authorization: 'Bearer' },
      ]) {
        const res = await ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress: ELSEWHERE, headers });
        assert.equal(res.statusCode, 403, JSON.stringify(headers));
        assert.equal(res.json().code, 'metrics.forbidden');
        assert.doesNotMatch(res.body, /learnbase_http/);
      }
    });

    it('serves a client on another host that sends the token', async () => {
      for (const authorization of [`Bearer ${TOKEN}`, `bearer  ${TOKEN}`]) {
        const families = await scrape(ctx.app, { remoteAddress: ELSEWHERE, headers: { authorization } });
        assert.ok(families.some((item) => item.name === 'learnbase_http_requests_total'));
      }
    });

    it('asks for the token when a proxy on this host forwarded the request, whatever address it names', async () => {
      for (const headers of [{ 'x-forwarded-for': '127.0.0.1' }, { forwarded: 'for=127.0.0.1' }, { 'x-real-ip': '::1' }]) {
        const refused = await ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers });
        assert.equal(refused.statusCode, 403, JSON.stringify(headers));
        await scrape(ctx.app, { remoteAddress: '127.0.0.1', headers: { ...headers, authorization: `Bearer ${TOKEN}` } });
      }
      await scrape(ctx.app, { remoteAddress: '::1' });
      await scrape(ctx.app, { remoteAddress: '::ffff:127.0.0.1' });
    });
  },
  { metricsToken: TOKEN },
  { signInPolicy: { delayStepMs: 0, maxFailuresPerAccount: 2 } },
);

describeEachBackend(
  'GET /metrics behind a trusted proxy',
  (ctx) => {
    it('judges the connection, not the X-Forwarded-For a client wrote', async () => {
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: ELSEWHERE,
        headers: { 'x-forwarded-for': '127.0.0.1' },
      });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'metrics.forbidden');
    });

    it('without a configured token, serves loopback clients only', async () => {
      assert.equal(
        (await ctx.app.inject({ method: 'GET', url: '/metrics', remoteAddress: ELSEWHERE, headers: { authorization: 'Bearer anything' } }))
          .statusCode,
        403,
      );
      await scrape(ctx.app);
    });
  },
  { trustProxy: true },
);

describeEachBackend('GET /health, /health/live and /health/ready', (ctx) => {
  it('answers /health and /health/live while the process runs, without a tenant or a credential', async () => {
    for (const url of ['/health', '/health/live']) {
      const res = await ctx.app.inject({ method: 'GET', url, remoteAddress: ELSEWHERE });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'ok' });
    }
  });

  it('is ready on a migrated database', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/health/ready', remoteAddress: ELSEWHERE });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  it('is not ready while a migration is missing, and ready again once it is applied', async () => {
    const { rows } = await ctx.db.query<{ name: string; applied_at: Date }>(
      'SELECT name, applied_at FROM schema_migrations ORDER BY name DESC LIMIT 1',
    );
    const last = rows[0] ?? assert.fail('no migration recorded');
    await ctx.db.query('DELETE FROM schema_migrations WHERE name = $1', [last.name]);
    try {
      const res = await ctx.app.inject({ method: 'GET', url: '/health/ready' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['cache-control'], 'no-store');
      const body = res.json();
      assert.equal(body.code, 'health.migrations_pending');
      assert.deepEqual(body.details, { pending: [last.name] });
      assert.match(body.message, /learnbase migrate/);
      // Liveness does not depend on the database.
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/health/live' })).statusCode, 200);
    } finally {
      await ctx.db.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [last.name, last.applied_at]);
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/health/ready' })).statusCode, 200);
  });

  it('counts every migration as pending on a database never migrated', async () => {
    const fresh = await PgliteDatabase.open(undefined);
    try {
      const files = migrationFiles();
      assert.ok(files.length > 0);
      assert.deepEqual(await pendingMigrations(fresh, files), files);
    } finally {
      await fresh.close();
    }
  });

  it('is not ready when the database does not answer, while /health/live still is', async () => {
    // A database of its own, closed under a running app.
    let db: Database;
    let drop = async () => {};
    if (ctx.backend === 'pglite') db = await openMigratedPglite();
    else {
      const created = await createPostgresDatabase({ migrated: true });
      db = new PostgresDatabase(created.url);
      drop = created.drop;
    }
    let app: FastifyInstance | undefined;
    try {
      app = await buildApp(testConfig(), db, { logger: false });
      assert.equal((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode, 200);
      await db.close();
      const res = await app.inject({ method: 'GET', url: '/health/ready' });
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.json().code, 'health.database_unavailable');
      assert.equal(res.json().details, undefined, "the driver's message stays in the log");
      assert.equal((await app.inject({ method: 'GET', url: '/health/live' })).statusCode, 200);
    } finally {
      await app?.close().catch(() => {});
      await db.close().catch(() => {});
      await drop();
    }
  });
});
