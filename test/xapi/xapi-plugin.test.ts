import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';

const STATE_LIST = `/xapi/activities/state?activityId=${encodeURIComponent('https://example.com/a')}&agent=${encodeURIComponent(
  JSON.stringify({ mbox: 'mailto:learner@example.com' }),
)}`;

describeEachBackend('the /xapi/ resources', (ctx) => {
  it('answers GET /xapi/about without a credential or a version header', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/xapi/about' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().version, ['1.0.3', '2.0.0']);
    assert.ok(res.headers['x-experience-api-version']);
  });

  it('answers 400 to a request without X-Experience-API-Version', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({ method: 'GET', url: STATE_LIST, headers: tenant.headers });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'xapi.version_missing');
    assert.equal(res.headers['x-experience-api-version'], '2.0.0');
  });

  it('answers 400 naming an unsupported version', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'GET',
      url: STATE_LIST,
      headers: { ...tenant.headers, 'x-experience-api-version': '0.95' },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'xapi.version_unsupported');
    assert.match(res.json().message, /0\.95/);
  });

  it('answers in the version the request speaks, errors included', async () => {
    const tenant = await ctx.given.tenant();
    for (const [sent, answered] of [
      ['1.0.3', '1.0.3'],
      ['1.0', '1.0.3'],
      ['2.0.0', '2.0.0'],
    ]) {
      const ok = await ctx.app.inject({ method: 'GET', url: STATE_LIST, headers: { ...tenant.headers, 'x-experience-api-version': sent } });
      assert.equal(ok.statusCode, 200, sent);
      assert.equal(ok.headers['x-experience-api-version'], answered);
      const refused = await ctx.app.inject({ method: 'GET', url: STATE_LIST, headers: { 'x-experience-api-version': sent } });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.headers['x-experience-api-version'], answered);
    }
  });

  it('answers a CORS preflight from another origin without a credential', async () => {
    const res = await ctx.app.inject({
      method: 'OPTIONS',
      url: STATE_LIST,
      headers: {
        origin: 'https://content.example.org',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'authorization,x-experience-api-version,if-match,content-type',
      },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
    for (const header of ['authorization', 'x-experience-api-version', 'if-match', 'if-none-match', 'content-type']) {
      assert.ok(allowed.includes(header), header);
    }
    assert.match(String(res.headers['access-control-allow-methods']), /PUT/);
  });

  it('exposes the ETag and xAPI headers to browser content', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'GET',
      url: STATE_LIST,
      headers: { ...tenant.xapi, origin: 'https://content.example.org' },
    });
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const exposed = String(res.headers['access-control-expose-headers']);
    for (const header of ['ETag', 'Last-Modified', 'X-Experience-API-Consistent-Through', 'X-Experience-API-Version']) {
      assert.ok(exposed.includes(header), header);
    }
  });

  it('lets browser content read a 404 under /xapi/, and answers no preflight for /api/', async () => {
    const missing = await ctx.app.inject({
      method: 'GET',
      url: '/xapi/nothing-here',
      headers: { origin: 'https://content.example.org', 'x-experience-api-version': '2.0.0' },
    });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.headers['access-control-allow-origin'], '*');
    const preflight = await ctx.app.inject({
      method: 'OPTIONS',
      url: '/api/me',
      headers: { origin: 'https://elsewhere.example.org', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.statusCode, 404);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  });

  it('gives /api/ no CORS headers', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/me',
      headers: { ...tenant.headers, origin: 'https://elsewhere.example.org' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });
});

describeEachBackend(
  'the /xapi/ resources pinned to 1.0.3 (LEARNBASE_XAPI_DEFAULT_VERSION)',
  (ctx) => {
    it('states 1.0.3 when the request names no version or one not spoken, and the version sent otherwise', async () => {
      const about = await ctx.app.inject({ method: 'GET', url: '/xapi/about' });
      assert.equal(about.statusCode, 200);
      assert.equal(about.headers['x-experience-api-version'], '1.0.3');
      const tenant = await ctx.given.tenant();
      const missing = await ctx.app.inject({ method: 'GET', url: STATE_LIST, headers: tenant.headers });
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.headers['x-experience-api-version'], '1.0.3');
      const unsupported = await ctx.app.inject({
        method: 'GET',
        url: STATE_LIST,
        headers: { ...tenant.headers, 'x-experience-api-version': '0.95' },
      });
      assert.equal(unsupported.headers['x-experience-api-version'], '1.0.3');
      const sent = await ctx.app.inject({
        method: 'GET',
        url: STATE_LIST,
        headers: { ...tenant.headers, 'x-experience-api-version': '2.0.0' },
      });
      assert.equal(sent.statusCode, 200, sent.body);
      assert.equal(sent.headers['x-experience-api-version'], '2.0.0');
    });
  },
  { xapiDefaultVersion: '1.0.3' },
);
