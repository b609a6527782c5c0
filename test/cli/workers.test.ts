import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { parseWorkers, WorkersRefused } from '../../src/server/workers.js';
import { POSTGRES_AVAILABLE, createPostgresDatabase } from '../support/backends.js';
import { runCliProcess, startCli, waitForOutput } from '../support/cli.js';

const execFileAsync = promisify(execFile);

/** parse-prometheus-text-format (no types of its own): throws on a line that is not the text format. */
const parsePrometheus = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => Array<{ name: string; metrics: Array<{ labels?: Record<string, string> }> }>;

/** The `worker` labels of one scrape of /metrics's pool gauge: every worker reports one. */
async function workersInMetrics(base: string): Promise<string[]> {
  const res = await fetch(`${base}/metrics`);
  assert.equal(res.status, 200);
  const family = parsePrometheus(await res.text()).find((item) => item.name === 'learnbase_db_connections_open');
  return (family?.metrics ?? []).map((sample) => sample.labels?.worker ?? '').sort();
}

/** The pids of a process's children (ps, Linux). */
async function childrenOf(pid: number): Promise<number[]> {
  const { stdout } = await execFileAsync('ps', ['-o', 'pid=', '--ppid', String(pid)]).catch(() => ({ stdout: '' }));
  return stdout
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((value) => value > 0);
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('serve --workers', () => {
  it('reads a whole number from 1 to 64, or auto (one per core); blank is 1', () => {
    assert.equal(parseWorkers(undefined), 1);
    assert.equal(parseWorkers(' '), 1);
    assert.equal(parseWorkers('2'), 2);
    assert.equal(parseWorkers('auto'), Math.min(availableParallelism(), 64));
    for (const bad of ['0', '65', '-1', '1.5', 'two', '2x']) assert.throws(() => parseWorkers(bad), WorkersRefused, bad);
  });

  it('is refused on PGlite, and with a bad count, with a message and exit code 2', async () => {
    const data = mkdtempSync(join(tmpdir(), 'learnbase-workers-'));
    after(() => rmSync(data, { recursive: true, force: true }));
    const pglite = await runCliProcess(['serve', '--workers', '2', '--port', '0', '--data', data]);
    assert.equal(pglite.code, 2);
    assert.match(pglite.stderr, /--workers 2 needs PostgreSQL/);
    const fromEnv = await runCliProcess(['serve', '--port', '0', '--data', data], { LEARNBASE_WORKERS: 'many' });
    assert.equal(fromEnv.code, 2);
    assert.match(fromEnv.stderr, /--workers must be a whole number from 1 to 64, or auto/);
  });

  it('stops with exit code 1 when the workers cannot listen (the port taken), leaving no process behind', {
    skip: !POSTGRES_AVAILABLE,
  }, async () => {
    const database = await createPostgresDatabase();
    after(() => database.drop());
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    after(() => taken.close());
    const port = String((taken.address() as AddressInfo).port);
    const server = startCli(['serve', '--workers', '2', '--port', port, '--host', '127.0.0.1', '--database', database.url]);
    after(() => server.kill('SIGKILL'));
    let stderr = '';
    server.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const workers = new Set<number>();
    const watch = setInterval(() => void childrenOf(server.pid as number).then((pids) => pids.forEach((pid) => workers.add(pid))), 50);
    const code = await new Promise<number | null | 'still running'>((resolve) => {
      const timer = setTimeout(() => resolve('still running'), 30_000);
      server.on('close', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    clearInterval(watch);
    assert.equal(code, 1, stderr);
    assert.match(stderr, /EADDRINUSE/);
    assert.match(stderr, /a worker exited before it listened/);
    for (const pid of workers) assert.throws(() => process.kill(pid, 0), `worker ${pid} is left running`);
  });

  it('runs N processes on one port against PostgreSQL, replaces one that dies, and drains them all on SIGTERM', {
    skip: !POSTGRES_AVAILABLE,
  }, async () => {
    const database = await createPostgresDatabase();
    after(() => database.drop());
    const server = startCli(['serve', '--workers', '2', '--port', '0', '--database', database.url]);
    after(() => server.kill('SIGKILL'));
    const banner = await waitForOutput(server, /read it back:\n *curl [^\n]+\n *curl [^\n]+\n/);
    assert.match(banner, /\(PostgreSQL, 2 worker processes\)/);
    assert.equal(banner.match(/The secret is shown only this once/g)?.length, 1, 'the primary seeds and prints once');
    const base = /listening on (http:\/\/[^\s]+)/.exec(banner)?.[1] as string;
    const authorization = `Basic ${Buffer.from(`${/key: +(\S+)/.exec(banner)?.[1]}:${/secret: +(\S+)/.exec(banner)?.[1]}`).toString('base64')}`;
    const me = () => fetch(`${base}/api/me`, { headers: { authorization, 'x-svc-tenant': 'demo' } }).then((res) => res.status);

    const workers = await eventually('two workers', async () => {
      const pids = await childrenOf(server.pid as number);
      return pids.length === 2 ? pids : undefined;
    });
    for (let i = 0; i < 20; i++) assert.equal(await me(), 200);
    // Whichever worker answers a scrape, it shows every worker's series.
    const before = await workersInMetrics(base);
    assert.equal(before.length, 2, `two workers' series in ${before}`);
    assert.deepEqual(await workersInMetrics(base), before);

    process.kill(workers[0], 'SIGKILL');
    const replaced = await eventually('a replacement worker', async () => {
      const pids = await childrenOf(server.pid as number);
      return pids.length === 2 && !pids.includes(workers[0]) ? pids : undefined;
    });
    assert.ok(replaced.includes(workers[1]), 'the other worker kept running');
    await eventually('the replacement to answer', async () => ((await me().catch(() => 0)) === 200 ? true : undefined));
    for (let i = 0; i < 20; i++) assert.equal(await me(), 200);
    // A worker still starting is not asked; once the replacement listens, it reports under its own id.
    const afterReplacement = await eventually('the replacement in /metrics', async () => {
      const reported = await workersInMetrics(base);
      return reported.length === 2 ? reported : undefined;
    });
    assert.notDeepEqual(afterReplacement, before, 'the dead worker no longer reports; the replacement has a new id');

    const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
    server.kill('SIGTERM');
    assert.equal(await exited, 0);
    for (const pid of replaced) assert.throws(() => process.kill(pid, 0), 'no worker is left running');
  });
});
