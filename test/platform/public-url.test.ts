import assert from 'node:assert/strict';
import { it } from 'node:test';
import { givenLaunch } from '../launch/launch-fixtures.js';
import { describeEachBackend } from '../support/build-test-app.js';

const PUBLIC_URL = 'https://lrs.example.com/learning';

const statement = {
  actor: { mbox: 'mailto:ada@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
  object: { id: 'http://example.com/a' },
};

describeEachBackend(
  'LEARNBASE_PUBLIC_URL',
  (ctx) => {
    it('gives one authority to an API key reached through two host names', async () => {
      const tenant = await ctx.given.tenant();
      const authorities = [];
      for (const host of ['localhost', `${tenant.name}.localhost`]) {
        const stored = await ctx.app.inject({
          method: 'POST',
          url: '/xapi/statements',
          headers: { ...tenant.xapi, host },
          payload: statement,
        });
        assert.equal(stored.statusCode, 200, stored.body);
        const [id] = stored.json() as string[];
        const read = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${id}`, headers: { ...tenant.xapi, host } });
        authorities.push(read.json().authority);
      }
      assert.deepEqual(authorities, [
        { objectType: 'Agent', account: { homePage: PUBLIC_URL, name: tenant.key } },
        { objectType: 'Agent', account: { homePage: PUBLIC_URL, name: tenant.key } },
      ]);
    });

    it('is the OAuth metadata’s issuer and the xAPI endpoint handed to launched content', async () => {
      const metadata = await ctx.app.inject({
        method: 'GET',
        url: '/.well-known/oauth-authorization-server',
        headers: { host: 'internal:8080' },
      });
      assert.equal(metadata.json().issuer, PUBLIC_URL);
      assert.equal(metadata.json().token_endpoint, `${PUBLIC_URL}/auth/oauth/token`);
      const launch = await givenLaunch(ctx, 'http://127.0.0.1:9');
      const res = await ctx.app.inject({
        method: 'GET',
        url: launch.launchPath,
        headers: { 'x-svc-tenant': launch.tenant.name, host: 'internal:8080' },
      });
      assert.equal(res.statusCode, 302, res.body);
      assert.equal(new URL(String(res.headers.location)).searchParams.get('endpoint'), `${PUBLIC_URL}/xapi/`);
    });

    it('hands content launched on the tenant’s sub-domain the endpoint at the configured address, where its launch token works', async () => {
      // The newcomer's launch: the link on demo.localhost, whose name a browser resolves and Node does not.
      const launch = await givenLaunch(ctx, 'http://127.0.0.1:9');
      const res = await ctx.app.inject({
        method: 'GET',
        url: launch.launchPath,
        headers: { host: `${launch.tenant.name}.localhost:8080` },
      });
      assert.equal(res.statusCode, 302, res.body);
      const location = new URL(String(res.headers.location));
      const endpoint = new URL(location.searchParams.get('endpoint') ?? '');
      assert.equal(endpoint.href, `${PUBLIC_URL}/xapi/`, 'not the sub-domain');
      // The content writes its state at that address (a proxy in front strips the path): the
      // bare host names no tenant, the launch token does.
      const state = await ctx.app.inject({
        method: 'PUT',
        url: `/xapi/activities/state?${new URLSearchParams({
          activityId: launch.activityId,
          agent: location.searchParams.get('actor') ?? '',
          registration: location.searchParams.get('registration') ?? '',
          stateId: 'bookmark',
        })}`,
        headers: {
          host: endpoint.host,
          authorization: location.searchParams.get('auth') ?? '',
          'x-experience-api-version': '1.0.3',
          'content-type': 'application/json',
        },
        payload: { page: 3 },
      });
      assert.equal(state.statusCode, 204, state.body);
      const read = await ctx.app.inject({
        method: 'GET',
        url: `/xapi/activities/state?${new URLSearchParams({
          activityId: launch.activityId,
          agent: location.searchParams.get('actor') ?? '',
          registration: location.searchParams.get('registration') ?? '',
          stateId: 'bookmark',
        })}`,
        headers: { ...launch.tenant.xapi },
      });
      assert.deepEqual(read.json(), { page: 3 }, 'stored in the tenant the link named');
    });
  },
  { publicUrl: PUBLIC_URL },
);

describeEachBackend('without LEARNBASE_PUBLIC_URL', (ctx) => {
  it('hands content launched on the tenant’s sub-domain the endpoint on that sub-domain, the launch request’s own address', async () => {
    const launch = await givenLaunch(ctx, 'http://127.0.0.1:9');
    const host = `${launch.tenant.name}.localhost:8080`;
    const res = await ctx.app.inject({ method: 'GET', url: launch.launchPath, headers: { host } });
    assert.equal(res.statusCode, 302, res.body);
    assert.equal(new URL(String(res.headers.location)).searchParams.get('endpoint'), `http://${host}/xapi/`);
  });

  it('builds the authority from the request’s own scheme and host', async () => {
    const tenant = await ctx.given.tenant();
    const stored = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: { ...tenant.xapi, host: 'lrs.internal:8080' },
      payload: statement,
    });
    const [id] = stored.json() as string[];
    const read = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${id}`, headers: tenant.xapi });
    assert.equal(read.json().authority.account.homePage, 'http://lrs.internal:8080');
  });
});
