import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { controlSocketPath } from '../../src/platform/control-socket.js';
import { runCli, runCliWithInput, startCli, waitForOutput } from '../support/cli.js';

const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

describe('commands while a server holds the PGlite folder', () => {
  const data = mkdtempSync(join(tmpdir(), 'learnbase-handoff-'));
  let base = '';
  let server: ReturnType<typeof startCli>;
  const cli = (...args: string[]) => runCli([...args, '--data', data]);

  before(async () => {
    server = startCli(['serve', '--port', '0', '--data', data]);
    const banner = await waitForOutput(server, /listening on (http:\/\/\S+)/);
    base = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
  });
  after(() => {
    server.kill('SIGKILL');
    rmSync(data, { recursive: true, force: true });
  });

  it('listens on a socket in a folder only its own user may enter', () => {
    const folder = join(data, '.control');
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.ok(statSync(controlSocketPath(data)).isSocket());
  });

  it('runs every command in the server, with the output and exit codes a command of its own gives', async () => {
    const created = await cli('tenant', 'create', 'acme');
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'Created tenant "acme".\n');

    const again = await cli('tenant', 'create', 'acme');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^learnbase: A tenant named "acme" already exists\.\n$/);

    const listed = await cli('tenant', 'list', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as { tenants: { name: string }[] }).tenants.map((tenant) => tenant.name).sort(), [
      'acme',
      'demo',
    ]);

    const unknown = await cli('apikey', 'list', '--tenant', 'nobody');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /nobody/);

    const usage = await cli('tenant', 'frobnicate');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Usage: learnbase/);

    const migrated = await cli('migrate', '--json');
    assert.equal(migrated.code, 0);
    assert.deepEqual(JSON.parse(migrated.stdout), { applied: [] });
  });

  it('a key issued through the server works on it at once, and a revocation stops it at once', async () => {
    const issued = await cli('apikey', 'create', '--tenant', 'acme', '--json');
    assert.equal(issued.code, 0, issued.stderr);
    const { key, secret } = JSON.parse(issued.stdout) as { key: string; secret: string };
    const me = () =>
      fetch(`${base}/api/me`, { headers: { authorization: basic(key, secret), 'x-svc-tenant': 'acme' } }).then((res) => res.status);
    assert.equal(await me(), 200);

    const revoked = await cli('apikey', 'revoke', '--tenant', 'acme', key);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(await me(), 401, 'the server cached the key as valid; the revocation must clear it');
  });

  it('admin set-password reads the password here and the server sets it', async () => {
    const admin = await cli('admin', 'create', '--tenant', 'acme', '--email', 'ops@example.com', '--password', 'first password 1');
    assert.equal(admin.code, 0, admin.stderr);
    const set = await runCliWithInput(
      ['admin', 'set-password', '--tenant', 'acme', '--email', 'ops@example.com', '--data', data],
      'second password 2\n',
    );
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /Set a new password for ops@example.com/);
    const none = await runCliWithInput(['admin', 'set-password', '--tenant', 'acme', '--email', 'ops@example.com', '--data', data], '');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /got none/);
  });

  it('imports a file named relative to the command line, not to the server', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'learnbase-handoff-import-'));
    after(() => rmSync(folder, { recursive: true, force: true }));
    const file = join(folder, 'users.csv');
    writeFileSync(file, 'name,email,employeeId\nAda Lovelace,ada@example.com,E1\n');
    // Relative to the command line's working folder: the test process's own, where runCli runs the command.
    const imported = await cli('import', 'users', '--tenant', 'acme', relative(process.cwd(), file), '--json');
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal((JSON.parse(imported.stdout) as { new: number }).new, 1);
    assert.match(imported.stderr, /done/, 'the progress lines come back too');

    const missing = await cli('import', 'users', '--tenant', 'acme', 'no-such-file.json');
    assert.equal(missing.code, 2);
  });

  it('leaves backup and restore refused while the server runs', async () => {
    const backup = await cli('backup', join(data, '..', `handoff-${process.pid}.tar.gz`));
    assert.equal(backup.code, 1);
    assert.match(backup.stderr, /in use by another learnbase process/);
  });

  it('answers a request it cannot read with exit code 2, and stays up', async () => {
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(controlSocketPath(data));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.end('not json\n');
    });
    assert.match(reply, /"exit":2/);
    const listed = await cli('tenant', 'list', '--json');
    assert.equal(listed.code, 0);
  });

  it('after the server is killed, a command opens the folder itself', async () => {
    server.kill('SIGKILL');
    await new Promise((resolve) => server.once('close', resolve));
    assert.ok(existsSync(controlSocketPath(data)), 'a killed server leaves its socket file');
    const listed = await cli('tenant', 'list', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal((JSON.parse(listed.stdout) as { tenants: unknown[] }).tenants.length, 2);
  });
});
