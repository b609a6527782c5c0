import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { createClient } from '../../src/modules/auth/oauth/clients/client.service.js';
import { issueCode } from '../../src/modules/auth/oauth/code.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { REDIRECT_URI, redeemCode } from '../auth/oauth-token-fixtures.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { testConfig } from '../support/build-test-app.js';
import { runCli, type CliResult } from '../support/cli.js';
import { copyMigratedDataFolder } from '../support/templates.js';

const PASSWORD = 'correct horse battery';
const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
const json = <T = any>(result: CliResult): T => {
  assert.equal(result.code, 0, `exit ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
};

/** The structure CEO > CTO > DEV1, CEO > CFO, and one person in each of DEV1 and CFO. */
const ORGANISATION = [{ id: 'CEO' }, { id: 'CTO', parentId: 'CEO' }, { id: 'DEV1', parentId: 'CTO' }, { id: 'CFO', parentId: 'CEO' }];
const USERS = [
  { name: 'Ada', attributes: { email: 'ada@example.com', position: 'DEV1' } },
  { name: 'Fay', attributes: { email: 'fay@example.com', position: 'CFO' } },
];

interface Target {
  flags: string[];
  open(): Promise<Database>;
  dispose(): Promise<void>;
}

/** Builds an app on the target's database (PGlite: only while no command runs), runs `work`, closes both. */
async function withApp<T>(target: Target, work: (app: FastifyInstance, db: Database) => Promise<T>): Promise<T> {
  const db = await target.open();
  try {
    await migrate(db);
    const app = await buildApp(testConfig({ cacheTtlMs: 60_000 }), db, { logger: false });
    try {
      return await work(app, db);
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}

function scopesSuite(backend: 'pglite' | 'postgres', open: () => Promise<Target>): void {
  describe(`learnbase --scope and admin set-scope [${backend}]`, { skip: backend === 'postgres' && !POSTGRES_AVAILABLE }, () => {
    let target: Target;
    const cli = (...args: string[]) => runCli([...args, ...target.flags]);
    before(async () => {
      target = await open();
    });
    after(async () => target?.dispose());

    it('creates keys and admins limited to an existing entry, lists their scopes, and sets an admin’s scope at once', async () => {
      const tenant = json(await cli('tenant', 'create', 'scoped', '--json'));
      const key = json(await cli('apikey', 'create', '--tenant', 'scoped', '--json'));
      // No structure yet: no entry to be limited to (a usage error, exit 2), and nothing created.
      const early = await cli('apikey', 'create', '--tenant', 'scoped', '--scope', 'CTO');
      assert.equal(early.code, 2, early.stderr);
      assert.match(early.stderr, /Tenant "scoped" has no organisation entry "CTO"/);

      await withApp(target, async (app) => {
        const headers = { authorization: basic(key.key, key.secret), 'x-svc-tenant': 'scoped' };
        for (const [url, payload] of [
          ['/api/settings', { organisationAttribute: 'position' }],
          ['/api/import/organisation', ORGANISATION],
        ] as const) {
          assert.ok((await app.inject({ method: 'PUT', url, headers, payload })).statusCode < 300, url);
        }
        assert.equal((await app.inject({ method: 'POST', url: '/api/import/users', headers, payload: { users: USERS } })).statusCode, 200);
      });

      const scoped = json(await cli('apikey', 'create', '--tenant', 'scoped', '--scope', 'CTO', '--json'));
      assert.equal(scoped.scope, 'CTO');
      const text = await cli('apikey', 'create', '--tenant', 'scoped', '--scope', 'CFO');
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^scope: +CFO \(and every entry below it\)$/m);
      for (const [args, message] of [
        [['apikey', 'create', '--tenant', 'scoped', '--scope', 'NOPE'], /no organisation entry "NOPE"/],
        [['apikey', 'create', '--tenant', 'scoped', '--scope', ''], /--scope names an organisation entry/],
        [
          ['admin', 'create', '--tenant', 'scoped', '--email', 'x@example.com', '--password', PASSWORD, '--scope', 'NOPE'],
          /no organisation entry "NOPE"/,
        ],
        [['admin', 'set-scope', '--tenant', 'scoped', '--email', 'x@example.com'], /exactly one of --scope ENTRY_ID and --whole-tenant/],
        [['admin', 'set-scope', '--tenant', 'scoped', '--email', 'x@example.com', '--scope', 'CTO', '--whole-tenant'], /exactly one of/],
        [['admin', 'set-scope', '--tenant', 'scoped', '--scope', 'CTO'], /needs --tenant NAME, --email E/],
      ] as Array<[string[], RegExp]>) {
        const result = await cli(...args);
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, message);
      }
      const unknownAdmin = await cli('admin', 'set-scope', '--tenant', 'scoped', '--email', 'nobody@example.com', '--whole-tenant');
      assert.equal(unknownAdmin.code, 1, unknownAdmin.stderr);

      const listed = json(await cli('apikey', 'list', '--tenant', 'scoped', '--json'));
      assert.deepEqual(listed.apiKeys.map((item: { key: string; scope: string | null }) => [item.key === key.key, item.scope]).sort(), [
        [false, 'CFO'],
        [false, 'CTO'],
        [true, null],
      ]);
      assert.match(
        (await cli('apikey', 'list', '--tenant', 'scoped')).stdout,
        /^KEY +CREATED +LAST USED +REVOKED +SCOPE\n(.*\n)*lb_\S+ +.* CTO\n/,
      );

      const admin = json(
        await cli(
          'admin',
          'create',
          '--tenant',
          'scoped',
          '--email',
          'ops@example.com',
          '--password',
          PASSWORD,
          '--scope',
          'CTO',
          '--json',
        ),
      );
      assert.equal(admin.scope, 'CTO');
      const admins = json(await cli('admin', 'list', '--tenant', 'scoped', '--json'));
      assert.deepEqual(
        admins.admins.map((item: { email: string; scope: string | null }) => [item.email, item.scope]),
        [['ops@example.com', 'CTO']],
      );
      assert.match(
        (await cli('admin', 'list', '--tenant', 'scoped')).stdout,
        /^E-MAIL +ID +CREATED +LOCKED UNTIL +SCOPE +SIGNS IN WITH\nops@example\.com .* CTO +password\n/,
      );

      // The scoped key and admin see Ada only; the admin's token stops working when the scope changes.
      const before = await withApp(target, async (app, db) => {
        const keyHeaders = { authorization: basic(scoped.key, scoped.secret), 'x-svc-tenant': 'scoped' };
        const people = await app.inject({ method: 'GET', url: '/api/actors', headers: keyHeaders });
        assert.deepEqual(
          people.json().map((actor: { name: string }) => actor.name),
          ['Ada'],
        );
        const record = (await new TenancyService(db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
        const client = await createClient(db, record, [REDIRECT_URI]);
        const code = await issueCode(db, { tenantId: tenant.id, clientId: client.clientId, adminId: admin.id, redirectUri: REDIRECT_URI });
        const token = (await redeemCode(app, client, code)).json().access_token as string;
        const bearer = { authorization: `Bearer ${token}`, 'x-svc-tenant': 'scoped' };
        assert.deepEqual(
          (await app.inject({ method: 'GET', url: '/api/actors', headers: bearer })).json().map((actor: { name: string }) => actor.name),
          ['Ada'],
        );
        return { bearer, client };
      });
      const widened = json(await cli('admin', 'set-scope', '--tenant', 'scoped', '--email', 'ops@example.com', '--whole-tenant', '--json'));
      assert.deepEqual(widened, { id: admin.id, email: 'ops@example.com', scope: null });
      const sentence = await cli('admin', 'set-scope', '--tenant', 'scoped', '--email', 'OPS@example.com', '--scope', 'CFO');
      assert.equal(sentence.code, 0, sentence.stderr);
      assert.match(sentence.stdout, /limited to the organisation entry "CFO" and every entry below it; their tokens were revoked/);
      await withApp(target, async (app, db) => {
        assert.equal((await app.inject({ method: 'GET', url: '/api/actors', headers: before.bearer })).statusCode, 401);
        const code = await issueCode(db, {
          tenantId: tenant.id,
          clientId: before.client.clientId,
          adminId: admin.id,
          redirectUri: REDIRECT_URI,
        });
        const token = (await redeemCode(app, before.client, code)).json().access_token as string;
        const people = await app.inject({
          method: 'GET',
          url: '/api/actors',
          headers: { authorization: `Bearer ${token}`, 'x-svc-tenant': 'scoped' },
        });
        assert.deepEqual(
          people.json().map((actor: { name: string }) => actor.name),
          ['Fay'],
        );
      });
      assert.deepEqual(
        json(await cli('admin', 'list', '--tenant', 'scoped', '--json')).admins.map((item: { scope: string }) => item.scope),
        ['CFO'],
      );
    });
  });
}

scopesSuite('pglite', async () => {
  const folder = await copyMigratedDataFolder(mkdtempSync(join(tmpdir(), 'learnbase-scopes-')));
  return {
    flags: ['--data', folder],
    open: () => PgliteDatabase.open(folder),
    async dispose() {
      rmSync(folder, { recursive: true, force: true });
    },
  };
});

scopesSuite('postgres', async () => {
  const created = await createPostgresDatabase();
  return {
    flags: ['--database', created.url],
    open: async () => new PostgresDatabase(created.url, { max: 5 }),
    dispose: () => created.drop(),
  };
});
