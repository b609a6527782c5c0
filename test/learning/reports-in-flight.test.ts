import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { C1, givenReportTenant, json, subtree } from './report-fixtures.js';

/**
 * Reports in flight (docs/operations.md): with one report at a time, many asked at once all get
 * their answer, the same one, in turn; none is refused while fewer than fifty wait.
 */
describeEachBackend(
  'reports in flight',
  (ctx) => {
    let tenant: GivenTenant;

    it('answers twenty reports asked at once, one at a time, each whole', async () => {
      tenant = await givenReportTenant(ctx);
      const paths = ['completion-by-unit', 'completion-by-job', 'completion-by-activity', 'assignment-compliance'];
      const asked = Array.from({ length: 20 }, (_, i) =>
        ctx.app.inject({ method: 'GET', url: `/api/reports/${paths[i % paths.length]}`, headers: tenant.headers }),
      );
      const answers = await Promise.all(asked);
      for (const [i, res] of answers.entries()) {
        const body = json(res);
        const alone = json(
          await ctx.app.inject({ method: 'GET', url: `/api/reports/${paths[i % paths.length]}`, headers: tenant.headers }),
        );
        assert.deepEqual(body, alone, paths[i % paths.length]);
      }
      // The unit reports list the fixture's whole structure.
      assert.equal(json(answers[0]).units.length, subtree('ROOT').size);
    });

    it('queues an assignment’s counts and people with the reports: past fifty waiting, refused with 503 and Retry-After', async () => {
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/api/assignments',
        headers: tenant.headers,
        payload: { name: 'Everyone', activityIds: [C1], people: { organisationId: 'ROOT' } },
      });
      const { id } = json(created, 201);
      const urls = [`/api/assignments/item?id=${id}`, `/api/assignments/people?id=${id}`];
      // One running and fifty waiting at most: of 60 asked at once, 9 are refused at once.
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) => ctx.app.inject({ method: 'GET', url: urls[i % 2], headers: tenant.headers })),
      );
      const refused = answers.filter((res) => res.statusCode === 503);
      assert.equal(refused.length, 9, answers.map((res) => res.statusCode).join(' '));
      for (const res of refused) {
        assert.equal(res.headers['retry-after'], '5');
        assert.equal(res.json().code, 'request.server_busy');
        assert.equal(res.json().details.limit, 'reports');
      }
      assert.equal(answers.filter((res) => res.statusCode === 200).length, 51);
      const alone = await Promise.all(urls.map((url) => ctx.app.inject({ method: 'GET', url, headers: tenant.headers })));
      for (const [i, res] of answers.entries()) if (res.statusCode === 200) assert.deepEqual(res.json(), json(alone[i % 2]), urls[i % 2]);
    });
  },
  { reportsInFlight: 1 },
);
