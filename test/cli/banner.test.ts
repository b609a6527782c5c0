import assert from 'node:assert/strict';
import { exec } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { runCli, startCli, waitForOutput } from '../support/cli.js';

const execAsync = promisify(exec);

async function statusOf(curlLine: string): Promise<string> {
  return (await execAsync(`${curlLine.trim()} -s -o /dev/null -w '%{http_code}'`)).stdout;
}

describe('the start-up banner [pglite]', () => {
  it('prints curl lines a newcomer can paste twice: store, read back, replace', async () => {
    const data = mkdtempSync(join(tmpdir(), 'learnbase-banner-'));
    after(() => rmSync(data, { recursive: true, force: true }));
    const server = startCli(['serve', '--port', '0', '--data', data]);
    after(() => server.kill('SIGKILL'));
    const banner = await waitForOutput(server, /read it back:\n *curl [^\n]+\n *curl [^\n]+\n[^\n]+\n[^\n]+\n *curl [^\n]+\n/);
    const [store, read, replace] = banner.split('\n').filter((line) => line.trim().startsWith('curl '));
    assert.match(store, /curl -X POST /);
    assert.match(replace, /curl -X PUT .*-H 'If-Match: \*'/);

    // The console first: its address, and the demo admin who signs in there.
    const [, consoleUrl, email] = /Open the console at (http:\/\/\S+) and sign in as (\S+) \/ \S+/.exec(banner) ?? [];
    assert.ok(consoleUrl, banner);
    assert.equal(email, 'admin@example.com');
    const page = await fetch(consoleUrl);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const signIn = await fetch(new URL('auth/sign-in?tenant=demo', consoleUrl), { redirect: 'manual' });
    assert.equal(signIn.status, 303);
    assert.match(signIn.headers.get('location') ?? '', /\/auth\/oauth\/authorize\?response_type=code&client_id=lbc_/);

    for (let round = 1; round <= 2; round++) {
      assert.equal(await statusOf(store), '204', `store, round ${round}`);
      assert.deepEqual(JSON.parse((await execAsync(`${read.trim()} -s`)).stdout), { page: 3 });
      assert.equal(await statusOf(replace), '204', `replace, round ${round}`);
      assert.deepEqual(JSON.parse((await execAsync(`${read.trim()} -s`)).stdout), { page: 4 });
    }

    const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
    server.kill('SIGTERM');
    assert.equal(await exited, 0);
  });

  it('on a database that has the demo tenant, says so and prints an apikey create line that makes a working key as printed', async () => {
    const data = mkdtempSync(join(tmpdir(), 'learnbase-banner-'));
    after(() => rmSync(data, { recursive: true, force: true }));
    const first = startCli(['serve', '--port', '0', '--data', data]);
    after(() => first.kill('SIGKILL'));
    await waitForOutput(first, /Created the "demo" tenant/);
    const firstExited = new Promise<number | null>((resolve) => first.on('close', resolve));
    first.kill('SIGTERM');
    assert.equal(await firstExited, 0);

    const second = startCli(['serve', '--port', '0', '--data', data]);
    after(() => second.kill('SIGKILL'));
    const banner = await waitForOutput(second, /apikey create[^\n]*\n/);
    assert.doesNotMatch(banner, /Created the/);
    assert.match(banner, /The "demo" tenant exists\. Its API key's secret was shown once, when it was created\./);
    assert.match(banner, /The console: http:\/\/\S+\/console\/\?tenant=demo \(its admins sign in there\)\./);
    const base = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
    const line = banner
      .split('\n')
      .find((text) => text.includes('apikey create'))!
      .trim();
    // The folder is not the default ./data: the line names it, so it can be pasted as it is.
    assert.equal(line, `./bin/learnbase apikey create --tenant demo --data ${data}`);

    // Run as printed (from source: ./bin/learnbase runs the build of the same code); the server holds the folder and makes the key.
    const created = await runCli(line.split(' ').slice(1));
    assert.equal(created.code, 0, created.stderr);
    const key = /^key: +(\S+)$/m.exec(created.stdout)![1]!;
    const secret = /^secret: +(\S+)$/m.exec(created.stdout)![1]!;
    const me = await fetch(`${base}/api/me`, {
      headers: { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`, 'x-svc-tenant': 'demo' },
    });
    assert.equal(me.status, 200, await me.text());

    const exited = new Promise<number | null>((resolve) => second.on('close', resolve));
    second.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});
