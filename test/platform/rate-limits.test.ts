import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from '../../src/server/app.js';
import { loadConfig, type AppConfig } from '../../src/config.js';
import { PostgresNotifyBus } from '../../src/platform/database/notify-bus.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { givenOAuth, type OAuthFixture } from '../auth/oauth-token-fixtures.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { describeEachBackend, type TestContext, testConfig } from '../support/build-test-app.js';
import { startCli, waitForOutput } from '../support/cli.js';
import { Given, type GivenTenant } from '../support/given.js';
import { openMigratedPglite } from '../support/templates.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const WINDOW_MS = 1_500;

/** A client address of its own (an IPv6 /64 of the documentation prefix): counts from other tests and runs never meet it. */
const newAddress = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::7`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A token request that is counted and then refused for its grant type (400): no credential, no database. */
const tokenRequest = (app: FastifyInstance, remoteAddress: string) =>
  app.inject({ method: 'POST', url: '/auth/oauth/token', remoteAddress, payload: { grant_type: 'password' } });

const revokeRequest = (app: FastifyInstance, remoteAddress: string) =>
  app.inject({ method: 'POST', url: '/auth/oauth/revoke', remoteAddress, payload: { token: 'x', token_type_hint: 'id_token' } });

/** GET /api/me as `tenant`, with its key and `secret` (the right one unless given). */
function me(
  app: FastifyInstance,
  tenant: GivenTenant,
  remoteAddress: string,
  options: { secret?: string; headers?: Record<string, string> } = {},
) {
  const authorization = `Basic ${Buffer.from(`${tenant.key}:${options.secret ?? tenant.secret}`).toString('base64')}`;
  return app.inject({
    method: 'GET',
    url: '/api/me',
    remoteAddress,
    headers: { authorization, 'x-svc-tenant': tenant.name, ...options.headers },
  });
}

const wrong = (app: FastifyInstance, tenant: GivenTenant, remoteAddress: string) => me(app, tenant, remoteAddress, { secret: 'wrong' });

function assertRefused(res: LightMyRequestResponse, limit: string, maxSeconds = Math.ceil(WINDOW_MS / 1000)): void {
  assert.equal(res.statusCode, 429, res.body);
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= maxSeconds, `Retry-After ${res.headers['retry-after']}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json();
  assert.equal(body.code, 'request.rate_limited');
  assert.equal(body.details.limit, limit);
  assert.equal(body.details.retryAfterSeconds, retryAfter);
  assert.match(body.message, /from your network address; try again in \d+ s\./);
}

function assertOAuthRefused(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 429, res.body);
  assert.ok(Number(res.headers['retry-after']) >= 1, `Retry-After ${res.headers['retry-after']}`);
  assert.equal(res.headers['cache-control'], 'no-store');
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
  assert.equal(body.error, 'rate_limited');
}

const LIMITS: Partial<AppConfig> = { rateLimitTokenPerMinute: 3, rateLimitFailedAuthPerMinute: 3, rateLimitAuthorizePerMinute: 2 };

