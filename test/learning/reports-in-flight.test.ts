import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { givenReportTenant, json, subtree } from './report-fixtures.js';

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
  },
  { reportsInFlight: 1 },
);
