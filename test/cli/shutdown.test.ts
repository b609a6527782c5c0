import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, startCli, waitForOutput } from '../support/cli.js';

const folders: string[] = [];
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

const GRACE_MS = 2_000;
/** Generous: the grace period, then closing PGlite and exiting, on a loaded machine. */
const EXIT_BOUND_MS = GRACE_MS + 10_000;
const IDLE_CONNECTIONS = 200;

/** A connection and the moment (ms since `origin`) the server closed it. */
function open(port: number, origin: () => number): Promise<{ socket: Socket; received: () => string; closedAt: Promise<number> }> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => {});
  const closedAt = new Promise<number>((resolve) => socket.on('close', () => resolve(origin())));
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, received: () => received, closedAt }));
    socket.once('error', reject);
  });
}

describe('learnbase serve: shutdown [pglite]', () => {
  it('on SIGTERM closes idle connections at once, cuts a stuck upload after the grace period, exits 0 and frees the folder', async () => {
    const data = mkdtempSync(join(tmpdir(), 'learnbase-shutdown-'));
    folders.push(data);
    const server = startCli(['serve', '--port', '0', '--data', data], {
      LEARNBASE_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      // Long enough that only the drain, not the timeouts, can close these connections in time.
      LEARNBASE_KEEP_ALIVE_TIMEOUT_MS: '120000',
      LEARNBASE_HEADERS_TIMEOUT_MS: '120000',
      LEARNBASE_REQUEST_TIMEOUT_MS: '120000',
    });
    after(() => server.kill('SIGKILL'));
    let output = await waitForOutput(server, /read it back:\n *curl [^\n]+\n *curl [^\n]+\n/);
    server.stdout?.on('data', (chunk) => (output += chunk));
    const base = /listening on (http:\/\/[^\s]+)/.exec(output)?.[1];
    const key = /key: +(\S+)/.exec(output)?.[1];
    const secret = /secret: +(\S+)/.exec(output)?.[1];
    assert.ok(base && key && secret, output);
    const port = Number(new URL(base).port);
    let signalledAt = 0;
    const sinceSignal = () => Date.now() - signalledAt;

    // An upload whose body never finishes, sent first so it is in flight well before the signal.
    const stuck = await open(port, sinceSignal);
    const query = `activityId=${encodeURIComponent('https://example.com/a')}&agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:stuck@example.com' }))}&stateId=stuck`;
    stuck.socket.write(
      `PUT /xapi/activities/state?${query} HTTP/1.1\r\nHost: localhost\r\nX-SVC-Tenant: demo\r\nX-Experience-API-Version: 2.0.0\r\n` +
        `Authorization: Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"page":',
    );
    const idle = await Promise.all(Array.from({ length: IDLE_CONNECTIONS }, () => open(port, sinceSignal)));
    for (const connection of idle) connection.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const answeredBy = Date.now() + 30_000;
    for (const connection of idle) {
      while (!connection.received().includes('{"status":"ok"}')) {
        assert.ok(Date.now() < answeredBy, `no answer on an idle connection: ${connection.received()}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    // A connection that never sends a request: it must not hold the process either.
    await open(port, sinceSignal);
    // By now the upload's headers have long reached the server: it is a request in flight.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
    signalledAt = Date.now();
    server.kill('SIGTERM');
    let bound: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'hung'>((resolve) => (bound = setTimeout(() => resolve('hung'), EXIT_BOUND_MS)))]);
    clearTimeout(bound);
    assert.equal(code, 0, `exit code (or still running ${EXIT_BOUND_MS} ms after SIGTERM); output:\n${output}`);

    const idleClosedAt = Math.max(...(await Promise.all(idle.map((connection) => connection.closedAt))));
    const stuckClosedAt = await stuck.closedAt;
    assert.ok(
      idleClosedAt < stuckClosedAt,
      `the idle connections (closed by ${idleClosedAt} ms) go before the grace period ends (${stuckClosedAt} ms)`,
    );
    // At the end of the grace period only the stuck upload and the connection that never sent a request were left.
    const cutOff = output.split('\n').find((line) => line.includes('grace period over: closing the connections still open'));
    assert.ok(cutOff, `the cut-off is logged; output:\n${output}`);
    assert.match(cutOff, /"connections":2,/);
    assert.match(cutOff, /"requests":\["PUT \/xapi\/activities\/state\?activityId=/);
    assert.equal(stuck.received(), '', 'the stuck upload is cut, not answered');

    assert.ok(!existsSync(join(data, 'learnbase.lock')), 'the folder lock is released');
    const migrate = await runCli(['migrate', '--data', data]);
    assert.equal(migrate.code, 0, migrate.stderr);
  });
});