describeEachBackend(
  'Rate limits per client address',
  (ctx) => {
    it('refuses the token endpoint past its limit with 429, Retry-After and an RFC 6749 error, and recovers after the window', async () => {
      const address = newAddress();
      for (let i = 0; i < 3; i++) assert.equal((await tokenRequest(ctx.app, address)).statusCode, 400);
      const refused = await tokenRequest(ctx.app, address);
      assertOAuthRefused(refused);
      assert.match(refused.json().error_description, /Too many requests from your network address/);
      assert.equal((await tokenRequest(ctx.app, newAddress())).statusCode, 400, 'another address is served');
      // The revocation endpoint has a count of its own.
      assert.equal((await revokeRequest(ctx.app, address)).statusCode, 400);

      await sleep(WINDOW_MS + 100);
      assert.equal((await tokenRequest(ctx.app, address)).statusCode, 400, 'served again after the window');
    });

    it('limits the revocation endpoint the same way', async () => {
      const address = newAddress();
      for (let i = 0; i < 3; i++) assert.equal((await revokeRequest(ctx.app, address)).statusCode, 400);
      assertOAuthRefused(await revokeRequest(ctx.app, address));
    });

    it('limits the sign-in page by LEARNBASE_RATE_LIMIT_AUTHORIZE_PER_MINUTE, with an error page', async () => {
      const oauth = await givenOAuth(ctx);
      const address = newAddress();
      const page = () => ctx.app.inject({ method: 'GET', url: authorizeUrl(oauth), remoteAddress: address });
      assert.equal((await page()).statusCode, 200);
      assert.equal((await page()).statusCode, 200);
      const refused = await page();
      assert.equal(refused.statusCode, 429);
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      assert.equal(refused.headers['content-type'], 'text/html; charset=utf-8');
      assert.match(refused.body, /Too many sign-in requests from your network address/);
    });

    it('counts failed authentications and then refuses the address, the right credential included, until the window ends', async () => {
      const tenant = await ctx.given.tenant();
      const address = newAddress();
      for (let i = 0; i < 3; i++) assert.equal((await wrong(ctx.app, tenant, address)).statusCode, 401);
      assertRefused(await me(ctx.app, tenant, address), 'failed_authentication');
      assertRefused(await wrong(ctx.app, tenant, address), 'failed_authentication');
      // On the LRS as on the API, and on the token endpoint in RFC 6749's shape.
      assertRefused(
        await ctx.app.inject({ method: 'GET', url: '/xapi/statements', remoteAddress: address, headers: tenant.xapi }),
        'failed_authentication',
      );
      const token = await tokenRequest(ctx.app, address);
      assertOAuthRefused(token);
      assert.match(token.json().error_description, /Too many failed authentications/);
      assert.equal((await me(ctx.app, tenant, newAddress())).statusCode, 200, 'another address is served');

      await sleep(WINDOW_MS + 100);
      assert.equal((await me(ctx.app, tenant, address)).statusCode, 200, 'served again after the window');
    });

    it('counts a failed client authentication at the token endpoint', async () => {
      const oauth = await givenOAuth(ctx);
      const address = newAddress();
      const authenticate = (secret: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/auth/oauth/token',
          remoteAddress: address,
          payload: { grant_type: 'refresh_token', refresh_token: 'unknown', client_id: oauth.client.clientId, client_secret: secret },
        });
      for (let i = 0; i < 3; i++) assert.equal((await authenticate('wrong')).statusCode, 401);
      assertOAuthRefused(await authenticate(oauth.client.clientSecret));
    });

    it('does not count 401s to requests that presented no credential', async () => {
      const tenant = await ctx.given.tenant();
      const address = newAddress();
      for (let i = 0; i < 5; i++) {
        const res = await ctx.app.inject({
          method: 'GET',
          url: '/api/me',
          remoteAddress: address,
          headers: { 'x-svc-tenant': tenant.name },
        });
        assert.equal(res.statusCode, 401);
      }
      assert.equal((await me(ctx.app, tenant, address)).statusCode, 200);
    });

    it('does not limit this host (an untrusted local proxy would make every client one)', async () => {
      const tenant = await ctx.given.tenant();
      for (let i = 0; i < 5; i++) assert.equal((await wrong(ctx.app, tenant, '127.0.0.1')).statusCode, 401);
      assert.equal((await me(ctx.app, tenant, '127.0.0.1')).statusCode, 200);
      for (let i = 0; i < 5; i++) assert.equal((await tokenRequest(ctx.app, '::1')).statusCode, 400);
    });

    it('counts each client of a trusted proxy under its own address', async () => {
      const tenant = await ctx.given.tenant();
      const [first, second] = [newAddress(), newAddress()];
      const forwarded = (address: string) => ({ headers: { 'x-forwarded-for': address } });
      for (let i = 0; i < 3; i++)
        assert.equal((await me(ctx.app, tenant, '10.0.0.1', { secret: 'wrong', ...forwarded(first) })).statusCode, 401);
      assertRefused(await me(ctx.app, tenant, '10.0.0.1', forwarded(first)), 'failed_authentication');
      assert.equal((await me(ctx.app, tenant, '10.0.0.1', forwarded(second))).statusCode, 200, 'the second client of the proxy is served');
      // One /64 is one client: another address in it is refused too.
      assertRefused(await me(ctx.app, tenant, '10.0.0.1', forwarded(first.replace(/::7$/, '::8'))), 'failed_authentication');
    });

    it('counts refusals in /metrics, by limit', async () => {
      const address = newAddress();
      for (let i = 0; i < 4; i++) await tokenRequest(ctx.app, address);
      const metrics = await ctx.app.inject({ method: 'GET', url: '/metrics' });
      assert.match(metrics.body, /learnbase_rate_limit_refusals_total\{limit="token",worker="0"\} [1-9]/);
    });
  },
  { ...LIMITS, trustProxy: ['10.0.0.0/8'] },
  { rateLimitWindowMs: WINDOW_MS },
);

