import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { verifyAdminPassword } from '../../src/modules/auth/admins/admin.service.js';
import { issueCode } from '../../src/modules/auth/oauth/code.service.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { PostgresNotifyBus } from '../../src/platform/database/notify-bus.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { testConfig } from '../support/build-test-app.js';
import { runCli, runCliWithInput, type CliResult } from '../support/cli.js';
import { type CliTarget, pgliteTarget, postgresTarget } from '../support/cli-targets.js';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
/** The app built between commands runs with its caches on, as a server does. */
const CONFIG = testConfig({ cacheTtlMs: 60_000 });
const PASSWORD = 'correct horse battery';

const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
const me = (app: FastifyInstance, authorization: string, tenant: string) =>
  app.inject({ method: 'GET', url: '/api/me', headers: { authorization, 'x-svc-tenant': tenant } });
const json = <T = any>(result: CliResult): T => {
  assert.equal(result.code, 0, `exit ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
};

/** A code for the admin and client, exchanged for tokens through the app. */
async function tokensFor(
  app: FastifyInstance,
  db: Database,
  tenantId: string,
  adminId: string,
  client: { clientId: string; clientSecret: string },
) {
  const code = await issueCode(db, { tenantId, clientId: client.clientId, adminId, redirectUri: REDIRECT_URI });
  return app.inject({
    method: 'POST',
    url: '/auth/oauth/token',
    payload: {
      grant_type: 'authorization_code',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uri: REDIRECT_URI,
      code,
    },
  });
}

/** Rows per table holding `tenantId`, for every table of the schema that has a tenant_id column. */
async function rowsByTable(db: Database, tenantId: string): Promise<Record<string, number>> {
  const { rows: tables } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'tenant_id' ORDER BY table_name`,
  );
  assert.ok(tables.length >= 25, `only ${tables.length} tables with tenant_id`);
  const counts: Record<string, number> = {};
  for (const { table_name: table } of tables) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}" WHERE tenant_id = $1`, [tenantId]);
    counts[table] = rows[0]!.n;
  }
  return counts;
}

