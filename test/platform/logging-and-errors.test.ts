import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { buildApp } from '../../src/server/app.js';
import type { SqlClient } from '../../src/platform/database/sql-client.js';
import { describeEachBackend, testConfig } from '../support/build-test-app.js';

class Lines extends Writable {
  readonly lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) this.lines.push(JSON.parse(line));
    done();
  }
}

describeEachBackend('logs and errors', (ctx) => {
  it('logs JSON lines carrying the request id, never the credential', async () => {
    const tenant = await ctx.given.tenant();
    const stream = new Lines();
    const app = await buildApp(testConfig({ logLevel: 'info' }), ctx.db, { logger: { stream } });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/me', headers: { ...tenant.headers, 'x-request-id': 'trace-42' } });
      assert.equal(res.statusCode, 200);
      const mine = stream.lines.filter((line) => line.reqId === 'trace-42');
      assert.ok(mine.length >= 2, 'request and response are logged with the request id');
      const text = JSON.stringify(stream.lines);
      assert.ok(!text.includes(tenant.secret), 'the secret is not logged');
      assert.ok(!text.includes(tenant.authorization.slice(6)), 'the Authorization header is not logged');
    } finally {
      await app.close();
    }
  });

  it('answers an unexpected failure with a 500 that hides the cause, and logs the cause', async () => {
    const broken: SqlClient = {
      query: async () => {
        throw new Error('connection to 10.0.0.7 refused: secret internals');
      },
      transaction: async () => {
        throw new Error('unused');
      },
      script: async () => {},
    };
    const stream = new Lines();
    const app = await buildApp(testConfig({ logLevel: 'error' }), broken, { logger: { stream } });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/me', headers: { 'x-svc-tenant': 'anyone', authorization: 'Basic eDp5' } });
      assert.equal(res.statusCode, 500);
      assert.equal(res.json().code, 'server.error');
      assert.ok(!res.body.includes('secret internals'));
      assert.ok(!res.body.includes('at '), 'no stack trace');
      assert.ok(JSON.stringify(stream.lines).includes('secret internals'), 'the cause is in the log');
    } finally {
      await app.close();
    }
  });

  it('answers a lost database connection with 503 and Retry-After, logged as a warning, not an error', async () => {
    const lost: SqlClient = {
      query: async () => {
        throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
      },
      transaction: async () => {
        throw new Error('unused');
      },
      script: async () => {},
    };
    const stream = new Lines();
    const app = await buildApp(testConfig({ logLevel: 'warn' }), lost, { logger: { stream } });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/me', headers: { 'x-svc-tenant': 'anyone', authorization: 'Basic eDp5' } });
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '1');
      assert.equal(res.json().code, 'database.unavailable');
      assert.ok(!res.body.includes('ECONNRESET'), 'the cause stays in the log');
      const failed = stream.lines.filter((line) => String(line.msg).startsWith('request failed'));
      assert.deepEqual(
        failed.map((line) => line.level),
        [40],
      );
      assert.equal(failed[0].code, 'database.unavailable');
    } finally {
      await app.close();
    }
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/nothing-here' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'route.not_found');
  });
});
