import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { buildApp } from '../../src/server/app.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { testConfig } from '../support/build-test-app.js';
import { runCli } from '../support/cli.js';
import { copyMigratedDataFolder } from '../support/templates.js';

const HR = 'https://hr.example.com';
const ADL = 'http://adlnet.gov/expapi/verbs/';
const folders: string[] = [];
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

/**
 * `learnbase reports verify` and `rebuild` (docs/learning.md, "Counts kept as the writes happen"):
 * what the API's writes kept equals the recount; counts gone wrong are named, exit 1, and a rebuild
 * puts them right; on a PGlite folder and on PostgreSQL.
 */
for (const backend of ['pglite', 'postgres'] as const) {
  describe(`learnbase reports verify and rebuild [${backend}]`, { skip: backend === 'postgres' && !POSTGRES_AVAILABLE }, () => {
    it('verify finds the kept counts equal to a recount, names a difference with exit 1, and rebuild puts it right', async () => {
      let where: string[];
      let open: () => Promise<Database>;
      let drop = async () => {};
      if (backend === 'pglite') {
        const folder = mkdtempSync(join(tmpdir(), 'learnbase-reports-cli-'));
        folders.push(folder);
        const data = await copyMigratedDataFolder(folder);
        where = ['--data', data];
        open = () => PgliteDatabase.open(data);
      } else {
        const database = await createPostgresDatabase({ migrated: true });
        drop = database.drop;
        where = ['--database', database.url];
        open = async () => new PostgresDatabase(database.url);
      }
      const cli = (...args: string[]) => runCli([...args, ...where]);
      try {
        assert.equal((await cli('tenant', 'create', 'acme')).code, 0);
        assert.equal((await cli('tenant', 'create', 'empty')).code, 0);
        const created = await cli('apikey', 'create', '--tenant', 'acme', '--json');
        const { key, secret } = JSON.parse(created.stdout) as { key: string; secret: string };

        // People, a registry and statements, through the API.
        const db = await open();
        try {
          const app = await buildApp(testConfig(), db, { logger: false });
          const headers = { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`, 'x-svc-tenant': 'acme' };
          const send = async (method: 'PUT' | 'POST', url: string, payload: unknown, status = 200) => {
            const res = await app.inject({
              method,
              url,
              headers: { ...headers, 'x-experience-api-version': '2.0.0' },
              payload: payload as object,
            });
            assert.equal(res.statusCode, status, res.body);
          };
          await send('PUT', '/api/settings', { uniqueAttributes: ['employeeId'], accountHomePage: HR, organisationAttribute: 'position' });
          await send('PUT', '/api/import/organisation', [{ id: 'ROOT' }, { id: 'TEAM', parentId: 'ROOT' }], 204);
          await send('POST', '/api/import/users', {
            users: ['E1', 'E2', 'E3'].map((id, i) => ({ name: id, attributes: { employeeId: id, position: i === 0 ? 'ROOT' : 'TEAM' } })),
          });
          await send('PUT', '/api/activities', [
            { id: 'https://example.com/a', definition: {} },
            { id: 'https://example.com/b', definition: {}, requiresSuccess: true },
          ]);
          await send(
            'POST',
            '/xapi/statements',
            ['E1', 'E2'].map((name) => ({
              actor: { account: { homePage: HR, name } },
              verb: { id: `${ADL}completed` },
              object: { id: 'https://example.com/a' },
            })),
          );
          await app.close();
        } finally {
          await db.close();
        }

        const equal = await cli('reports', 'verify', '--json');
        assert.equal(equal.code, 0, equal.stdout + equal.stderr);
        assert.deepEqual(JSON.parse(equal.stdout), {
          verified: [
            { tenant: 'acme', rebuilding: false, people: [], units: [], members: [], classes: [], compliance: [] },
            { tenant: 'empty', rebuilding: false, people: [], units: [], members: [], classes: [], compliance: [] },
          ],
        });

        // Counts gone wrong (by hand: no write does this): named, exit 1.
        const tamper = await open();
        try {
          await tamper.query(`UPDATE learning_unit_counts SET evidence = evidence + 1 WHERE position_id = 'TEAM'`);
        } finally {
          await tamper.close();
        }
        const wrong = await cli('reports', 'verify', '--tenant', 'acme');
        assert.equal(wrong.code, 1, wrong.stdout + wrong.stderr);
        assert.match(wrong.stdout, /entry "TEAM" job "": kept people=2 evidence=2, recounted people=2 evidence=1/);
        assert.match(wrong.stdout, /learnbase reports rebuild --tenant "acme"/);

        const rebuilt = await cli('reports', 'rebuild', '--tenant', 'acme', '--json');
        assert.equal(rebuilt.code, 0, rebuilt.stderr);
        assert.equal(JSON.parse(rebuilt.stdout).rebuilt[0].tenant, 'acme');
        const again = await cli('reports', 'verify', '--tenant', 'acme');
        assert.equal(again.code, 0, again.stdout + again.stderr);
        assert.match(again.stdout, /Tenant "acme": the kept counts equal a recount\./);

        const unknown = await cli('reports', 'verify', '--tenant', 'nobody');
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /No tenant named "nobody"/);
        const usage = await cli('reports', 'recount');
        assert.equal(usage.code, 2);
        assert.match(usage.stderr, /verify|rebuild/);
      } finally {
        await drop();
      }
    });
  });
}
