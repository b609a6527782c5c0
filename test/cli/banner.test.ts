import assert from 'node:assert/strict';
import { exec } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startCli, waitForOutput } from '../support/cli.js';

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
});
