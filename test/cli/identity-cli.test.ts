import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { startSamlIdp } from '../identity/saml-fixtures.js';
import { POSTGRES_AVAILABLE } from '../support/backends.js';
import { runCli, type CliResult } from '../support/cli.js';
import { type CliTarget, pgliteTarget, postgresTarget } from '../support/cli-targets.js';

const json = <T = any>(result: CliResult): T => {
  assert.equal(result.code, 0, `exit ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
};

const scimUsers = (app: FastifyInstance, token: string) =>
  app.inject({ method: 'GET', url: '/scim/v2/Users', headers: { authorization: `Bearer ${token}` } });

function signed(app: FastifyInstance, path: string, secret: string, id: string) {
  const body = JSON.stringify({ type: 'person.joined', data: { name: 'Ada', attributes: { email: 'ada@example.com' } } });
  const at = new Date();
  return app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, body),
    },
    payload: body,
  });
}

function identitySuite(backend: 'pglite' | 'postgres', open: () => Promise<CliTarget>): void {
  describe(`learnbase scim-token, hr-webhook and sso [${backend}]`, { skip: backend === 'postgres' && !POSTGRES_AVAILABLE }, () => {
    let target: CliTarget;
    const cli = (...args: string[]) => runCli([...args, ...target.flags]);
    before(async () => {
      target = await open();
      json(await cli('tenant', 'create', 'acme', '--json'));
    });
    after(async () => target?.dispose());

    it('scim-token create prints a token that works once, list shows it without the secret, revoke ends it', async () => {
      const created = json<{ id: string; token: string; createdAt: string }>(
        await cli('scim-token', 'create', '--tenant', 'acme', '--json'),
      );
      assert.match(created.id, /^scim_[0-9a-f]{32}_[0-9a-f]{16}$/);
      assert.ok(created.token.startsWith(`${created.id}.`));
      assert.equal((await target.withApp((app) => scimUsers(app, created.token))).statusCode, 200);
      const listed = json<{ scimTokens: Array<Record<string, unknown>> }>(await cli('scim-token', 'list', '--tenant', 'acme', '--json'));
      assert.deepEqual(listed.scimTokens, [{ id: created.id, createdAt: created.createdAt, revokedAt: null }]);
      assert.match((await cli('scim-token', 'list', '--tenant', 'acme')).stdout, /^ID +CREATED +REVOKED\nscim_/);
      json(await cli('scim-token', 'revoke', '--tenant', 'acme', created.id, '--json'));
      assert.equal((await target.withApp((app) => scimUsers(app, created.token))).statusCode, 401);
      assert.equal((await cli('scim-token', 'revoke', '--tenant', 'acme', 'scim_nothing')).code, 1);
      assert.equal((await cli('scim-token', 'create', '--tenant', 'nobody')).code, 1);
      assert.equal((await cli('scim-token', 'create')).code, 2);
      assert.equal((await cli('scim-token', 'rotate', '--tenant', 'acme')).code, 2);
    });

    it('hr-webhook create prints the path and the secret a signed message is accepted with; revoke ends it', async () => {
      const created = json<{ id: string; path: string; secret: string }>(await cli('hr-webhook', 'create', '--tenant', 'acme', '--json'));
      assert.equal(created.path, `/hooks/hr/${created.id}`);
      assert.match(created.secret, /^whsec_/);
      assert.equal((await target.withApp((app) => signed(app, created.path, created.secret, 'msg_1'))).statusCode, 202);
      const listed = json<{ hrWebhooks: Array<{ id: string; revokedAt: string | null }> }>(
        await cli('hr-webhook', 'list', '--tenant', 'acme', '--json'),
      );
      assert.deepEqual(
        listed.hrWebhooks.map((webhook) => [webhook.id, webhook.revokedAt]),
        [[created.id, null]],
      );
      json(await cli('hr-webhook', 'revoke', '--tenant', 'acme', created.id, '--json'));
      assert.equal((await target.withApp((app) => signed(app, created.path, created.secret, 'msg_2'))).statusCode, 401);
      assert.equal((await cli('hr-webhook', 'revoke', '--tenant', 'acme', 'hrw_nothing')).code, 1);
    });

    it('sso set creates then replaces a connection (keeping or removing its secret), list never shows its secret, a bad one exits 1, delete removes it', async () => {
      const set = (...flags: string[]) => cli('sso', 'set', '--tenant', 'acme', '--name', 'corp', ...flags);
      const issuer = ['--issuer', 'https://login.example.com/realms/acme', '--client-id', 'learnbase'];
      const created = json(await set(...issuer, '--client-secret', 's3cret', '--display-name', 'Acme staff', '--json'));
      assert.deepEqual(
        [created.created, created.clientSecret, created.redirectUri, created.scopes, created.displayName],
        [true, '(set)', '/auth/sso/callback', 'openid email profile', 'Acme staff'],
      );
      const replaced = json(await set(...issuer, '--claim', 'email=email', '--claim', 'employee_id=employeeId', '--json'));
      assert.equal(replaced.created, false);
      assert.equal(replaced.displayName, 'corp', 'replaced without one: the name');
      assert.deepEqual(replaced.claims, { email: 'email', employee_id: 'employeeId' });
      assert.equal(replaced.clientSecret, '(set)', 'a replacement without --client-secret keeps the stored one, as the API does');
      const stored = await target.withApp(async (_app, db) => {
        const { rows } = await db.query<{ sealed: boolean }>(
          `SELECT client_secret IS NOT NULL AS sealed FROM sso_connections WHERE name = 'corp'`,
        );
        return rows;
      });
      assert.deepEqual(stored, [{ sealed: true }]);
      const both = await set(...issuer, '--client-secret', 'x', '--remove-client-secret');
      assert.equal(both.code, 2);
      assert.match(both.stderr, /give one of them/);
      const madePublic = json(await set(...issuer, '--remove-client-secret', '--json'));
      assert.equal(madePublic.clientSecret, null, '--remove-client-secret makes a public client');
      const listed = await cli('sso', 'list', '--tenant', 'acme', '--json');
      assert.deepEqual(
        json(listed).connections.map((connection: { name: string }) => connection.name),
        ['corp'],
      );
      const refused = await set('--issuer', 'http://login.example.com', '--client-id', 'x');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /issuer must be an https URL/);
      const badName = await set(...issuer, '--display-name', 'Acme\nstaff');
      assert.equal(badName.code, 1);
      assert.match(badName.stderr, /displayName must not contain control characters/);
      assert.equal((await set(...issuer, '--claim', 'nothing')).code, 2);
      json(await cli('sso', 'delete', '--tenant', 'acme', '--name', 'corp', '--json'));
      assert.equal((await cli('sso', 'delete', '--tenant', 'acme', '--name', 'corp')).code, 1);
    });

    it('sso refresh reads a SAML connection’s metadata URL again: a rolled key is taken, a failing provider changes nothing', async () => {
      const idp = await startSamlIdp(new Map());
      try {
        const set = json(
          await cli('sso', 'set', '--tenant', 'acme', '--name', 'saml', '--metadata-url', idp.metadataUrl, '--allow-sha1', '--json'),
        );
        assert.deepEqual([set.certificates, set.allowSha1], [1, true]);
        idp.serveMetadata({ keys: ['idp', 'other'] });
        const refreshed = json(await cli('sso', 'refresh', '--tenant', 'acme', '--name', 'saml', '--json'));
        assert.deepEqual(refreshed.changed, ['certificates']);
        assert.equal(refreshed.connection.certificates, 2);
        assert.equal(refreshed.connection.allowSha1, true, 'a reading of the metadata keeps what the connection allows');
        idp.serveMetadata({ failing: true });
        const failed = await cli('sso', 'refresh', '--tenant', 'acme', '--name', 'saml');
        assert.equal(failed.code, 1);
        assert.match(failed.stderr, /metadata was not taken: could not be read: it answered 500/);
        const listed = json(await cli('sso', 'list', '--tenant', 'acme', '--json')).connections[0];
        assert.deepEqual([listed.name, listed.certificates], ['saml', 2]);
        assert.match(listed.metadataProblem, /it answered 500/);
        const audit = await target.withApp(async (app, db) => {
          const { rows } = await db.query<{ principal_kind: string; details: Record<string, unknown> }>(
            `SELECT principal_kind, details FROM audit_log WHERE action = 'sso_connection.refreshed'`,
          );
          return rows;
        });
        assert.deepEqual(audit, [{ principal_kind: 'operator', details: { name: 'saml', changed: ['certificates'], certificates: 2 } }]);
        assert.equal((await cli('sso', 'refresh', '--tenant', 'acme', '--name', 'nothing')).code, 1);
        assert.equal((await cli('sso', 'refresh', '--tenant', 'acme')).code, 2);
        json(await cli('sso', 'delete', '--tenant', 'acme', '--name', 'saml', '--json'));
      } finally {
        await idp.close();
      }
    });
  });
}

identitySuite('pglite', () => pgliteTarget('learnbase-identity-cli-'));
identitySuite('postgres', () => postgresTarget());
