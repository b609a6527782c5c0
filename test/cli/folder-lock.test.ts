import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCliProcess, startCli, waitForOutput } from '../support/cli.js';

// PGlite only: the lock is about one data folder on one machine; PostgreSQL takes many processes.

const RACERS = 5;
const ROUNDS = Number(process.env.FOLDER_LOCK_ROUNDS ?? 3);
/** Long enough for every racer to have loaded the code on a 2-core machine before the common instant. */
const LOAD_MS = 6_000;

/**
 * Starting processes at once is not enough to make them collide: loading the code takes a second or
 * two, give or take hundreds of milliseconds, while the old lock's window was microseconds wide. So
 * each racer is preloaded with a hook that holds it, right after PgliteDatabase.open has created the
 * folder (the last step before it locks it), until a wall-clock instant shared by all of them.
 * The hook knows only that `mkdirSync(folder)` precedes the lock, nothing about how the lock works.
 * It sleeps (Atomics.wait: the call it holds is synchronous) until 250 ms before the instant and
 * spins only for that last stretch: five racers spinning for the whole wait burnt seconds of CPU a
 * round, which the test file running beside this one on a 2-core machine waited for.
 */
const ALIGN = `
  import fs from 'node:fs';
  import { resolve } from 'node:path';
  import { syncBuiltinESMExports } from 'node:module';
  const mkdirSync = fs.mkdirSync;
  fs.mkdirSync = function (path, ...rest) {
    const made = mkdirSync.call(this, path, ...rest);
    if (resolve(String(path)) === process.env.LB_RACE_FOLDER) {
      const at = Number(process.env.LB_RACE_AT);
      const sleep = at - 250 - Date.now();
      if (sleep > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, sleep);
      while (Date.now() < at);
    }
    return made;
  };
  syncBuiltinESMExports();
`;

const folders: string[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

interface Racer {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Settles once the server prints its banner (`listening`) or exits (`exited`, with its code). */
  outcome: Promise<{ kind: 'listening'; base: string } | { kind: 'exited'; code: number | null }>;
}

function startServer(data: string, at: number): Racer {
  const child = startCli(['serve', '--port', '0', '--data', data], {
    NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(ALIGN)}`,
    LB_RACE_FOLDER: data,
    LB_RACE_AT: String(at),
  });
  children.push(child);
  const racer: Racer = { child, stdout: '', stderr: '', outcome: undefined as never };
  child.stderr?.on('data', (chunk) => (racer.stderr += chunk));
  racer.outcome = new Promise((resolve) => {
    child.stdout?.on('data', (chunk) => {
      racer.stdout += chunk;
      const base = /listening on (http:\/\/\S+)/.exec(racer.stdout)?.[1];
      if (base) resolve({ kind: 'listening', base });
    });
    child.on('close', (code) => resolve({ kind: 'exited', code }));
  });
  return racer;
}

async function storeStatement(base: string, headers: Record<string, string>): Promise<string> {
  const stored = await fetch(`${base}/xapi/statements`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      actor: { mbox: 'mailto:learner@example.com' },
      verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
      object: { id: 'https://example.com/courses/intro' },
    }),
  });
  assert.equal(stored.status, 200, await stored.clone().text());
  const [id] = (await stored.json()) as string[];
  return id;
}

async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.kill('SIGKILL');
  await closed;
}

describe('the PGlite folder lock [pglite]', () => {
  it('lets exactly one of several servers started at once after a kill -9 serve the folder, and keeps acknowledged writes', async () => {
    const data = mkdtempSync(join(tmpdir(), 'learnbase-lock-'));
    folders.push(data);

    const first = startCli(['serve', '--port', '0', '--data', data]);
    children.push(first);
    const banner = await waitForOutput(first, /read it back:\n *curl [^\n]+\n *curl [^\n]+\n/);
    const key = /key: +(\S+)/.exec(banner)?.[1];
    const secret = /secret: +(\S+)/.exec(banner)?.[1];
    const firstBase = /listening on (http:\/\/\S+)/.exec(banner)?.[1];
    assert.ok(key && secret && firstBase, banner);
    const headers = {
      authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
      'x-svc-tenant': 'demo',
      'x-experience-api-version': '1.0.3',
    };
    const acknowledged = [await storeStatement(firstBase, headers)];
    await killHard(first);

    for (let round = 1; round <= ROUNDS; round++) {
      const at = Date.now() + LOAD_MS;
      const racers = Array.from({ length: RACERS }, () => startServer(data, at));
      const outcomes = await Promise.all(racers.map((racer) => racer.outcome));
      const winners = racers.filter((_, i) => outcomes[i].kind === 'listening');
      const report = racers.map((r, i) => `#${i} pid ${r.child.pid}: ${JSON.stringify(outcomes[i])}\n${r.stderr}`).join('\n');
      assert.equal(winners.length, 1, `round ${round}: exactly one server serves the folder\n${report}`);
      const [winner] = winners;

      for (const [i, racer] of racers.entries()) {
        if (racer === winner) continue;
        assert.deepEqual(outcomes[i], { kind: 'exited', code: 1 }, `round ${round}: a loser exits with 1\n${report}`);
        assert.match(racer.stderr, /learnbase: The data folder .* is in use by another learnbase process/);
        assert.ok(racer.stderr.includes(data), 'the error names the folder');
        assert.match(racer.stderr, /use a PostgreSQL database \(--database URL\) to run several processes/);
        // When the owner's pid is known it is the winner's, never a dead predecessor's.
        const named = /\(pid (\d+)\)/.exec(racer.stderr)?.[1];
        if (named) assert.equal(Number(named), winner.child.pid, report);
      }

      const base = (outcomes[racers.indexOf(winner)] as { base: string }).base;
      for (const id of acknowledged) {
        const read = await fetch(`${base}/xapi/statements?statementId=${id}`, { headers });
        assert.equal(read.status, 200, `round ${round}: statement ${id}, acknowledged before a kill -9, is still there`);
        assert.equal(((await read.json()) as { id: string }).id, id);
      }
      acknowledged.push(await storeStatement(base, headers));

      if (round === 1) {
        // A command on the served folder is carried out by its server (docs/operations.md); a
        // backup, which needs the folder itself, stops and names the owner.
        const handedOver = await runCliProcess(['migrate', '--data', data]);
        assert.equal(handedOver.code, 0, handedOver.stderr);
        assert.match(handedOver.stdout, /up to date/);
        const refused = await runCliProcess(['backup', '--data', data, join(data, '..', `refused-${process.pid}.tar.gz`)]);
        assert.equal(refused.code, 1, 'a backup of the served folder stops');
        assert.match(refused.stderr, new RegExp(`in use by another learnbase process \\(pid ${winner.child.pid}\\)`));
      }

      // The next round races again on a folder whose owner was killed with no chance to clean up.
      await killHard(winner.child);
    }
  });
});