describeEachBackend(
  'Rate limits turned off',
  (ctx) => {
    it('serves every request when a limit is 0', async () => {
      const tenant = await ctx.given.tenant();
      const address = newAddress();
      for (let i = 0; i < 10; i++) assert.equal((await tokenRequest(ctx.app, address)).statusCode, 400);
      for (let i = 0; i < 10; i++) assert.equal((await wrong(ctx.app, tenant, address)).statusCode, 401);
      assert.equal((await me(ctx.app, tenant, address)).statusCode, 200);
    });
  },
  { rateLimitTokenPerMinute: 0, rateLimitFailedAuthPerMinute: 0 },
);

/** The app's log, line by line. */
class LogLines extends Writable {
  readonly lines: Array<Record<string, unknown>> = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) this.lines.push(JSON.parse(line));
    done();
  }
}

/** An app of its own on `ctx`'s database, logging warnings to `log`. */
const loggedApp = (ctx: TestContext, log: LogLines, overrides: Partial<AppConfig> = {}) =>
  buildApp(testConfig({ ...LIMITS, ...overrides, logLevel: 'warn' }), ctx.db, { logger: { stream: log } });

const proxyWarnings = (log: LogLines) => log.lines.filter((line) => String(line.msg).includes('LEARNBASE_TRUST_PROXY'));

describeEachBackend('A proxy on this host that LEARNBASE_TRUST_PROXY does not name', (ctx) => {
  it('serves its clients unlimited, warns once in the log, and says so in /health/ready (still ready)', async () => {
    const log = new LogLines();
    const app = await loggedApp(ctx, log);
    try {
      const tenant = await ctx.given.tenant();
      const ready = await app.inject({ method: 'GET', url: '/health/ready' });
      assert.deepEqual(ready.json(), { status: 'ok' }, 'nothing to warn of yet');
      // This host itself, without a proxy's header, is no proxy.
      assert.equal((await wrong(app, tenant, '127.0.0.1')).statusCode, 401);
      assert.deepEqual(proxyWarnings(log), []);

      // Two clients of the proxy: each is this host, and neither is ever limited.
      for (let i = 0; i < 5; i++) {
        const client = { headers: { 'x-forwarded-for': `203.0.113.${10 + (i % 2)}` } };
        assert.equal((await me(app, tenant, '127.0.0.1', { secret: 'wrong', ...client })).statusCode, 401);
      }
      assert.equal((await me(app, tenant, '::1', { headers: { 'x-forwarded-for': '203.0.113.10' } })).statusCode, 200);

      const warned = proxyWarnings(log);
      assert.equal(warned.length, 1, 'one warning per process');
      assert.equal(warned[0]!.level, 40);
      assert.equal(warned[0]!.code, 'rate_limits.untrusted_local_proxy');
      const health = await app.inject({ method: 'GET', url: '/health/ready' });
      assert.equal(health.statusCode, 200, 'a warning, not unreadiness');
      const body = health.json();
      assert.equal(body.status, 'ok');
      assert.deepEqual(
        body.warnings.map((warning: { code: string }) => warning.code),
        ['rate_limits.untrusted_local_proxy'],
      );
      assert.match(body.warnings[0].message, /LEARNBASE_TRUST_PROXY/);
      assert.equal((await app.inject({ method: 'GET', url: '/health/ready' })).json().warnings.length, 1);
    } finally {
      await app.close();
    }
  });

  it('warns of nothing once the proxy is named, and counts its clients under their own addresses', async () => {
    const log = new LogLines();
    const app = await loggedApp(ctx, log, { trustProxy: ['loopback'] });
    try {
      const tenant = await ctx.given.tenant();
      const client = { headers: { 'x-forwarded-for': newAddress() } };
      for (let i = 0; i < 3; i++) assert.equal((await me(app, tenant, '127.0.0.1', { secret: 'wrong', ...client })).statusCode, 401);
      assertRefused(await me(app, tenant, '127.0.0.1', client), 'failed_authentication', 60);
      assert.deepEqual(proxyWarnings(log), []);
      assert.deepEqual((await app.inject({ method: 'GET', url: '/health/ready' })).json(), { status: 'ok' });
    } finally {
      await app.close();
    }
  });
});

const authorizeUrl = (oauth: OAuthFixture) =>
  `/auth/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: oauth.client.clientId, redirect_uri: 'http://127.0.0.1:9/callback', state: 's' })}`;