function lifecycleSuite(backend: 'pglite' | 'postgres', open: () => Promise<CliTarget>): void {
  describe(`learnbase lifecycle commands [${backend}]`, { skip: backend === 'postgres' && !POSTGRES_AVAILABLE }, () => {
    let target: CliTarget;
    const cli = (...args: string[]) => runCli([...args, ...target.flags]);
    before(async () => {
      target = await open();
    });
    after(async () => target?.dispose());

    it('lists tenants, and deletes one with every row it owns (only with --yes); its name becomes free', async () => {
      const doomed = json(await cli('tenant', 'create', 'doomed', '--json'));
      const kept = json(await cli('tenant', 'create', 'kept', '--json'));
      const keys = [
        json(await cli('apikey', 'create', '--tenant', 'doomed', '--json')),
        json(await cli('apikey', 'create', '--tenant', 'kept', '--json')),
      ];
      // One command at a time: a PGlite folder admits one process.
      const clients: Array<{ clientId: string; clientSecret: string }> = [];
      const admins: Array<{ id: string; email: string }> = [];
      for (const name of ['doomed', 'kept']) {
        clients.push(json(await cli('client', 'create', '--tenant', name, '--redirect-uri', REDIRECT_URI, '--json')));
        admins.push(
          json(await cli('admin', 'create', '--tenant', name, '--email', `a@${name}.example.com`, '--password', PASSWORD, '--json')),
        );
      }
      const listed = json(await cli('tenant', 'list', '--json'));
      assert.deepEqual(
        listed.tenants.map((tenant: { name: string }) => tenant.name),
        ['doomed', 'kept'],
      );
      assert.equal(listed.tenants[0].id, doomed.id);
      assert.match((await cli('tenant', 'list')).stdout, /^NAME +ID +CREATED\ndoomed +[0-9a-f-]{36} +\d{4}-\d\d-\d\d \d\d:\d\dZ\n/);

      // Fill both tenants through the API: statements (and their key rows), documents, actors, credentials, tokens …
      const before = await target.withApp(async (app, db) => {
        for (const [index, tenant] of [doomed, kept].entries()) {
          const headers = { authorization: basic(keys[index].key, keys[index].secret), 'x-svc-tenant': tenant.name };
          const xapi = { ...headers, 'x-experience-api-version': '2.0.0' };
          const imported = await app.inject({
            method: 'POST',
            url: '/api/import/users',
            headers,
            payload: { users: [{ name: 'Ada', attributes: { email: 'ada@example.com' } }] },
          });
          assert.equal(imported.statusCode, 200, imported.body);
          const actor = { account: { homePage: `http://${tenant.name}.localhost`, name: 'ada@example.com' } };
          const stored = await app.inject({
            method: 'POST',
            url: '/xapi/statements',
            headers: xapi,
            payload: { actor, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: 'http://example.com/course' } },
          });
          assert.equal(stored.statusCode, 200, stored.body);
          const state = await app.inject({
            method: 'PUT',
            url: '/xapi/activities/state',
            query: { activityId: 'http://example.com/course', agent: JSON.stringify(actor), stateId: 'bookmark' },
            headers: xapi,
            payload: { page: 3 },
          });
          assert.equal(state.statusCode, 204, state.body);
          const credential = await app.inject({
            method: 'POST',
            url: '/api/auth/basic',
            headers,
            payload: { username: `learner-${tenant.name}`, password: PASSWORD, data: { actor } },
          });
          assert.equal(credential.statusCode, 201, credential.body);
          const issued = await tokensFor(app, db, tenant.id, admins[index].id, clients[index]);
          assert.equal(issued.statusCode, 200, issued.body);
          await db.query(
            "INSERT INTO sign_in_failures (tenant_id, subject, failures, window_started_at) VALUES ($1, 'ip:192.0.2.1', 1, now())",
            [tenant.id],
          );
        }
        return { doomed: await rowsByTable(db, doomed.id), kept: await rowsByTable(db, kept.id) };
      });
      const filled = Object.entries(before.doomed)
        .filter(([, n]) => n > 0)
        .map(([table]) => table);
      for (const table of [
        'xapi_statements',
        'xapi_statement_keys',
        'xapi_documents',
        'actors',
        'actor_identifiers',
        'actor_credentials',
        'api_keys',
        'admins',
        'oauth_clients',
        'oauth_tokens',
        'sign_in_failures',
      ]) {
        assert.ok(filled.includes(table), `the tenant has rows in ${table} before the deletion`);
      }

      const unconfirmed = await cli('tenant', 'delete', 'doomed');
      assert.equal(unconfirmed.code, 2);
      assert.equal(
        unconfirmed.stderr,
        'learnbase: tenant delete removes every row of tenant "doomed" for good: confirm with --yes.\n',
        'the message alone, without the usage',
      );
      const deleted = json(await cli('tenant', 'delete', 'doomed', '--yes', '--json'));
      assert.deepEqual(deleted, { deleted: { id: doomed.id, name: 'doomed' } });
      const again = await cli('tenant', 'delete', 'doomed', '--yes');
      assert.equal(again.code, 1);
      assert.match(again.stderr, /No tenant named "doomed"/);

      await target.withApp(async (app, db) => {
        const left = Object.entries(await rowsByTable(db, doomed.id)).filter(([, n]) => n > 0);
        assert.deepEqual(left, [], 'no table keeps a row of the deleted tenant');
        assert.deepEqual(await rowsByTable(db, kept.id), before.kept, 'the other tenant keeps every row');
        assert.equal((await me(app, basic(keys[0].key, keys[0].secret), 'doomed')).statusCode, 404);
        assert.equal((await me(app, basic(keys[1].key, keys[1].secret), 'kept')).statusCode, 200);
      });
      const reborn = json(await cli('tenant', 'create', 'doomed', '--json'));
      assert.notEqual(reborn.id, doomed.id);
      assert.deepEqual(
        json(await cli('tenant', 'list', '--json')).tenants.map((tenant: { name: string }) => tenant.name),
        ['doomed', 'kept'],
      );
    });

    it('lists API keys with their last use to the minute, and revokes one', async () => {
      json(await cli('tenant', 'create', 'keys', '--json'));
      const used = json(await cli('apikey', 'create', '--tenant', 'keys', '--json'));
      const idle = json(await cli('apikey', 'create', '--tenant', 'keys', '--json'));
      await target.withApp(async (app) => {
        for (let i = 0; i < 3; i += 1) assert.equal((await me(app, basic(used.key, used.secret), 'keys')).statusCode, 200);
      });
      const listed = json(await cli('apikey', 'list', '--tenant', 'keys', '--json')).apiKeys as Array<Record<string, string | null>>;
      const byKey = new Map(listed.map((entry) => [entry.key, entry]));
      assert.equal(listed.length, 2);
      const lastUsed = new Date(byKey.get(used.key)!.lastUsedAt!);
      assert.equal(lastUsed.getUTCSeconds() + lastUsed.getUTCMilliseconds(), 0, 'to the minute');
      assert.ok(Date.now() - lastUsed.getTime() < 120_000);
      assert.equal(byKey.get(idle.key)!.lastUsedAt, null);
      assert.equal(byKey.get(used.key)!.revokedAt, null);
      assert.match((await cli('apikey', 'list', '--tenant', 'keys')).stdout, /^KEY +CREATED +LAST USED +REVOKED +SCOPE\n/);

      const revoked = json(await cli('apikey', 'revoke', '--tenant', 'keys', used.key, '--json'));
      assert.equal(revoked.key, used.key);
      assert.ok(revoked.revokedAt);
      const after = json(await cli('apikey', 'list', '--tenant', 'keys', '--json')).apiKeys as Array<Record<string, string | null>>;
      assert.equal(after.find((entry) => entry.key === used.key)!.revokedAt, revoked.revokedAt);
      await target.withApp(async (app) => {
        assert.equal((await me(app, basic(used.key, used.secret), 'keys')).statusCode, 401);
        assert.equal((await me(app, basic(idle.key, idle.secret), 'keys')).statusCode, 200);
      });

      const unknown = await cli('apikey', 'revoke', '--tenant', 'keys', 'lb_00000000000000000000000000000000_0000000000000000');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /has no API key lb_0+_0+/);
      const noTenant = await cli('apikey', 'list', '--tenant', 'nobody');
      assert.equal(noTenant.code, 1);
      assert.match(noTenant.stderr, /No tenant named "nobody"/);
      assert.equal((await cli('apikey', 'revoke', '--tenant', 'keys')).code, 2);
      assert.equal((await cli('apikey', 'list')).code, 2);
    });

    it('lists OAuth clients, rotates a secret (the old one is refused) and deletes a client (its tokens are refused)', async () => {
      const tenant = json(await cli('tenant', 'create', 'clients', '--json'));
      const admin = json(
        await cli('admin', 'create', '--tenant', 'clients', '--email', 'ops@example.com', '--password', PASSWORD, '--json'),
      );
      const client = json(await cli('client', 'create', '--tenant', 'clients', '--redirect-uri', REDIRECT_URI, '--name', 'LMS', '--json'));
      const listed = json(await cli('client', 'list', '--tenant', 'clients', '--json')).clients;
      assert.equal(listed.length, 1);
      assert.deepEqual(
        { ...listed[0], createdAt: undefined },
        { clientId: client.clientId, name: 'LMS', redirectUris: [REDIRECT_URI], createdAt: undefined },
      );

      const rotated = json(await cli('client', 'rotate-secret', '--tenant', 'clients', client.clientId, '--json'));
      assert.equal(rotated.clientId, client.clientId);
      assert.notEqual(rotated.clientSecret, client.clientSecret);
      const token = await target.withApp(async (app, db) => {
        const old = await tokensFor(app, db, tenant.id, admin.id, client);
        assert.equal(old.statusCode, 401, old.body);
        assert.equal(old.json().error, 'invalid_client');
        const fresh = await tokensFor(app, db, tenant.id, admin.id, rotated);
        assert.equal(fresh.statusCode, 200, fresh.body);
        const accessToken = fresh.json().access_token as string;
        assert.equal((await me(app, `Bearer ${accessToken}`, 'clients')).statusCode, 200);
        return accessToken;
      });

      const deleted = json(await cli('client', 'delete', '--tenant', 'clients', client.clientId, '--json'));
      assert.deepEqual(deleted, { clientId: client.clientId, deleted: true });
      assert.deepEqual(json(await cli('client', 'list', '--tenant', 'clients', '--json')).clients, []);
      await target.withApp(async (app, db) => {
        assert.equal((await me(app, `Bearer ${token}`, 'clients')).statusCode, 401);
        const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_tokens WHERE tenant_id = $1', [tenant.id]);
        assert.equal(rows[0]!.n, 0, 'the tokens issued to the client are gone');
      });
      for (const verb of ['delete', 'rotate-secret']) {
        const unknown = await cli('client', verb, '--tenant', 'clients', client.clientId);
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /has no OAuth client lbc_/);
      }
      assert.equal((await cli('client', 'delete', '--tenant', 'clients')).code, 2);
    });

    it('lists admins, sets a password from standard input, unlocks and deletes an admin', async () => {
      const tenant = json(await cli('tenant', 'create', 'admins', '--json'));
      const admin = json(
        await cli('admin', 'create', '--tenant', 'admins', '--email', 'Ops@Example.com', '--password', PASSWORD, '--json'),
      );
      const client = json(await cli('client', 'create', '--tenant', 'admins', '--redirect-uri', REDIRECT_URI, '--json'));

      const weak = await runCliWithInput(
        ['admin', 'set-password', '--tenant', 'admins', '--email', 'ops@example.com', ...target.flags],
        'short\n',
      );
      assert.equal(weak.code, 1);
      assert.match(weak.stderr, /at least 12 characters/);
      const empty = await runCliWithInput(
        ['admin', 'set-password', '--tenant', 'admins', '--email', 'ops@example.com', ...target.flags],
        '',
      );
      assert.equal(empty.code, 2);
      assert.match(empty.stderr, /standard input/);
      const onCommandLine = await cli(
        'admin',
        'set-password',
        '--tenant',
        'admins',
        '--email',
        'ops@example.com',
        '--password',
        'new password 123',
      );
      assert.equal(onCommandLine.code, 2);
      assert.match(onCommandLine.stderr, /never from the command line/);
      const set = await runCliWithInput(
        ['admin', 'set-password', '--tenant', 'admins', '--email', 'OPS@example.com', '--json', ...target.flags],
        'a new password 2026\n',
      );
      assert.deepEqual(json(set), { id: admin.id, email: 'ops@example.com' });
      const unknownAdmin = await runCliWithInput(
        ['admin', 'set-password', '--tenant', 'admins', '--email', 'nobody@example.com', ...target.flags],
        'a new password 2026\n',
      );
      assert.equal(unknownAdmin.code, 1);
      assert.match(unknownAdmin.stderr, /no admin with the e-mail nobody@example.com/);

      const token = await target.withApp(async (app, db) => {
        assert.equal(await verifyAdminPassword(db, tenant.id, 'ops@example.com', PASSWORD), undefined, 'the old password is refused');
        assert.ok(await verifyAdminPassword(db, tenant.id, 'ops@example.com', 'a new password 2026'));
        await db.query(
          `INSERT INTO sign_in_failures (tenant_id, subject, failures, window_started_at, locked_until)
           VALUES ($1, 'email:ops@example.com', 5, now(), now() + interval '15 minutes'), ($1, 'ip:192.0.2.7', 5, now(), NULL)`,
          [tenant.id],
        );
        const issued = await tokensFor(app, db, tenant.id, admin.id, client);
        assert.equal(issued.statusCode, 200, issued.body);
        return issued.json().access_token as string;
      });
      const locked = json(await cli('admin', 'list', '--tenant', 'admins', '--json')).admins;
      assert.equal(locked.length, 1);
      assert.equal(locked[0].email, 'ops@example.com');
      assert.ok(new Date(locked[0].lockedUntil).getTime() > Date.now());
      assert.deepEqual(json(await cli('admin', 'unlock', '--tenant', 'admins', '--email', 'ops@example.com', '--json')), {
        email: 'ops@example.com',
        cleared: true,
      });
      assert.equal(json(await cli('admin', 'list', '--tenant', 'admins', '--json')).admins[0].lockedUntil, null);
      assert.deepEqual(json(await cli('admin', 'unlock', '--tenant', 'admins', '--email', 'ops@example.com', '--json')), {
        email: 'ops@example.com',
        cleared: false,
      });

      assert.deepEqual(json(await cli('admin', 'delete', '--tenant', 'admins', '--email', 'ops@example.com', '--json')), {
        email: 'ops@example.com',
        deleted: true,
      });
      assert.deepEqual(json(await cli('admin', 'list', '--tenant', 'admins', '--json')).admins, []);
      await target.withApp(async (app, db) => {
        assert.equal((await me(app, `Bearer ${token}`, 'admins')).statusCode, 401);
        const { rows } = await db.query<{ subject: string }>('SELECT subject FROM sign_in_failures WHERE tenant_id = $1', [tenant.id]);
        assert.deepEqual(
          rows.map((row) => row.subject),
          ['ip:192.0.2.7'],
          "the address's count stays",
        );
      });
      for (const verb of ['delete', 'unlock']) {
        const unknown = await cli('admin', verb, '--tenant', 'admins', '--email', 'ops@example.com');
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /no admin with the e-mail ops@example.com/);
      }
      assert.equal((await cli('admin', 'delete', '--tenant', 'admins')).code, 2);
    });

    it('answers usage errors with exit code 2', async () => {
      for (const args of [
        ['tenant', 'frobnicate'],
        ['tenant', 'list', 'extra'],
        ['apikey', 'destroy', '--tenant', 'x'],
        ['client', 'rotate-secret', '--tenant', 'x'],
      ]) {
        const result = await cli(...args);
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, /Usage: learnbase/);
      }
      assert.match((await runCli(['--help'])).stdout, /tenant delete NAME --yes/);
    });
  });
}

