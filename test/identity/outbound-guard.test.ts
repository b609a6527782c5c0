import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, it } from 'node:test';
import { buildApp } from '../../src/server/app.js';
import { describeEachBackend, testConfig, type TestContext } from '../support/build-test-app.js';
import { exchange, givenOAuth } from '../auth/oauth-token-fixtures.js';
import { startOidcProvider, type OidcFixture } from './oidc-fixtures.js';
import { type SamlIdpFixture, startSamlIdp } from './saml-fixtures.js';
import { givenLaunchTenant } from './sign-on-fixtures.js';

/**
 * The outbound guard as the attack used it (docs/operations.md, "Requests the server makes"): a
 * tenant admin names the server's loopback (a closed port, one answering 404, one answering what is
 * not XML), the cloud metadata address, an IPv4-mapped loopback, a name resolving to loopback and a
 * private address as a SAML metadata URL or an OpenID Connect issuer, to tell them apart by the
 * answers. With the loopback allowance off, as in any deployment, each is refused before any
 * connection, in the same words; and a redirect is never followed, even where loopback is allowed.
 */

type Json = Record<string, unknown>;

/** The app's log as JSON lines. */
class Lines extends Writable {
  readonly lines: Json[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) this.lines.push(JSON.parse(line));
    done();
  }
}

/** A loopback server that counts what it is asked and answers `answer`. */
interface Listener {
  port: number;
  requests: () => number;
  close: () => Promise<void>;
}