interface Process {
  app: FastifyInstance;
  tenant: GivenTenant;
}

/**
 * Two apps as two processes would run them: each with its own connections and notifications,
 * counting in the shared store; the tenant and its key are in both databases.
 */
function describeTwoProcesses(
  title: string,
  options: { skip: string | false; open: () => Promise<{ processes: Process[]; close: () => Promise<void> }> },
) {
  describe(title, { skip: options.skip }, () => {
    let processes: Process[] = [];
    let close = async () => {};
    before(async () => {
      ({ processes, close } = await options.open());
      for (const { app } of processes) await untilStoreCounts(app);
    });
    after(() => close());

    it('shares the token count: the limit holds across both', async () => {
      const address = newAddress();
      const [a, b] = processes as [Process, Process];
      const errorsBefore = (await storeErrors(a.app)) + (await storeErrors(b.app));
      // Alternating between the two, the first refusal comes after the limit (3) counted across both.
      // A store command that times out (500 ms, a loaded host) serves its request uncounted, so each
      // such failure, counted in the metrics, may let one more through: never the 6 of two counts.
      let served = 0;
      let refused: LightMyRequestResponse | undefined;
      for (let i = 0; i < 10 && refused === undefined; i++) {
        const res = await tokenRequest(i % 2 === 0 ? a.app : b.app, address);
        if (res.statusCode === 400) served++;
        else refused = res;
      }
      assert.ok(refused, 'a request is refused');
      assertOAuthRefused(refused);
      const failures = (await storeErrors(a.app)) + (await storeErrors(b.app)) - errorsBefore;
      assert.ok(served >= 3 && served <= 3 + failures, `${served} served with ${failures} store failures`);
    });

    it('shares the failed-authentication count, and both refuse the address', async () => {
      const address = newAddress();
      const [a, b] = processes as [Process, Process];
      const errorsBefore = (await storeErrors(a.app)) + (await storeErrors(b.app));
      assert.equal((await wrong(a.app, a.tenant, address)).statusCode, 401);
      assert.equal((await wrong(a.app, a.tenant, address)).statusCode, 401);
      assert.equal((await wrong(b.app, b.tenant, address)).statusCode, 401);
      // As above: a store command that timed out on a loaded host left its failure uncounted (the
      // metrics count it), so each such failure may take one more wrong attempt; never more.
      // The failures are counted again after each extra attempt: one that failed too earns its successor.
      const failures = async () => (await storeErrors(a.app)) + (await storeErrors(b.app)) - errorsBefore;
      let refusedByB = await me(b.app, b.tenant, address);
      for (let extra = 0; refusedByB.statusCode !== 429 && extra < (await failures()); extra++) {
        assert.equal((await wrong(b.app, b.tenant, address)).statusCode, 401);
        refusedByB = await me(b.app, b.tenant, address);
      }
      assertRefused(refusedByB, 'failed_authentication', 60);
      // The process that counted the last failure tells the other (LISTEN/NOTIFY), or the other's own next failure does.
      const deadline = Date.now() + 2_000;
      let res = await me(a.app, a.tenant, address);
      while (res.statusCode !== 429 && Date.now() < deadline) {
        await sleep(50);
        res = await me(a.app, a.tenant, address);
      }
      if (res.statusCode !== 429) {
        assert.equal((await wrong(a.app, a.tenant, address)).statusCode, 401);
        res = await me(a.app, a.tenant, address);
      }
      assertRefused(res, 'failed_authentication', 60);
    });
  });
}

async function tenantIn(db: Database, app: FastifyInstance, name: string): Promise<GivenTenant> {
  return new Given(app, db).tenant(name);
}

describeTwoProcesses('The postgres store: two apps on one PostgreSQL database', {
  skip: POSTGRES_AVAILABLE ? false : 'PostgreSQL is not reachable',
  async open() {
    const created = await createPostgresDatabase({ migrated: true });
    const dbs = [new PostgresDatabase(created.url, { max: 5 }), new PostgresDatabase(created.url, { max: 5 })];
    const config = testConfig({ ...LIMITS, database: { kind: 'postgres', url: created.url } });
    const notifications = dbs.map((db) => new PostgresNotifyBus(created.url, db));
    const apps = await Promise.all(dbs.map((db, i) => buildApp(config, db, { logger: false, notifications: notifications[i] })));
    const tenant = await tenantIn(dbs[0]!, apps[0]!, `t-${randomBytes(5).toString('hex')}`);
    return {
      processes: apps.map((app) => ({ app, tenant })),
      async close() {
        for (const app of apps) await app.close();
        for (const item of notifications) await item.close();
        for (const db of dbs) await db.close();
        await created.drop();
      },
    };
  },
});

