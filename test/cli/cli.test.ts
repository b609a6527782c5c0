import assert from 'node:assert/strict';
import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { buildApp } from '../../src/server/app.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { POSTGRES_AVAILABLE, createPostgresDatabase } from '../support/backends.js';
import { testConfig } from '../support/build-test-app.js';
import { runCli, runCliProcess, startCli, waitForOutput } from '../support/cli.js';
import { copyMigratedDataFolder } from '../support/templates.js';

const execAsync = promisify(exec);
const folders: string[] = [];
const newFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'learnbase-cli-'));
  folders.push(folder);
  return folder;
};
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

describe('learnbase command line [pglite]', () => {
  it('creates a tenant and an API key whose secret works and is stored only as a hash', async () => {
    const data = newFolder();
    const tenant = await runCli(['tenant', 'create', 'acme', '--data', data, '--json']);
    assert.equal(tenant.code, 0, tenant.stderr);
    assert.equal(JSON.parse(tenant.stdout).name, 'acme');
    const created = await runCli(['apikey', 'create', '--tenant', 'acme', '--data', data, '--json']);
    assert.equal(created.code, 0, created.stderr);
    const { key, secret } = JSON.parse(created.stdout) as { key: string; secret: string };
    assert.match(key, /^lb_[0-9a-f]{32}_[0-9a-f]{16}$/);
    assert.ok(secret.length >= 40);

    const db = await PgliteDatabase.open(data);
    try {
      const { rows } = await db.query<{ stored: string }>('SELECT encode(secret_hash, $1) AS stored FROM api_keys', ['escape']);
      assert.equal(rows.length, 1);
      assert.ok(!rows[0].stored.includes(secret), 'the secret is not stored in the clear');
      const app = await buildApp(testConfig(), db, { logger: false });
      const res = await app.inject({
        method: 'GET',
        url: '/api/me',
        headers: { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`, 'x-svc-tenant': 'acme' },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().tenant.name, 'acme');
      await app.close();
    } finally {
      await db.close();
    }
  });

  it('creates admins (password stored as scrypt) and OAuth clients with several redirect URIs', async () => {
    const data = await copyMigratedDataFolder(newFolder());
    assert.equal((await runCli(['tenant', 'create', 'acme', '--data', data])).code, 0);
    const admin = await runCli([
      'admin',
      'create',
      '--tenant',
      'acme',
      '--email',
      'Ada@Example.com',
      '--password',
      'correct horse battery',
      '--data',
      data,
      '--json',
    ]);
    assert.equal(admin.code, 0, admin.stderr);
    assert.equal(JSON.parse(admin.stdout).email, 'ada@example.com');
    const weak = await runCli(['admin', 'create', '--tenant', 'acme', '--email', 'bob@example.com', '--password', 'short', '--data', data]);
    assert.equal(weak.code, 1);
    assert.match(weak.stderr, /at least 12 characters/);
    const client = await runCli([
      'client',
      'create',
      '--tenant',
      'acme',
      '--redirect-uri',
      'https://app.example.com/cb',
      '--redirect-uri',
      'http://localhost:3000/cb',
      '--name',
      'LMS',
      '--data',
      data,
      '--json',
    ]);
    assert.equal(client.code, 0, client.stderr);
    const { clientId, clientSecret } = JSON.parse(client.stdout) as { clientId: string; clientSecret: string };
    assert.match(clientId, /^lbc_[0-9a-f]{32}_[0-9a-f]{16}$/);
    const insecure = await runCli(['client', 'create', '--tenant', 'acme', '--redirect-uri', 'http://app.example.com/cb', '--data', data]);
    assert.equal(insecure.code, 1);
    assert.match(insecure.stderr, /must use https/);

    const db = await PgliteDatabase.open(data);
    try {
      const admins = await db.query<{ password_hash: string }>('SELECT password_hash FROM admins');
      assert.match(admins.rows[0].password_hash, /^scrypt\$/);
      assert.ok(!admins.rows[0].password_hash.includes('correct horse'));
      const clients = await db.query<{ redirect_uris: string[]; secret: string }>(
        "SELECT redirect_uris, encode(secret_hash, 'escape') AS secret FROM oauth_clients WHERE NOT console",
      );
      const consoles = await db.query<{ redirect_uris: string[] }>('SELECT redirect_uris FROM oauth_clients WHERE console');
      assert.deepEqual(
        consoles.rows.map((row) => row.redirect_uris),
        [['/console/auth/callback']],
        '`tenant create` made the console client with the tenant',
      );
      assert.deepEqual(clients.rows[0].redirect_uris, ['https://app.example.com/cb', 'http://localhost:3000/cb']);
      assert.ok(!clients.rows[0].secret.includes(clientSecret));
    } finally {
      await db.close();
    }
  });

  it('refuses a command on a folder another process holds, and changes nothing', async () => {
    const data = newFolder();
    const holder = await PgliteDatabase.open(data);
    try {
      const refused = await runCliProcess(['tenant', 'create', 'blocked', '--data', data]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /in use by another learnbase process/);
      const { rows } = await holder.query<{ count: number }>("SELECT count(*)::int AS count FROM pg_tables WHERE tablename = 'tenants'");
      assert.equal(rows[0].count, 0, 'the refused command did not even migrate');
    } finally {
      await holder.close();
    }
    const allowed = await runCliProcess(['tenant', 'create', 'blocked', '--data', data]);
    assert.equal(allowed.code, 0, allowed.stderr);
  });

  it('explains bad names, duplicates, unknown tenants and bad usage', async () => {
    const data = await copyMigratedDataFolder(newFolder());
    const badName = await runCli(['tenant', 'create', 'Not_A_Label', '--data', data]);
    assert.equal(badName.code, 1);
    assert.match(badName.stderr, /not a valid tenant name/);
    assert.equal((await runCli(['tenant', 'create', 'twice', '--data', data])).code, 0);
    const duplicate = await runCli(['tenant', 'create', 'twice', '--data', data]);
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /already exists/);
    const unknown = await runCli(['apikey', 'create', '--tenant', 'nobody', '--data', data]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No tenant named "nobody"/);
    const usage = await runCli(['frobnicate', '--data', data]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Unknown command/);
    const flag = await runCli(['migrate', '--no-such-flag']);
    assert.equal(flag.code, 2);
  });

  it('serves on an empty folder, seeds the demo tenant once, and drains on SIGTERM', async () => {
    const data = newFolder();
    const server = startCli(['serve', '--port', '0', '--data', data]);
    after(() => server.kill('SIGKILL'));
    const banner = await waitForOutput(server, /read it back:\n *curl [^\n]+\n *curl [^\n]+\n/);
    const base = /listening on (http:\/\/[^\s]+)/.exec(banner)?.[1];
    const key = /key: +(\S+)/.exec(banner)?.[1];
    const secret = /secret: +(\S+)/.exec(banner)?.[1];
    assert.ok(base && key && secret, banner);
    assert.match(banner, /admin: +admin@example\.com \/ \S{16}/);
    assert.match(banner, /clientId: +lbc_/);
    const me = await fetch(`${base}/api/me`, {
      headers: { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`, 'x-svc-tenant': 'demo' },
    });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { tenant: { name: string } }).tenant.name, 'demo');

    // The two printed curl lines, run as a newcomer would paste them.
    const [putLine, getLine] = banner.split('\n').filter((line) => line.trim().startsWith('curl '));
    const put = await execAsync(`${putLine.trim()} -s -o /dev/null -w '%{http_code}'`);
    assert.equal(put.stdout, '204');
    const got = await execAsync(`${getLine.trim()} -s`);
    assert.deepEqual(JSON.parse(got.stdout), { page: 3 });

    const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
    server.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(!existsSync(join(data, 'learnbase.lock')), 'the folder lock is released');

    const again = startCli(['serve', '--port', '0', '--data', data]);
    after(() => again.kill('SIGKILL'));
    const second = await waitForOutput(again, /listening on/);
    const closed = new Promise((resolve) => again.on('close', resolve));
    again.kill('SIGTERM');
    await closed;
    assert.doesNotMatch(second, /secret:/, 'the demo credentials are created and printed only once');
  });
});