lifecycleSuite('pglite', () => pgliteTarget('learnbase-lifecycle-', CONFIG));
lifecycleSuite('postgres', () => postgresTarget(CONFIG));

describe('Lifecycle commands reach running server processes on one PostgreSQL database (LISTEN/NOTIFY)', {
  skip: !POSTGRES_AVAILABLE && 'PostgreSQL not reachable',
}, () => {
  const opened: Array<{ close(): Promise<void> }> = [];
  let drop: () => Promise<void> = async () => {};
  let url = '';
  let apps: FastifyInstance[] = [];
  let db: PostgresDatabase;
  const cli = (...args: string[]) => runCli([...args, '--database', url]);

  before(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    url = created.url;
    const instances = [];
    for (const _ of [0, 1]) {
      const pool = new PostgresDatabase(created.url, { max: 5 });
      await migrate(pool);
      const notifications = new PostgresNotifyBus(created.url, pool);
      opened.push(notifications, pool);
      // Caches that would keep a credential a minute: only the notifications can end it sooner.
      instances.push({ pool, app: await buildApp(testConfig({ cacheTtlMs: 60_000 }), pool, { logger: false, notifications }) });
    }
    db = instances[0]!.pool;
    apps = instances.map((instance) => instance.app);
  });

  after(async () => {
    for (const app of apps) await app.close();
    for (const resource of opened.reverse()) await resource.close();
    await drop();
  });

  /** Polls every app until `request` answers `status`; fails after a second. */
  async function everyAppWithinASecond(request: (app: FastifyInstance) => Promise<{ statusCode: number }>, status: number, what: string) {
    const started = Date.now();
    for (const [index, app] of apps.entries()) {
      let seen = (await request(app)).statusCode;
      while (seen !== status && Date.now() - started < 1_000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = (await request(app)).statusCode;
      }
      assert.equal(seen, status, `process ${index}: ${what} after ${Date.now() - started} ms`);
    }
  }

  it('refuses a revoked API key in every process within a second, although both cached it', async () => {
    json(await cli('tenant', 'create', 'live', '--json'));
    const issued = json(await cli('apikey', 'create', '--tenant', 'live', '--json'));
    const authorization = basic(issued.key, issued.secret);
    for (const app of apps) assert.equal((await me(app, authorization, 'live')).statusCode, 200);
    json(await cli('apikey', 'revoke', '--tenant', 'live', issued.key, '--json'));
    await everyAppWithinASecond((app) => me(app, authorization, 'live'), 401, 'the revoked key still worked');
  });

  it('refuses the tokens of a deleted client and of a deleted admin in every process within a second', async () => {
    const tenant = json(await cli('tenant', 'create', 'tokens', '--json'));
    const admin = json(await cli('admin', 'create', '--tenant', 'tokens', '--email', 'a@example.com', '--password', PASSWORD, '--json'));
    const other = json(await cli('admin', 'create', '--tenant', 'tokens', '--email', 'b@example.com', '--password', PASSWORD, '--json'));
    const client = json(await cli('client', 'create', '--tenant', 'tokens', '--redirect-uri', REDIRECT_URI, '--json'));
    const client2 = json(await cli('client', 'create', '--tenant', 'tokens', '--redirect-uri', REDIRECT_URI, '--json'));
    const viaClient = (await tokensFor(apps[0]!, db, tenant.id, admin.id, client)).json().access_token as string;
    const viaAdmin = (await tokensFor(apps[0]!, db, tenant.id, other.id, client2)).json().access_token as string;
    for (const app of apps) {
      assert.equal((await me(app, `Bearer ${viaClient}`, 'tokens')).statusCode, 200);
      assert.equal((await me(app, `Bearer ${viaAdmin}`, 'tokens')).statusCode, 200);
    }
    json(await cli('client', 'delete', '--tenant', 'tokens', client.clientId, '--json'));
    await everyAppWithinASecond((app) => me(app, `Bearer ${viaClient}`, 'tokens'), 401, "the deleted client's token still worked");
    json(await cli('admin', 'delete', '--tenant', 'tokens', '--email', 'b@example.com', '--json'));
    await everyAppWithinASecond((app) => me(app, `Bearer ${viaAdmin}`, 'tokens'), 401, "the deleted admin's token still worked");
  });

  it('forgets a deleted tenant in every process within a second: its key is refused, and a new tenant of that name is served', async () => {
    json(await cli('tenant', 'create', 'gone', '--json'));
    const issued = json(await cli('apikey', 'create', '--tenant', 'gone', '--json'));
    for (const app of apps) assert.equal((await me(app, basic(issued.key, issued.secret), 'gone')).statusCode, 200);
    json(await cli('tenant', 'delete', 'gone', '--yes', '--json'));
    await everyAppWithinASecond((app) => me(app, basic(issued.key, issued.secret), 'gone'), 404, 'the deleted tenant was still served');
    const reborn = json(await cli('tenant', 'create', 'gone', '--json'));
    const fresh = json(await cli('apikey', 'create', '--tenant', 'gone', '--json'));
    for (const app of apps) {
      const res = await me(app, basic(fresh.key, fresh.secret), 'gone');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().tenant.id ?? reborn.id, reborn.id);
    }
  });
});