/** How many times the app's rate-limit store failed (its metric, summed over stores and workers). */
async function storeErrors(app: FastifyInstance): Promise<number> {
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  let total = 0;
  for (const match of metrics.matchAll(/^learnbase_rate_limit_store_errors_total\{[^}]*\} (\d+)$/gm)) total += Number(match[1]);
  return total;
}

/**
 * Waits until `app`'s store counts a request (a token request from an address of its own goes
 * without a store error): a Redis connection still being made on a loaded host fails every command
 * at once, and a test would then see nothing counted.
 */
async function untilStoreCounts(app: FastifyInstance): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const before = await storeErrors(app);
    await tokenRequest(app, newAddress());
    if ((await storeErrors(app)) === before) return;
    if (Date.now() > deadline) assert.fail('the rate-limit store failed every request for 10 s');
    await sleep(100);
  }
}

/** Redis answers PING at REDIS_URL. */
async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
const REDIS_AVAILABLE = await redisReachable();

describeTwoProcesses('The redis store: two apps, each on its own embedded database', {
  skip: REDIS_AVAILABLE ? false : `Redis is not reachable at ${REDIS_URL}`,
  async open() {
    const dbs = [await openMigratedPglite(), await openMigratedPglite()];
    const config = testConfig({ ...LIMITS, redisUrl: REDIS_URL });
    const processes: Process[] = [];
    for (const db of dbs) {
      const app = await buildApp(config, db, { logger: false });
      processes.push({ app, tenant: await tenantIn(db, app, `t-${randomBytes(5).toString('hex')}`) });
    }
    return {
      processes,
      async close() {
        for (const { app } of processes) await app.close();
        for (const db of dbs) await db.close();
      },
    };
  },
});

describe('A store that fails', () => {
  it('serves requests uncounted while Redis is unreachable, and counts the failures', async () => {
    const db = await openMigratedPglite();
    after(() => db.close());
    const app = await buildApp(testConfig({ ...LIMITS, redisUrl: 'redis://127.0.0.1:1' }), db, { logger: false });
    after(() => app.close());
    const address = newAddress();
    for (let i = 0; i < 6; i++) assert.equal((await tokenRequest(app, address)).statusCode, 400);
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /learnbase_rate_limit_store_errors_total\{store="redis",worker="0"\} [1-9]/);
  });

  it('serves requests uncounted when the postgres store cannot write', {
    skip: POSTGRES_AVAILABLE ? false : 'PostgreSQL is not reachable',
  }, async () => {
    const created = await createPostgresDatabase({ migrated: true });
    const db = new PostgresDatabase(created.url, { max: 5 });
    after(async () => {
      await db.close();
      await created.drop();
    });
    const app = await buildApp(testConfig({ ...LIMITS, database: { kind: 'postgres', url: created.url } }), db, { logger: false });
    after(() => app.close());
    const address = newAddress();
    assert.equal((await tokenRequest(app, address)).statusCode, 400);
    const { rows } = await db.query<{ count: number }>('SELECT count FROM rate_limit_counters WHERE key = $1', [
      `token:${normalizeIP(address)}`,
    ]);
    assert.equal(rows[0]?.count, 1);
    await db.query('DROP TABLE rate_limit_counters');
    for (let i = 0; i < 6; i++) assert.equal((await tokenRequest(app, address)).statusCode, 400);
  });
});

