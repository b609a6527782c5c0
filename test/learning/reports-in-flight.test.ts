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

    it('queues what counts from the records: past fifty waiting, refused with 503 and Retry-After; an assignment’s counts and people, read from the kept progress, at once', async () => {
      // A tag or an activity: counted from the records, one running and fifty waiting at most:
      // of 60 asked at once, 9 are refused at once.
      const recounts = [
        '/api/reports/completion-by-unit?tag=mandatory',
        `/api/reports/completion-by-job?activityId=${encodeURIComponent(C1)}`,
      ];
      const askSixty = (urls: string[]) =>
        Promise.all(Array.from({ length: 60 }, (_, i) => ctx.app.inject({ method: 'GET', url: urls[i % 2], headers: tenant.headers })));
      const answers = await askSixty(recounts);
      const refused = answers.filter((res) => res.statusCode === 503);
      assert.equal(refused.length, 9, answers.map((res) => res.statusCode).join(' '));
      for (const res of refused) {
        assert.equal(res.headers['retry-after'], '5');
        assert.equal(res.json().code, 'request.server_busy');
        assert.equal(res.json().details.limit, 'reports');
      }
      assert.equal(answers.filter((res) => res.statusCode === 200).length, 51);
      const aloneRecounted = await Promise.all(recounts.map((url) => ctx.app.inject({ method: 'GET', url, headers: tenant.headers })));
      for (const [i, res] of answers.entries()) {
        if (res.statusCode === 200) assert.deepEqual(res.json(), json(aloneRecounted[i % 2]), recounts[i % 2]);
      }

      const created = await ctx.app.inject({
        method: 'POST',
        url: '/api/assignments',
        headers: tenant.headers,
        payload: { name: 'Everyone', activityIds: [C1], people: { organisationId: 'ROOT' } },
      });
      const { id } = json(created, 201);
      const urls = [`/api/assignments/item?id=${id}`, `/api/assignments/people?id=${id}`];
      const alone = await Promise.all(urls.map((url) => ctx.app.inject({ method: 'GET', url, headers: tenant.headers })));
      const kept = await askSixty(urls);
      assert.deepEqual(
        kept.map((res) => res.statusCode),
        kept.map(() => 200),
      );
      for (const [i, res] of kept.entries()) assert.deepEqual(res.json(), json(alone[i % 2]), urls[i % 2]);
    });
  },
  { reportsInFlight: 1 },
);
