import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

const AGENT = JSON.stringify({ mbox: 'mailto:learner@example.com' });

/** The three document resources of interface 4.3-4.5, their parameters and which are required. */
const RESOURCES = [
  { section: '4.3', name: 'state', path: '/xapi/activities/state', required: ['activityId', 'agent', 'stateId'] },
  { section: '4.4', name: 'activity profile', path: '/xapi/activities/profile', required: ['activityId', 'profileId'] },
  { section: '4.5', name: 'agent profile', path: '/xapi/agents/profile', required: ['agent', 'profileId'] },
];

const sampleValue = (parameter: string) =>
  parameter === 'agent' ? AGENT : parameter === 'activityId' ? `https://example.com/courses/${randomUUID()}` : randomUUID();
const query = (parameters: string[]) => new URLSearchParams(Object.fromEntries(parameters.map((name) => [name, sampleValue(name)])));

/** The interface's section-7 validation error: one element per missing parameter. */
const validationError = (missing: string[], value: Record<string, unknown>) => ({
  code: 400,
  name: 'Bad Request',
  body: missing.map((parameter) => ({
    name: 'ValidationError',
    description: `'query' must contain property '${parameter}'`,
    property: 'query',
    value,
  })),
});

/** The tenant's xAPI headers with the version header as given (left out when undefined). */
const withVersion = (tenant: GivenTenant, version?: string): Record<string, string> => {
  const { 'x-experience-api-version': _default, ...rest } = tenant.xapi as Record<string, string>;
  return version === undefined ? rest : { ...rest, 'x-experience-api-version': version };
};

const update = (ctx: TestContext, tenant: GivenTenant, method: 'PUT' | 'POST', url: string, version?: string) =>
  ctx.app.inject({
    method,
    url,
    headers: { ...withVersion(tenant, version), 'content-type': 'application/json' },
    payload: JSON.stringify({ page: 1 }),
  });

describeEachBackend('the document resources check their parameters before the version header', (ctx) => {
  for (const resource of RESOURCES) {
    it(`interface ${resource.section} and 7: an Update of the ${resource.name} missing parameters answers the validation error, with no version header or an unsupported one`, async () => {
      const tenant = await ctx.given.tenant();
      for (const method of ['PUT', 'POST'] as const) {
        for (const version of [undefined, '0.95']) {
          // Every required parameter missing, then each one alone.
          const cases = [[], ...resource.required.map((kept) => resource.required.filter((name) => name !== kept))];
          for (const sent of cases) {
            const params = query(sent);
            const res = await update(ctx, tenant, method, `${resource.path}?${params}`, version);
            const missing = resource.required.filter((name) => !sent.includes(name));
            assert.equal(res.statusCode, 400, `${method} ${version} ${sent}: ${res.body}`);
            assert.deepEqual(res.json(), validationError(missing, { ...Object.fromEntries(params), document: { page: 1 } }));
          }
        }
      }
    });

    it(`interface ${resource.section}: with every parameter there, the version header is still required (400 naming it), nothing stored`, async () => {
      const tenant = await ctx.given.tenant();
      const params = query(resource.required);
      const missing = await update(ctx, tenant, 'PUT', `${resource.path}?${params}`);
      assert.equal(missing.statusCode, 400, missing.body);
      assert.equal(missing.json().code, 'xapi.version_missing');
      const unsupported = await update(ctx, tenant, 'POST', `${resource.path}?${params}`, '0.95');
      assert.equal(unsupported.statusCode, 400, unsupported.body);
      assert.equal(unsupported.json().code, 'xapi.version_unsupported');
      const read = await ctx.app.inject({ method: 'GET', url: `${resource.path}?${params}`, headers: tenant.xapi });
      assert.equal(read.statusCode, 404, read.body);
      // A GET and a DELETE missing parameters answer the same shape first.
      for (const method of ['GET', 'DELETE'] as const) {
        const res = await ctx.app.inject({ method, url: resource.path, headers: withVersion(tenant) });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().name, 'Bad Request', res.body);
      }
      // Without a credential it is still 401 first.
      const anonymous = await ctx.app.inject({ method: 'PUT', url: resource.path, headers: { 'x-svc-tenant': tenant.name } });
      assert.equal(anonymous.statusCode, 401, anonymous.body);
    });
  }
});

describeEachBackend(
  'LEARNBASE_XAPI_VERSION_HEADER=optional: a request without the header is served at the default version',
  (ctx) => {
    for (const resource of RESOURCES) {
      it(`interface ${resource.section}: the ${resource.name} is stored, read and deleted without X-Experience-API-Version`, async () => {
        const tenant = await ctx.given.tenant();
        const headers = withVersion(tenant);
        const url = `${resource.path}?${query(resource.required)}`;
        const stored = await ctx.app.inject({
          method: 'PUT',
          url,
          headers: { ...headers, 'content-type': 'application/json' },
          payload: JSON.stringify({ page: 1 }),
        });
        assert.equal(stored.statusCode, 204, stored.body);
        assert.equal(stored.headers['x-experience-api-version'], '2.0.0');
        const read = await ctx.app.inject({ method: 'GET', url, headers });
        assert.equal(read.statusCode, 200, read.body);
        assert.deepEqual(read.json(), { page: 1 });
        // A version named and not spoken is still refused: the setting covers only its absence.
        const unsupported = await ctx.app.inject({ method: 'GET', url, headers: { ...headers, 'x-experience-api-version': '0.95' } });
        assert.equal(unsupported.statusCode, 400, unsupported.body);
        assert.equal(unsupported.json().code, 'xapi.version_unsupported');
        assert.equal((await ctx.app.inject({ method: 'DELETE', url, headers })).statusCode, 204);
      });
    }

    it('statements too: stored and read at the default version without the header', async () => {
      const tenant = await ctx.given.tenant();
      const headers = withVersion(tenant);
      const sent = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers,
        payload: {
          actor: { mbox: 'mailto:learner@example.com' },
          verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
          object: { id: 'https://example.com/a' },
        },
      });
      assert.equal(sent.statusCode, 200, sent.body);
      const [id] = sent.json() as string[];
      const read = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${id}`, headers });
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(read.json().version, '2.0.0');
    });
  },
  { xapiVersionHeader: 'optional' },
);