async function listen(answer: (url: string, reply: import('node:http').ServerResponse) => void): Promise<Listener> {
  let requests = 0;
  const server: Server = createServer((request, reply) => {
    requests++;
    answer(request.url ?? '/', reply);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on: one the system just gave and took back. */
async function closedPort(): Promise<number> {
  const probe = await listen(() => {});
  await probe.close();
  return probe.port;
}

async function adminOf(ctx: TestContext): Promise<Record<string, string>> {
  const oauth = await givenOAuth(ctx);
  const { access_token: token } = await exchange(ctx.app, oauth);
  return { authorization: `Bearer ${token}`, 'x-svc-tenant': oauth.tenant.name };
}

describeEachBackend(
  'The outbound guard: loopback, private and metadata targets refused alike',
  (ctx) => {
    let notFound: Listener;
    let notXml: Listener;
    let closed: number;
    let provider: OidcFixture;
    let idp: SamlIdpFixture;

    before(async () => {
      notFound = await listen((_url, reply) => reply.writeHead(404).end('no such page'));
      notXml = await listen((_url, reply) => reply.writeHead(200, { 'content-type': 'text/plain' }).end('hello, not XML'));
      closed = await closedPort();
      provider = await startOidcProvider(['http://localhost/auth/sso/callback'], new Map());
      idp = await startSamlIdp(new Map());
    });
    after(async () => {
      await Promise.all([notFound.close(), notXml.close(), provider.close(), idp.close()]);
    });

    /** Every target of the attack: what answers there differs, what the admin is told must not. */
    const targets = () => [
      `https://127.0.0.1:${closed}/metadata`,
      `https://127.0.0.1:${notFound.port}/metadata`,
      `https://127.0.0.1:${notXml.port}/metadata`,
      `https://localhost:${notXml.port}/metadata`,
      `https://[::ffff:127.0.0.1]:${notXml.port}/metadata`,
      `https://[::1]:${notXml.port}/metadata`,
      'https://169.254.169.254/latest/meta-data/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://10.0.0.1/metadata',
      'https://192.168.1.1/metadata',
      'https://[fd00::1]/metadata',
    ];

    it('answers a SAML metadata URL at every such target with one 400, before connecting, and stores nothing', async () => {
      const admin = await adminOf(ctx);
      const answers = new Set<string>();
      for (const metadataUrl of [...targets(), idp.metadataUrl.replace('http:', 'https:')]) {
        const res = await ctx.app.inject({
          method: 'PUT',
          url: '/api/sso/connections/corp',
          headers: admin,
          payload: { protocol: 'saml', metadataUrl },
        });
        assert.equal(res.statusCode, 400, `${metadataUrl}: ${res.body}`);
        answers.add(res.body);
      }
      assert.equal(answers.size, 1, `one answer for every target:\n${[...answers].join('\n')}`);
      const [answer] = [...answers].map((body) => JSON.parse(body) as Json);
      assert.equal(answer?.code, 'identity.invalid_connection');
      assert.equal(answer?.message, 'The connection is invalid: /metadataUrl could not be read: it could not be reached.');
      assert.equal(notFound.requests() + notXml.requests() + idp.metadataReads(), 0, 'no connection was made');
      const listed = await ctx.app.inject({ method: 'GET', url: '/api/sso/connections', headers: admin });
      assert.deepEqual(listed.json(), []);
    });

    it('refuses plain http outright, wherever it points: only https is a metadata URL or an issuer', async () => {
      const admin = await adminOf(ctx);
      const answers = new Set<string>();
      for (const metadataUrl of [`http://127.0.0.1:${closed}/metadata`, `http://127.0.0.1:${notXml.port}/metadata`, idp.metadataUrl]) {
        const res = await ctx.app.inject({
          method: 'PUT',
          url: '/api/sso/connections/corp',
          headers: admin,
          payload: { protocol: 'saml', metadataUrl },
        });
        assert.equal(res.statusCode, 400, res.body);
        answers.add(res.json().message);
      }
      assert.deepEqual([...answers], ['The connection is invalid: /metadataUrl must be an https URL.']);
      const oidc = await ctx.app.inject({
        method: 'PUT',
        url: '/api/sso/connections/corp',
        headers: admin,
        payload: { issuer: provider.issuer, clientId: 'x' },
      });
      assert.equal(oidc.statusCode, 400, oidc.body);
      assert.equal(oidc.json().message, 'The connection is invalid: /issuer must be an https URL.');
      assert.equal(notXml.requests() + idp.metadataReads(), 0);
    });

    it('answers a launch through an OpenID Connect issuer at every such target with one 502, before connecting', async () => {
      const fixture = await givenLaunchTenant(ctx, 'https://content.example.com', 'http://example.com/courses/guarded');
      const answers = new Set<string>();
      const issuers = [...targets().map((url) => new URL(url).origin), provider.issuer.replace('http:', 'https:')];
      for (const [index, issuer] of issuers.entries()) {
        const name = `idp-${index}`;
        const put = await ctx.app.inject({
          method: 'PUT',
          url: `/api/sso/connections/${name}`,
          headers: fixture.admin,
          payload: { issuer, clientId: 'learnbase', clientSecret: 'a secret' },
        });
        assert.equal(put.statusCode, 201, put.body);
        const launch = await ctx.app.inject({
          method: 'GET',
          url: `/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId, connection: name })}`,
          headers: { host: fixture.host },
        });
        assert.equal(launch.statusCode, 502, `${issuer}: ${launch.body}`);
        // The learner's page (the log has the reason): one for every target.
        answers.add(launch.body);
      }
      assert.equal(answers.size, 1, `one page for every target:\n${[...answers].join('\n')}`);
      assert.match([...answers][0]!, /You could not be signed in|The course could not be opened/);
      assert.equal(notFound.requests() + notXml.requests(), 0, 'no connection was made');
    });

    it('logs the real reason for the operator: what was refused, what did not answer, what answered', async () => {
      const stream = new Lines();
      const logged = await buildApp(testConfig({ logLevel: 'warn' }), ctx.db, { logger: { stream } });
      try {
        const admin = await adminOf(ctx);
        const fixture = await givenLaunchTenant(ctx, 'https://content.example.com', 'http://example.com/courses/logged');
        for (const metadataUrl of [`https://localhost:${notXml.port}/metadata`, 'https://169.254.169.254/latest/meta-data/']) {
          const res = await logged.inject({
            method: 'PUT',
            url: '/api/sso/connections/corp',
            headers: admin,
            payload: { protocol: 'saml', metadataUrl },
          });
          assert.equal(res.statusCode, 400, res.body);
        }
        const put = await logged.inject({
          method: 'PUT',
          url: '/api/sso/connections/corp',
          headers: fixture.admin,
          payload: { issuer: `https://127.0.0.1:${closed}`, clientId: 'learnbase' },
        });
        assert.equal(put.statusCode, 201, put.body);
        const launch = await logged.inject({
          method: 'GET',
          url: `/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`,
          headers: { host: fixture.host },
        });
        assert.equal(launch.statusCode, 502);
        const outbound = stream.lines.filter((line) => String(line.msg).startsWith('an outbound request failed'));
        assert.deepEqual(
          outbound.map((line) => [line.url, line.reason]),
          [
            [`https://localhost:${notXml.port}/metadata`, '127.0.0.1 is loopback: refused'],
            ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is metadata: refused'],
            [`https://127.0.0.1:${closed}/.well-known/openid-configuration`, '127.0.0.1 is loopback: refused'],
          ],
        );
        const failed = stream.lines.find((line) => (line.err as Json | undefined)?.code === 'identity.provider_unreachable');
        assert.equal(
          (failed?.err as Json | undefined)?.message,
          `The identity provider https://127.0.0.1:${closed} could not be reached or described itself wrongly: it could not be reached.`,
        );
      } finally {
        await logged.close();
      }
      assert.equal(notXml.requests(), 0);
    });

    it('reads a connection’s metadata URL again through the guard (POST …/refresh): loopback refused, the problem kept', async () => {
      const admin = await adminOf(ctx);
      // Configured where loopback is allowed (as the tests' own app allows it), then refreshed by this app, where it is not.
      const allowing = await buildApp(ctx.config, ctx.db, { logger: false, outboundLoopback: true });
      try {
        const put = await allowing.inject({
          method: 'PUT',
          url: '/api/sso/connections/corp',
          headers: admin,
          payload: { protocol: 'saml', metadataUrl: idp.metadataUrl },
        });
        assert.equal(put.statusCode, 201, put.body);
      } finally {
        await allowing.close();
      }
      const reads = idp.metadataReads();
      const refreshed = await ctx.app.inject({ method: 'POST', url: '/api/sso/connections/corp/refresh', headers: admin });
      assert.equal(refreshed.statusCode, 502, refreshed.body);
      assert.equal(
        refreshed.json().message,
        "The provider's metadata was not taken: could not be read: it could not be reached. The connection is as it was.",
      );
      assert.equal(idp.metadataReads(), reads, 'not read');
      const [connection] = (await ctx.app.inject({ method: 'GET', url: '/api/sso/connections', headers: admin })).json() as Json[];
      assert.equal(connection?.metadataProblem, 'could not be read: it could not be reached');
      assert.equal(connection?.certificates, 1, 'the connection is as it was');
    });
  },
  {},
  { outboundLoopback: false },
);

describeEachBackend('The outbound guard: a redirect is never followed', (ctx) => {
  let idp: SamlIdpFixture;
  let redirecting: Listener;

  before(async () => {
    idp = await startSamlIdp(new Map());
    // Where the attack points the admin's URL: it sends the server on to a real metadata document.
    redirecting = await listen((_url, reply) => reply.writeHead(302, { location: idp.metadataUrl }).end());
  });
  after(async () => {
    await Promise.all([idp.close(), redirecting.close()]);
  });

  it('refuses a metadata URL answering 302 to a document it would have taken, and reads nothing there', async () => {
    const admin = await adminOf(ctx);
    const res = await ctx.app.inject({
      method: 'PUT',
      url: '/api/sso/connections/corp',
      headers: admin,
      payload: { protocol: 'saml', metadataUrl: `http://127.0.0.1:${redirecting.port}/metadata` },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(
      res.json().message,
      'The connection is invalid: /metadataUrl could not be read: it answered 302, a redirect, which is not followed.',
    );
    assert.equal(redirecting.requests(), 1);
    assert.equal(idp.metadataReads(), 0, 'the redirect was not followed');
    // The document itself, named directly, is taken.
    const direct = await ctx.app.inject({
      method: 'PUT',
      url: '/api/sso/connections/corp',
      headers: admin,
      payload: { protocol: 'saml', metadataUrl: idp.metadataUrl },
    });
    assert.equal(direct.statusCode, 201, direct.body);
  });

  it('refuses an OpenID Connect issuer whose discovery answers 302, and follows nowhere', async () => {
    const fixture = await givenLaunchTenant(ctx, 'https://content.example.com', 'http://example.com/courses/redirected');
    const put = await ctx.app.inject({
      method: 'PUT',
      url: '/api/sso/connections/corp',
      headers: fixture.admin,
      payload: { issuer: `http://127.0.0.1:${redirecting.port}`, clientId: 'learnbase' },
    });
    assert.equal(put.statusCode, 201, put.body);
    const before = redirecting.requests();
    const readsBefore = idp.metadataReads();
    const launch = await ctx.app.inject({
      method: 'GET',
      url: `/api/activities/launch?${new URLSearchParams({ activityId: fixture.activityId })}`,
      headers: { host: fixture.host },
    });
    assert.equal(launch.statusCode, 502, launch.body);
    assert.equal(redirecting.requests() - before, 1);
    assert.equal(idp.metadataReads(), readsBefore, 'the redirect was not followed');
  });
});
