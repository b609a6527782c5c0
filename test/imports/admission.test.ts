import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { heldBody } from '../support/held-body.js';

const JOBS = [{ id: 'J-1', name: 'Accountant', competencies: [{ Name: 'Ledgers' }] }];

function importJobs(ctx: TestContext, tenant: GivenTenant, payload: string | Readable, headers: Record<string, string> = {}) {
  return ctx.app.inject({
    method: 'PUT',
    url: '/api/import/jobs',
    headers: { ...tenant.headers, 'content-type': 'application/json', ...headers },
    payload,
  });
}

/** A JSON body over the uncounted size (1 MiB), so it is counted though sent with its length. */
const largeJobs = () => JSON.stringify([{ ...JOBS[0], attributes: { notes: 'x'.repeat(1024 * 1024 + 1) } }]);

describeEachBackend(
  'Admission of imports',
  (ctx) => {
    it('answers 429 with Retry-After to a tenant whose import is in flight, and admits it again once that one is answered', async () => {
      const tenant = await ctx.given.tenant();
      const held = heldBody(JSON.stringify(JOBS));
      const first = importJobs(ctx, tenant, held.body);
      await held.reading;

      const refused = await importJobs(ctx, tenant, largeJobs());
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['retry-after'], '10');
      assert.equal(refused.json().code, 'request.tenant_busy');
      assert.deepEqual(refused.json().details, { limit: 'imports', inFlight: 1, retryAfterSeconds: 10 });
      const users = await ctx.app.inject({
        method: 'POST',
        url: '/api/import/users',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        payload: { users: [{ name: 'x'.repeat(1024 * 1024 + 1), attributes: {} }] },
      });
      assert.equal(users.statusCode, 429, 'the users import shares the budget');
      const registry = await ctx.app.inject({
        method: 'PUT',
        url: '/api/activities',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        payload: [{ id: 'https://example.com/course', definition: { description: { 'en-US': 'x'.repeat(1024 * 1024 + 1) } } }],
      });
      assert.equal(registry.statusCode, 429, 'so does the activities registry, which takes bodies as large');

      held.finish();
      assert.equal((await first).statusCode, 204);
      assert.equal((await importJobs(ctx, tenant, largeJobs())).statusCode, 204);
    });

    it('answers 503 with Retry-After to another tenant while the process has its imports in flight', async () => {
      const busy = await ctx.given.tenant();
      const other = await ctx.given.tenant();
      const held = heldBody(JSON.stringify(JOBS));
      const first = importJobs(ctx, busy, held.body);
      await held.reading;

      const refused = await ctx.app.inject({
        method: 'PUT',
        url: '/api/import/organisation',
        headers: { ...other.headers, 'content-type': 'application/json' },
        payload: largeJobs().replace('"J-1"', '"P-1"'),
      });
      assert.equal(refused.statusCode, 503);
      assert.equal(refused.headers['retry-after'], '10');
      assert.equal(refused.json().code, 'request.server_busy');

      held.finish();
      assert.equal((await first).statusCode, 204);
    });

    it('does not count a body of 1 MiB or less: small imports are admitted whatever is in flight', async () => {
      const tenant = await ctx.given.tenant();
      const held = heldBody(JSON.stringify(JOBS));
      const first = importJobs(ctx, tenant, held.body);
      await held.reading;

      assert.equal((await importJobs(ctx, tenant, JSON.stringify(JOBS))).statusCode, 204);

      held.finish();
      assert.equal((await first).statusCode, 204);
    });

    it('gives the place back when a refused or failed import is answered', async () => {
      const tenant = await ctx.given.tenant();
      const bad = await importJobs(ctx, tenant, `${largeJobs().slice(0, -1)},`);
      assert.equal(bad.statusCode, 400);
      assert.equal((await importJobs(ctx, tenant, largeJobs())).statusCode, 204);
    });
  },
  { importsInFlight: 1, importsInFlightPerTenant: 1 },
);