describe('learnbase command line [postgres]', { skip: !POSTGRES_AVAILABLE }, () => {
  it('applies each migration exactly once when several processes migrate at once', async () => {
    const database = await createPostgresDatabase();
    try {
      const runs = await Promise.all([1, 2, 3].map(() => runCliProcess(['migrate', '--database', database.url, '--json'])));
      for (const run of runs) assert.equal(run.code, 0, run.stderr);
      const applied = runs.map((run) => (JSON.parse(run.stdout) as { applied: string[] }).applied);
      assert.equal(applied.filter((names) => names.length > 0).length, 1, 'one process applied the migrations');
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query('SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name');
      await client.end();
      assert.ok(rows.length >= 1);
      assert.ok(rows.every((row) => row.n === 1));
    } finally {
      await database.drop();
    }
  });

  it('creates tenants and keys through --database', async () => {
    const database = await createPostgresDatabase();
    try {
      assert.equal((await runCli(['tenant', 'create', 'pgco', '--database', database.url])).code, 0);
      const created = await runCli(['apikey', 'create', '--tenant', 'pgco', '--database', database.url, '--json']);
      assert.equal(created.code, 0, created.stderr);
      assert.match(JSON.parse(created.stdout).key, /^lb_/);
    } finally {
      await database.drop();
    }
  });

  it('exits with an error, instead of hanging on its connections, when the port is taken', async () => {
    const database = await createPostgresDatabase();
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const result = await runCliProcess(['serve', '--port', String(port), '--database', database.url]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /EADDRINUSE/);
    } finally {
      blocker.close();
      await database.drop();
    }
  });
});
