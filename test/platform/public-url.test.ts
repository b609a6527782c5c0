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
  },
  { publicUrl: PUBLIC_URL },
);

describeEachBackend('without LEARNBASE_PUBLIC_URL', (ctx) => {
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