describe('Rate-limit settings', () => {
  const load = (env: Record<string, string>) => loadConfig({}, env);

  it('defaults to 60 sign-in page requests, 600 token requests and 120 failed authentications a minute; no store named', () => {
    const config = load({});
    assert.equal(config.rateLimitAuthorizePerMinute, 60);
    assert.equal(config.rateLimitTokenPerMinute, 600);
    assert.equal(config.rateLimitFailedAuthPerMinute, 120);
    assert.equal(config.rateLimitStore, undefined);
    assert.equal(config.redisUrl, undefined);
  });

  it('reads each from the environment, 0 included (no limit)', () => {
    const config = load({
      LEARNBASE_RATE_LIMIT_AUTHORIZE_PER_MINUTE: '10',
      LEARNBASE_RATE_LIMIT_TOKEN_PER_MINUTE: '0',
      LEARNBASE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '30',
      LEARNBASE_RATE_LIMIT_STORE: 'redis',
      REDIS_URL: 'redis://:secret@cache:6379/2',
    });
    assert.deepEqual(
      [
        config.rateLimitAuthorizePerMinute,
        config.rateLimitTokenPerMinute,
        config.rateLimitFailedAuthPerMinute,
        config.rateLimitStore,
        config.redisUrl,
      ],
      [10, 0, 30, 'redis', 'redis://:secret@cache:6379/2'],
    );
  });

  for (const [name, value] of [
    ['LEARNBASE_RATE_LIMIT_TOKEN_PER_MINUTE', '-1'],
    ['LEARNBASE_RATE_LIMIT_AUTHORIZE_PER_MINUTE', '1.5'],
    ['LEARNBASE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE', 'many'],
    ['LEARNBASE_RATE_LIMIT_STORE', 'memcached'],
    ['REDIS_URL', 'http://cache:6379'],
  ] as const) {
    it(`refuses ${name}=${value}`, () => {
      assert.throws(() => load({ [name]: value }), /Invalid configuration/);
    });
  }

  it('refuses the redis store without REDIS_URL, and the postgres store on the embedded database', () => {
    assert.throws(() => load({ LEARNBASE_RATE_LIMIT_STORE: 'redis' }), /redis needs REDIS_URL/);
    assert.throws(
      () => load({ LEARNBASE_RATE_LIMIT_STORE: 'postgres' }),
      /postgres needs PostgreSQL .*the embedded database serves one process/,
    );
    assert.equal(load({ LEARNBASE_RATE_LIMIT_STORE: 'postgres', DATABASE_URL: 'postgres://db/x' }).rateLimitStore, 'postgres');
  });

  it('refuses to build an app with the postgres store on the embedded database', async () => {
    const db = await PgliteDatabase.open(undefined);
    after(() => db.close());
    await assert.rejects(buildApp(testConfig({ rateLimitStore: 'postgres' }), db, { logger: false }), /needs PostgreSQL/);
  });
});

/** One request on a connection of its own, so node:cluster hands it to the next worker; answers the status. */
function send(base: string, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method, agent: false, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('serve --workers 2: rate limits in total', { skip: POSTGRES_AVAILABLE ? false : 'PostgreSQL is not reachable' }, () => {
  it('holds the token limit and the failed-authentication limit across both workers', async () => {
    const database = await createPostgresDatabase();
    after(() => database.drop());
    const server = startCli(['serve', '--workers', '2', '--port', '0', '--database', database.url], {
      LEARNBASE_TRUST_PROXY: 'loopback',
      LEARNBASE_RATE_LIMIT_TOKEN_PER_MINUTE: '6',
      LEARNBASE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '4',
    });
    after(() => server.kill('SIGKILL'));
    const banner = await waitForOutput(server, /read it back:\n *curl [^\n]+\n *curl [^\n]+\n/);
    const base = /listening on (http:\/\/[^\s]+)/.exec(banner)?.[1] as string;
    const key = /key: +(\S+)/.exec(banner)?.[1] as string;
    const secret = /secret: +(\S+)/.exec(banner)?.[1] as string;

    const client = { 'x-forwarded-for': '198.51.100.20' };
    const token = [];
    for (let i = 0; i < 10; i++) token.push(await send(base, 'POST', '/auth/oauth/token', client, '{"grant_type":"password"}'));
    assert.deepEqual(token, [400, 400, 400, 400, 400, 400, 429, 429, 429, 429]);

    const guesser = { 'x-forwarded-for': '198.51.100.21', 'x-svc-tenant': 'demo' };
    const basic = (value: string) => ({ ...guesser, authorization: `Basic ${Buffer.from(`${key}:${value}`).toString('base64')}` });
    const failures = [];
    for (let i = 0; i < 4; i++) failures.push(await send(base, 'GET', '/api/me', basic('wrong')));
    assert.deepEqual(failures, [401, 401, 401, 401]);
    await sleep(300);
    const after4 = [];
    for (let i = 0; i < 4; i++) after4.push(await send(base, 'GET', '/api/me', basic(secret)));
    assert.deepEqual(after4, [429, 429, 429, 429], 'both workers refuse the right secret');
    assert.equal(
      await send(base, 'GET', '/api/me', { ...basic(secret), 'x-forwarded-for': '198.51.100.22' }),
      200,
      'another client is served',
    );

    const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
    server.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});
