import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { serve } from '../../src/server/main.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { describeEachBackend, testConfig } from '../support/build-test-app.js';

/**
 * Bounds are generous on purpose: the server's timeouts are well under a second, and a test only
 * asserts that a connection was closed before several seconds, so a loaded machine does not fail it.
 */
const CUT_OFF_BOUND_MS = 6_000;

/** A raw client socket that records what the server sent and when it closed the connection. */
class RawConnection {
  readonly socket: Socket;
  received = '';
  private readonly opened = Date.now();
  /** Resolves with the ms from connecting to the close, or `undefined` if still open after the bound. */
  readonly closed: Promise<number | undefined>;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) => {
      const bound = setTimeout(() => {
        this.socket.destroy();
        resolve(undefined);
      }, CUT_OFF_BOUND_MS);
      this.socket.on('close', () => {
        clearTimeout(bound);
        resolve(Date.now() - this.opened);
      });
    });
  }

  get isOpen(): boolean {
    return !this.socket.destroyed;
  }

  async connected(): Promise<this> {
    if (!this.socket.connecting) return this;
    await new Promise((resolve, reject) => this.socket.once('connect', resolve).once('error', reject));
    return this;
  }

  write(text: string): void {
    if (this.isOpen) this.socket.write(text);
  }

  /** Writes `pieces` one every `everyMs` until they run out or the server closes the connection. */
  trickle(pieces: string[], everyMs: number): void {
    const timer = setInterval(() => {
      const piece = pieces.shift();
      if (piece === undefined || !this.isOpen) clearInterval(timer);
      else this.write(piece);
    }, everyMs);
    this.socket.once('close', () => clearInterval(timer));
  }

  /** Resolves once the received bytes match `pattern` (rejects after the bound). */
  async until(pattern: RegExp): Promise<string> {
    const deadline = Date.now() + CUT_OFF_BOUND_MS;
    while (!pattern.test(this.received)) {
      if (Date.now() > deadline || !this.isOpen) {
        throw new Error(`expected ${pattern}, received: ${JSON.stringify(this.received)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.received;
  }
}

const portOf = async (url: Promise<string>) => Number(new URL(await url).port);
const statusLines = (text: string): string[] => [...text.matchAll(/HTTP\/1\.1 \d{3}/g)].map((match) => match[0]);

describeEachBackend(
  'slow and idle clients are cut off',
  (ctx) => {
    it('answers 408 and closes a connection that never sends a request', async () => {
      const client = await new RawConnection(await portOf(ctx.url())).connected();
      const closedAfter = await client.closed;
      assert.ok(closedAfter !== undefined, `still open after ${CUT_OFF_BOUND_MS} ms`);
      assert.match(client.received, /^HTTP\/1\.1 408 /);
    });

    it('answers 408 and closes a connection whose headers arrive one line every 100 ms', async () => {
      const client = await new RawConnection(await portOf(ctx.url())).connected();
      client.write('GET /health HTTP/1.1\r\nHost: localhost\r\n');
      client.trickle(
        Array.from({ length: 200 }, (_, i) => `X-Slow-${i}: 1\r\n`),
        100,
      );
      const closedAfter = await client.closed;
      assert.ok(closedAfter !== undefined, `still open after ${CUT_OFF_BOUND_MS} ms`);
      assert.deepEqual(statusLines(client.received), ['HTTP/1.1 408']);
    });

    it('answers 408 and closes a connection whose body trickles in a byte every 100 ms, and stores nothing', async () => {
      const tenant = await ctx.given.tenant();
      const query = `activityId=${encodeURIComponent('https://example.com/a')}&agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:slow@example.com' }))}&stateId=slow`;
      const body = JSON.stringify({ padding: 'x'.repeat(200) });
      const client = await new RawConnection(await portOf(ctx.url())).connected();
      client.write(
        `PUT /xapi/activities/state?${query} HTTP/1.1\r\nHost: localhost\r\n` +
          Object.entries(tenant.xapi)
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join('') +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      client.trickle([...body], 100);
      const closedAfter = await client.closed;
      assert.ok(closedAfter !== undefined, `still open after ${CUT_OFF_BOUND_MS} ms`);
      assert.deepEqual(statusLines(client.received), ['HTTP/1.1 408']);

      const stored = await ctx.app.inject({ method: 'GET', url: `/xapi/activities/state?${query}`, headers: tenant.xapi });
      assert.equal(stored.statusCode, 404);
    });

    it('stores a body sent in pieces within the request timeout (204)', async () => {
      const tenant = await ctx.given.tenant();
      const query = `activityId=${encodeURIComponent('https://example.com/a')}&agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:quick@example.com' }))}&stateId=quick`;
      const body = JSON.stringify({ page: 3 });
      const client = await new RawConnection(await portOf(ctx.url())).connected();
      client.write(
        `PUT /xapi/activities/state?${query} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n` +
          Object.entries(tenant.xapi)
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join('') +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      client.trickle([body.slice(0, 4), body.slice(4, 8), body.slice(8)], 50);
      await client.closed;
      assert.deepEqual(statusLines(client.received), ['HTTP/1.1 204']);

      const stored = await ctx.app.inject({ method: 'GET', url: `/xapi/activities/state?${query}`, headers: tenant.xapi });
      assert.equal(stored.statusCode, 200);
      assert.deepEqual(stored.json(), { page: 3 });
    });

    it('closes a keep-alive connection left idle after its response', async () => {
      const client = await new RawConnection(await portOf(ctx.url())).connected();
      client.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await client.until(/\{"status":"ok"\}/);
      assert.match(client.received, /^HTTP\/1\.1 200 [\s\S]*Connection: keep-alive/i);
      const closedAfter = await client.closed;
      assert.ok(closedAfter !== undefined, `still open after ${CUT_OFF_BOUND_MS} ms`);
      assert.deepEqual(statusLines(client.received), ['HTTP/1.1 200'], 'nothing but the one response');
    });
  },
  { headersTimeoutMs: 300, requestTimeoutMs: 1_000, keepAliveTimeoutMs: 300 },
);

describe('the connection cap (learnbase serve) [pglite]', () => {
  const MAX = 3;
  let app: FastifyInstance;
  let db: Database;
  let port: number;

  before(async () => {
    // serve() installs its SIGTERM/SIGINT handlers on this process: take them off again afterwards.
    const signals = ['SIGTERM', 'SIGINT'] as const;
    const existing = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
    ({ app, db } = await serve(testConfig({ maxConnections: MAX, keepAliveTimeoutMs: 60_000 })));
    for (const signal of signals) {
      for (const listener of process.listeners(signal)) if (!existing.get(signal)?.has(listener)) process.off(signal, listener);
    }
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    await app?.close();
    await db?.close();
  });

  it('closes connections past the cap without an answer and keeps serving the open ones', async () => {
    const held: RawConnection[] = [];
    for (let i = 0; i < MAX; i += 1) {
      const client = await new RawConnection(port).connected();
      client.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await client.until(/\{"status":"ok"\}/);
      held.push(client);
    }

    // The kernel completes the handshake; Node then closes the connection without reading it.
    const refused = new RawConnection(port);
    refused.socket.once('connect', () => refused.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    assert.ok((await refused.closed) !== undefined, 'the connection past the cap is closed');
    assert.equal(refused.received, '', 'and gets no answer');

    held[0].write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    held[1].write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    assert.equal(statusLines(await held[0].until(/(\{"status":"ok"\}[\s\S]*){2}/)).length, 2);
    assert.equal(statusLines(await held[1].until(/(\{"status":"ok"\}[\s\S]*){2}/)).length, 2);
    assert.ok(
      held.every((client) => client.isOpen),
      'the connections under the cap stay open',
    );

    // Once one is closed, a new connection is served again (the server counts the close shortly after).
    held[2].socket.end();
    await held[2].closed;
    let served = false;
    for (let attempt = 0; attempt < 50 && !served; attempt += 1) {
      const client = new RawConnection(port);
      client.socket.once('connect', () => client.write('GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'));
      await client.closed;
      served = statusLines(client.received).includes('HTTP/1.1 200');
      if (!served) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(served, 'a connection under the cap is served again');
    for (const client of held) client.socket.destroy();
  });
});
