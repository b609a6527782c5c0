import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { appendFile, lstat, mkdir, readFile, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-client.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { insertDropFile } from '../../src/modules/identity/import-folder/drop-file.repository.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import type { DropResult } from '../../src/modules/identity/import-folder/drop-folder-rules.js';
import { BACKENDS, createPostgresDatabase } from '../support/backends.js';
import { describeEachBackend, testConfig } from '../support/build-test-app.js';
import { startCli, waitForOutput } from '../support/cli.js';
import { Given, type GivenTenant } from '../support/given.js';
import { openMigratedPglite } from '../support/templates.js';
import {
  drop,
  dropSettings,
  finished,
  INTERVAL_MS,
  leftResults,
  list,
  sleep,
  STABLE_MS,
  waitFor,
  waitForFinished,
} from './drop-fixtures.js';

const folders: string[] = [];
const newFolder = (prefix: string) => {
  const folder = mkdtempSync(join(tmpdir(), `learnbase-drop-${prefix}-`));
  folders.push(folder);
  return folder;
};
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

async function history(
  app: FastifyInstance,
  tenant: GivenTenant,
): Promise<Array<{ kind: string; principal: { kind: string; id: string } }>> {
  const res = await app.inject({ method: 'GET', url: '/api/import/history?limit=1000', headers: tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

/** An app watching `dir`, started (its watcher runs from its start). */
async function startApp(db: Database, dir: string, stableMs = STABLE_MS): Promise<FastifyInstance> {
  const app = await buildApp(testConfig(dropSettings(dir, stableMs)), db, { logger: false });
  await app.ready();
  return app;
}

const USERS_CSV = 'name,email,city\nAda Lovelace,ada@example.com,London\nAlan Turing,alan@example.com,\n,nobody@example.com,Nowhere\n';

const dropDir = newFolder('shared');

describeEachBackend(
  'The import folder',
  (ctx) => {
    before(() => ctx.app.ready());

    it('imports a users CSV renamed in once, and moves it to done/ with its summary, skipped rows included', async () => {
      const tenant = await ctx.given.tenant();
      const folder = join(dropDir, tenant.name);
      await drop(folder, 'users.csv', USERS_CSV);
      const done = await waitForFinished(folder, 'done', 'users.csv');
      assert.match(done.name, /^\d{8}T\d{6}Z-[0-9a-f]{8}\.users\.csv$/);
      assert.equal(await readFile(join(folder, 'done', done.name), 'utf8'), USERS_CSV);
      const { result } = done;
      assert.equal(result.status, 'imported');
      assert.equal(result.file, 'users.csv');
      assert.equal(result.tenant, tenant.name);
      assert.equal(result.kind, 'users');
      assert.match(String(result.sha256), /^[0-9a-f]{64}$/);
      assert.ok(result.status === 'imported');
      assert.deepEqual(result.summary, {
        rows: 3,
        new: 2,
        existing: 0,
        skipped: 1,
        errorCount: 1,
        warningCount: 0,
        errors: [{ type: 'missing_name', message: '"name" must be a non-empty string.', value: '', row: 3 }],
        warnings: [],
      });
      assert.deepEqual(await list(folder), ['done', 'processing']);
      assert.deepEqual(await list(join(folder, 'processing')), []);
      // Looked at many more times since: still imported once.
      await sleep(INTERVAL_MS * 5);
      const runs = await history(ctx.app, tenant);
      assert.equal(runs.length, 1);
      assert.deepEqual(runs[0].principal, { kind: 'operator', id: 'drop:users.csv' });
      const actors = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: tenant.headers });
      assert.deepEqual(
        actors
          .json()
          .map((actor: { name: string }) => actor.name)
          .sort(),
        ['Ada Lovelace', 'Alan Turing'],
      );
    });

    it('leaves a file being written alone until it has been unchanged for the stable time', async () => {
      const tenant = await ctx.given.tenant();
      const folder = join(dropDir, tenant.name);
      await mkdir(folder, { recursive: true });
      const path = join(folder, 'Users-slow.CSV');
      await writeFile(path, 'name,email\n');
      const started = Date.now();
      for (let n = 0; Date.now() - started < STABLE_MS * 2.5; n++) {
        await appendFile(path, `Learner ${n},learner${n}@example.com\n`);
        await sleep(STABLE_MS / 5);
        assert.deepEqual(await list(join(folder, 'processing')), [], 'claimed while it was being written');
        assert.deepEqual(await history(ctx.app, tenant), []);
      }
      const written = (await readFile(path, 'utf8')).trim().split('\n').length - 1;
      const done = await waitForFinished(folder, 'done', 'Users-slow.CSV');
      assert.ok(done.result.status === 'imported');
      assert.equal(done.result.summary.rows, written);
      assert.equal(done.result.summary.new, written);
    });

    it('moves a refused file to failed/ with the reason, importing nothing', async () => {
      const tenant = await ctx.given.tenant();
      const folder = join(dropDir, tenant.name);
      await drop(folder, 'users.json', '{"users": 3}', { old: true });
      await drop(folder, 'users-broken.csv', 'name,email\n"Ada,ada@example.com\n', { old: true });
      await drop(folder, 'users-latin1.json', Buffer.from([0x7b, 0xe9, 0x7d]), { old: true });
      await drop(folder, 'organisation.json', '[{"id":"P1","parentId":"P2"},{"id":"P2","parentId":"P1"}]', { old: true });
      const reasons = new Map<string, DropResult>();
      for (const file of ['users.json', 'users-broken.csv', 'users-latin1.json', 'organisation.json']) {
        reasons.set(file, (await waitForFinished(folder, 'failed', file)).result);
      }
      const refused = (file: string) => {
        const result = reasons.get(file);
        assert.ok(result?.status === 'refused', file);
        return result.error;
      };
      assert.deepEqual(refused('users.json'), {
        code: 'imports.invalid_body',
        message: '"users" must be an array of users.',
        details: { field: 'users' },
      });
      assert.equal(refused('users-broken.csv').code, 'imports.invalid_csv');
      assert.deepEqual(refused('users-latin1.json'), {
        code: 'imports.invalid_json',
        message: 'users-latin1.json is not valid JSON: its bytes are not UTF-8.',
      });
      const organisation = refused('organisation.json');
      assert.equal(organisation.code, 'imports.invalid_organisation');
      assert.equal((organisation.details as { problems: unknown[] }).problems.length, 2);
      assert.deepEqual(await finished(folder, 'done'), []);
      assert.deepEqual(await history(ctx.app, tenant), []);
    });

    it('imports an organisation JSON and a jobs JSON', async () => {
      const tenant = await ctx.given.tenant();
      const folder = join(dropDir, tenant.name);
      const organisation = [
        { id: 'CEO', attributes: { title: 'Chief Executive' } },
        { id: 'CTO', parentId: 'CEO', attributes: { title: 'Chief Technology Officer' } },
      ];
      const jobs = [{ id: 'J-ENG', name: 'Engineer', competencies: [{ Name: 'TypeScript', Description: 'Writes it' }], attributes: {} }];
      await drop(folder, 'Organisation-2024.json', JSON.stringify(organisation));
      await drop(folder, 'jobs.JSON', JSON.stringify(jobs));
      const imported = [
        await waitForFinished(folder, 'done', 'Organisation-2024.json'),
        await waitForFinished(folder, 'done', 'jobs.JSON'),
      ].map(({ result }) => {
        assert.ok(result.status === 'imported');
        return [result.kind, result.summary];
      });
      assert.deepEqual(imported, [
        ['organisation', { entries: 2 }],
        ['jobs', { entries: 1 }],
      ]);
      const flat = await ctx.app.inject({ method: 'GET', url: '/api/organisation?format=flat', headers: tenant.headers });
      assert.deepEqual(
        flat.json().map((entry: { id: string }) => entry.id),
        ['CEO', 'CTO'],
      );
      const stored = await ctx.app.inject({ method: 'GET', url: '/api/jobs', headers: tenant.headers });
      assert.deepEqual(stored.json(), jobs);
      assert.deepEqual((await history(ctx.app, tenant)).map((run) => run.kind).sort(), ['jobs', 'organisation']);
    });

    it('leaves a file larger than 1 MiB where it is while the imports in flight have no place for it', async () => {
      const tenant = await ctx.given.tenant();
      const folder = join(dropDir, tenant.name);
      // An API import holds the place: its body, of unknown length (so it counts), is still being sent.
      const request = httpRequest(`${await ctx.url()}/api/import/users`, {
        method: 'POST',
        headers: { ...tenant.headers, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      const answered = new Promise<number | undefined>((resolve, reject) => {
        request.on('response', (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode));
        });
        request.on('error', reject);
      });
      request.write('{"users": [');
      await sleep(200);
      const note = 'x'.repeat(600_000);
      await drop(folder, 'users.csv', `name,email,note\nAda,ada@example.com,${note}\nAlan,alan@example.com,${note}\n`, { old: true });
      await sleep(INTERVAL_MS * 10);
      assert.deepEqual(await list(folder), ['users.csv']);
      request.end(']}');
      assert.equal(await answered, 200);
      const done = await waitForFinished(folder, 'done', 'users.csv');
      assert.ok(done.result.status === 'imported');
      assert.equal(done.result.summary.new, 2);
    });

    it('leaves alone the folder of no tenant, and the files of a tenant that name no import or are still being written', async () => {
      const tenant = await ctx.given.tenant();
      const nobody = join(dropDir, `nobody-${randomBytes(4).toString('hex')}`);
      await drop(nobody, 'users.csv', USERS_CSV, { old: true });
      const folder = join(dropDir, tenant.name);
      for (const name of ['notes.txt', 'people.csv', 'organisation.csv', 'users.csv.part', 'users.csv.tmp', '.users.csv']) {
        await writeFile(join(folder, name), USERS_CSV).catch(async () => {
          await mkdir(folder, { recursive: true });
          await writeFile(join(folder, name), USERS_CSV);
        });
        await utimes(join(folder, name), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      }
      await drop(folder, 'users.csv', USERS_CSV, { old: true });
      await waitForFinished(folder, 'done', 'users.csv');
      await sleep(INTERVAL_MS * 5);
      assert.deepEqual(await list(nobody), ['users.csv']);
      assert.deepEqual((await list(folder)).sort(), [
        '.users.csv',
        'done',
        'notes.txt',
        'organisation.csv',
        'people.csv',
        'processing',
        'users.csv.part',
        'users.csv.tmp',
      ]);
    });

    it('leaves links, a FIFO and a folder where they are, unread, each said once in a result in failed/: a link to another tenant’s file or to /etc/passwd imports and hashes nothing', async () => {
      const alice = await ctx.given.tenant();
      const bob = await ctx.given.tenant();
      const aliceFolder = join(dropDir, alice.name);
      const bobFolder = join(dropDir, bob.name);
      await drop(aliceFolder, 'users.csv', USERS_CSV, { old: true });
      const aliceDone = await waitForFinished(aliceFolder, 'done', 'users.csv');
      // The attack: Bob's folder holds links to the file Alice dropped (kept in her done/) and to a file of the server's.
      await mkdir(bobFolder, { recursive: true });
      await symlink(join(aliceFolder, 'done', aliceDone.name), join(bobFolder, 'users-alice.csv'));
      await symlink('/etc/passwd', join(bobFolder, 'users-passwd.csv'));
      await symlink(join(aliceFolder, 'done'), join(bobFolder, 'users-folder.csv'));
      execFileSync('mkfifo', [join(bobFolder, 'users-fifo.csv')]);
      await mkdir(join(bobFolder, 'organisation-dir.json'));
      // A regular file beside them is taken as ever: the FIFO (which no one writes) holds nothing up.
      await drop(bobFolder, 'users.csv', 'name,email\nBob,bob@example.com\n', { old: true });
      await waitForFinished(bobFolder, 'done', 'users.csv');
      const left = await waitFor('five results of entries left', async () => {
        const results = await leftResults(bobFolder);
        return results.length === 5 ? results : undefined;
      });
      await sleep(INTERVAL_MS * 10);
      assert.equal((await leftResults(bobFolder)).length, 5, 'each said once');
      assert.deepEqual(
        left
          .map((result) => [
            result.file,
            result.kind,
            result.status,
            result.warning.code,
            result.warning.message.match(/is an? (.+?),/)?.[1],
          ])
          .sort(),
        [
          ['organisation-dir.json', 'organisation', 'left', 'identity.drop_not_regular_file', 'folder'],
          ['users-alice.csv', 'users', 'left', 'identity.drop_not_regular_file', 'symbolic link'],
          ['users-fifo.csv', 'users', 'left', 'identity.drop_not_regular_file', 'FIFO'],
          ['users-folder.csv', 'users', 'left', 'identity.drop_not_regular_file', 'symbolic link'],
          ['users-passwd.csv', 'users', 'left', 'identity.drop_not_regular_file', 'symbolic link'],
        ],
      );
      for (const result of left) {
        assert.equal(result.tenant, bob.name);
        assert.deepEqual(Object.keys(result).sort(), ['file', 'kind', 'status', 'tenant', 'warning'], 'no hash, no claim, no summary');
      }
      // Nothing of what the links point at is in any result: no hash of it, no row of it.
      const passwd = await readFile('/etc/passwd');
      const secrets = [createHash('sha256').update(passwd).digest('hex'), aliceDone.result.sha256 as string, 'root', 'ada@example.com'];
      for (const name of await list(join(bobFolder, 'failed'))) {
        const text = await readFile(join(bobFolder, 'failed', name), 'utf8');
        for (const secret of secrets) assert.ok(!text.includes(secret), `${name} holds ${secret}`);
      }
      // Left where they were, as they were.
      for (const name of ['users-alice.csv', 'users-passwd.csv', 'users-folder.csv'])
        assert.ok((await lstat(join(bobFolder, name))).isSymbolicLink(), name);
      assert.ok((await lstat(join(bobFolder, 'users-fifo.csv'))).isFIFO());
      assert.ok((await lstat(join(bobFolder, 'organisation-dir.json'))).isDirectory());
      assert.deepEqual(await list(join(bobFolder, 'processing')), []);
      assert.deepEqual(
        (await finished(bobFolder, 'done')).map((entry) => entry.file),
        ['users.csv'],
      );
      const bobs = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: bob.headers });
      assert.deepEqual(
        bobs.json().map((actor: { name: string }) => actor.name),
        ['Bob'],
        'nothing of Alice’s file nor of /etc/passwd in Bob’s tenant',
      );
      assert.equal((await history(ctx.app, bob)).length, 1);
      assert.ok((await lstat(join(aliceFolder, 'done', aliceDone.name))).isFile(), 'Alice’s file where it was');
      assert.equal((await history(ctx.app, alice)).length, 1);
    });

    it('works in no tenant folder that is a link, nor in one whose processing/ is a link to another tenant’s', async () => {
      const alice = await ctx.given.tenant();
      const bob = await ctx.given.tenant();
      const carol = await ctx.given.tenant();
      const aliceFolder = join(dropDir, alice.name);
      const bobFolder = join(dropDir, bob.name);
      // A claim of Alice's left by a process that died: the first look at a processing/ takes such claims over.
      await drop(
        join(aliceFolder, 'processing'),
        '20240501T093000Z-0000000d.deadbeef.users-left.csv',
        'name,email\nLeft,left@example.com\n',
      );
      // Carol's folder is a link to Alice's: followed, Alice's files would be imported into Carol's tenant.
      await symlink(aliceFolder, join(dropDir, carol.name));
      // Bob's processing/ is a link to Alice's: Bob's look would take over Alice's claims.
      await mkdir(bobFolder, { recursive: true });
      await symlink(join(aliceFolder, 'processing'), join(bobFolder, 'processing'));
      await drop(bobFolder, 'users.csv', 'name,email\nBob,bob@example.com\n', { old: true });
      await drop(aliceFolder, 'users.csv', USERS_CSV, { old: true });
      for (const file of ['users.csv', 'users-left.csv']) {
        const aliceDone = await waitForFinished(aliceFolder, 'done', file);
        assert.ok(aliceDone.result.status === 'imported');
        assert.equal(aliceDone.result.tenant, alice.name, file);
      }
      await sleep(INTERVAL_MS * 10);
      assert.deepEqual(await list(bobFolder), ['processing', 'users.csv'], 'Bob’s file left where it is');
      assert.deepEqual(await list(join(aliceFolder, 'processing')), []);
      for (const tenant of [bob, carol]) {
        const actors = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: tenant.headers });
        assert.deepEqual(actors.json(), [], tenant.name);
        assert.deepEqual(await history(ctx.app, tenant), [], tenant.name);
      }
      assert.equal((await history(ctx.app, alice)).length, 2, 'Alice’s files imported once each, into Alice’s tenant');
      // Put right, Bob's folder works again.
      await unlink(join(bobFolder, 'processing'));
      const bobDone = await waitForFinished(bobFolder, 'done', 'users.csv');
      assert.equal(bobDone.result.tenant, bob.name);
    });
  },
  dropSettings(dropDir),
);

describeEachBackend('The import folder after a crash', (ctx) => {
  /** A file claimed by a process that is gone: in processing/ under its claim, as `learnbase` names it. */
  async function leftOver(folder: string, claimId: string, file: string, content: string): Promise<void> {
    await mkdir(join(folder, 'processing'), { recursive: true });
    await writeFile(join(folder, 'processing', `${claimId}.deadbeef.${file}`), content);
  }

  it('imports at start-up a file a dead process claimed and did not import, once', async () => {
    const dir = newFolder('leftover');
    const tenant = await ctx.given.tenant();
    const folder = join(dir, tenant.name);
    await leftOver(folder, '20240501T093000Z-0000000a', 'users.csv', USERS_CSV);
    const app = await startApp(ctx.db, dir);
    try {
      const done = await waitForFinished(folder, 'done', 'users.csv');
      assert.equal(done.name, '20240501T093000Z-0000000a.users.csv');
      assert.ok(done.result.status === 'imported');
      assert.equal(done.result.summary.new, 2);
      await sleep(INTERVAL_MS * 5);
      assert.deepEqual(await list(join(folder, 'processing')), []);
      assert.equal((await history(ctx.app, tenant)).length, 1);
    } finally {
      await app.close();
    }
  });

  it('moves on at start-up a file a dead process imported and did not move, without importing it again', async () => {
    const dir = newFolder('leftover');
    const tenant = await ctx.given.tenant();
    const folder = join(dir, tenant.name);
    const summary = { rows: 2, new: 2, existing: 0, skipped: 0, errorCount: 0, warningCount: 0, errors: [], warnings: [] };
    const importedAt = new Date('2024-05-01T09:30:01.000Z');
    await insertDropFile(ctx.db, tenant.id, {
      claimId: '20240501T093000Z-0000000b',
      file: 'users.csv',
      kind: 'users',
      sha256: 'ab'.repeat(32),
      summary,
      importedAt,
    });
    await leftOver(folder, '20240501T093000Z-0000000b', 'users.csv', USERS_CSV);
    const app = await startApp(ctx.db, dir);
    try {
      const done = await waitForFinished(folder, 'done', 'users.csv');
      assert.deepEqual(done.result, {
        file: 'users.csv',
        tenant: tenant.name,
        kind: 'users',
        claim: '20240501T093000Z-0000000b',
        sha256: 'ab'.repeat(32),
        status: 'imported',
        importedAt: importedAt.toISOString(),
        summary,
      });
      assert.deepEqual(await history(ctx.app, tenant), []);
      const actors = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: tenant.headers });
      assert.deepEqual(actors.json(), []);
    } finally {
      await app.close();
    }
  });

  it('refuses unread, in failed/, a claim that is a link when it is opened (put in place of the file after the look)', async () => {
    const dir = newFolder('swapped');
    const tenant = await ctx.given.tenant();
    const folder = join(dir, tenant.name);
    // What a swap leaves: the claimed name is a link by the time the file is opened (O_NOFOLLOW refuses it).
    await mkdir(join(folder, 'processing'), { recursive: true });
    await symlink('/etc/passwd', join(folder, 'processing', '20240501T093000Z-0000000c.deadbeef.users.csv'));
    const app = await startApp(ctx.db, dir);
    try {
      const refused = await waitForFinished(folder, 'failed', 'users.csv');
      assert.deepEqual(refused.result, {
        file: 'users.csv',
        tenant: tenant.name,
        kind: 'users',
        claim: '20240501T093000Z-0000000c',
        status: 'refused',
        error: {
          code: 'identity.drop_not_regular_file',
          message:
            'users.csv is a symbolic link, not a regular file: the import folder takes regular files only, and read nothing of it ' +
            '(nor of what it may point at). Drop the file itself.',
        },
      });
      assert.ok((await lstat(join(folder, 'failed', refused.name))).isSymbolicLink(), 'the link moved, not what it points at');
      assert.deepEqual(await history(ctx.app, tenant), []);
      const actors = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: tenant.headers });
      assert.deepEqual(actors.json(), []);
    } finally {
      await app.close();
    }
  });

  it('finishes the import in flight when the app closes', async () => {
    const dir = newFolder('closing');
    const tenant = await ctx.given.tenant();
    const folder = join(dir, tenant.name);
    const users = Array.from({ length: 5_000 }, (_, n) => `Learner ${n},learner${n}@example.com`);
    const app = await startApp(ctx.db, dir, 0);
    await drop(folder, 'users.csv', `name,email\n${users.join('\n')}\n`);
    await waitFor('the claim', async () => ((await list(join(folder, 'processing'))).length > 0 ? true : undefined));
    await app.close();
    const done = await finished(folder, 'done');
    assert.equal(done.length, 1, 'the import was finished before the app closed');
    assert.ok(done[0].result.status === 'imported');
    assert.equal(done[0].result.summary.new, 5_000);
    assert.equal((await history(ctx.app, tenant)).length, 1);
  });
});

/** Two app instances on one database, as two processes: on PostgreSQL each with its own pool; PGlite is one process's. */
async function twoInstances(backend: (typeof BACKENDS)[number]['name']): Promise<{ dbs: [Database, Database]; dispose(): Promise<void> }> {
  if (backend === 'pglite') {
    const db = await openMigratedPglite();
    return { dbs: [db, db], dispose: () => db.close() };
  }
  const created = await createPostgresDatabase({ migrated: true });
  const dbs: [Database, Database] = [new PostgresDatabase(created.url, { max: 10 }), new PostgresDatabase(created.url, { max: 10 })];
  return {
    dbs,
    async dispose() {
      await Promise.all(dbs.map((db) => db.close()));
      await created.drop();
    },
  };
}

const importedClaims = async (db: Database, tenantId: string) =>
  (
    await db.query<{ runs: number; claims: number }>(
      `SELECT (SELECT count(*) FROM import_runs WHERE tenant_id = $1)::int AS runs,
              (SELECT count(*) FROM import_drop_files WHERE tenant_id = $1)::int AS claims`,
      [tenantId],
    )
  ).rows[0];

for (const backend of BACKENDS) {
  describe(`The import folder watched by two app instances [${backend.name}]`, () => {
    let dbs: [Database, Database];
    let dispose: () => Promise<void> = async () => {};
    before(async () => {
      ({ dbs, dispose } = await twoInstances(backend.name));
    });
    after(() => dispose());

    it('imports each of 20 files dropped at once exactly once', async () => {
      const dir = newFolder('race');
      const apps = [await startApp(dbs[0], dir, 0), await startApp(dbs[1], dir, 0)];
      try {
        const tenant = await new Given(apps[0], dbs[0]).tenant();
        const folder = join(dir, tenant.name);
        const files = Array.from({ length: 20 }, (_, n) => `users-${String(n).padStart(2, '0')}.csv`);
        await Promise.all(files.map((file, n) => drop(folder, file, `name,email\nLearner ${n},learner${n}@example.com\n`, { old: true })));
        const done = await waitFor('20 files in done/', async () => {
          const found = await finished(folder, 'done');
          return found.length === files.length ? found : undefined;
        });
        await sleep(INTERVAL_MS * 5);
        assert.deepEqual(done.map((entry) => entry.file).sort(), files);
        for (const entry of done) assert.ok(entry.result.status === 'imported' && entry.result.summary.new === 1, entry.name);
        assert.deepEqual(await importedClaims(dbs[0], tenant.id), { runs: 20, claims: 20 });
        assert.equal((await finished(folder, 'done')).length, 20);
        assert.deepEqual(await list(join(folder, 'processing')), []);
        assert.deepEqual((await list(folder)).sort(), ['done', 'processing']);
      } finally {
        await Promise.all(apps.map((app) => app.close()));
      }
    });

    // On PGlite (one connection) the second instance is ready only once the first's import has
    // committed: the two overlap on PostgreSQL only, where the claim's record lets one of them commit.
    it('imports once a file taken over at start-up while the process that claimed it is importing it', async () => {
      const dir = newFolder('race-live');
      const tenant = await new TenancyService(dbs[0], 0).create(`t-${randomBytes(5).toString('hex')}`);
      const folder = join(dir, tenant.name);
      // Long enough an import for the second instance to start during it; PGlite cannot overlap them anyway, so a shorter one there.
      const count = backend.name === 'pglite' ? 2_000 : 20_000;
      const users = Array.from({ length: count }, (_, n) => `Learner ${n},learner${n}@example.com`);
      const first = await startApp(dbs[0], dir, 0);
      let second: FastifyInstance | undefined;
      try {
        await drop(folder, 'users.csv', `name,email\n${users.join('\n')}\n`);
        await waitFor('the claim', async () => ((await list(join(folder, 'processing'))).length > 0 ? true : undefined));
        await sleep(200);
        second = await startApp(dbs[1], dir, 0);
        const done = await waitForFinished(folder, 'done', 'users.csv', 120_000);
        assert.ok(done.result.status === 'imported');
        assert.equal(done.result.summary.new, count);
        await sleep(INTERVAL_MS * 5);
        assert.deepEqual(await importedClaims(dbs[0], tenant.id), { runs: 1, claims: 1 });
        assert.deepEqual(await list(join(folder, 'processing')), []);
        assert.equal((await finished(folder, 'done')).length, 1);
      } finally {
        await Promise.all([first.close(), second?.close()]);
      }
    });

    it('imports once each of the files a dead process left claimed, when two instances start at once', async () => {
      const dir = newFolder('race-leftovers');
      const tenant = await new TenancyService(dbs[0], 0).create(`t-${randomBytes(5).toString('hex')}`);
      const folder = join(dir, tenant.name);
      await mkdir(join(folder, 'processing'), { recursive: true });
      const claims = Array.from({ length: 10 }, (_, n) => `20240501T093000Z-${n.toString(16).padStart(8, '0')}`);
      for (const [n, claim] of claims.entries()) {
        await writeFile(
          join(folder, 'processing', `${claim}.deadbeef.users-${n}.csv`),
          `name,email\nLearner ${n},learner${n}@example.com\n`,
        );
      }
      const apps = await Promise.all([startApp(dbs[0], dir, 0), startApp(dbs[1], dir, 0)]);
      try {
        const done = await waitFor('10 files in done/', async () => {
          const found = await finished(folder, 'done');
          return found.length === claims.length ? found : undefined;
        });
        await sleep(INTERVAL_MS * 5);
        assert.deepEqual(done.map((entry) => entry.name.slice(0, 25)).sort(), claims);
        assert.deepEqual(await importedClaims(dbs[0], tenant.id), { runs: 10, claims: 10 });
        assert.deepEqual(await list(join(folder, 'processing')), []);
      } finally {
        await Promise.all(apps.map((app) => app.close()));
      }
    });
  });
}

describe('The import folder of a server killed mid-import [pglite]', () => {
  const USERS = 30_000;

  it('imports the file once after a restart', async () => {
    const data = newFolder('killed-data');
    const dir = newFolder('killed');
    const env = {
      LEARNBASE_IMPORT_DROP_DIR: dir,
      LEARNBASE_IMPORT_DROP_INTERVAL_MS: '100',
      LEARNBASE_IMPORT_DROP_STABLE_MS: '0',
    };
    const serve = () => startCli(['serve', '--port', '0', '--data', data], env);
    const folder = join(dir, 'demo');
    const first = serve();
    after(() => first.kill('SIGKILL'));
    await waitForOutput(first, /learnbase is listening/);
    const users = Array.from({ length: USERS }, (_, n) => `Learner ${n},learner${n}@example.com,E${n}`);
    await drop(folder, 'users.csv', `name,email,employeeId\n${users.join('\n')}\n`);
    await waitFor('the claim', async () => ((await list(join(folder, 'processing'))).length > 0 ? true : undefined));
    // Inside the import: the file is being read, checked and written.
    await sleep(300);
    const killed = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGKILL');
    await killed;
    assert.deepEqual(await finished(folder, 'done'), [], 'the kill came after the import was done');
    assert.equal((await list(join(folder, 'processing'))).length, 1);

    const second = serve();
    after(() => second.kill('SIGKILL'));
    await waitForOutput(second, /learnbase is listening/);
    const done = await waitForFinished(folder, 'done', 'users.csv', 120_000);
    assert.ok(done.result.status === 'imported');
    assert.equal(done.result.summary.new, USERS);
    const stopped = new Promise((resolve) => second.once('exit', resolve));
    second.kill('SIGTERM');
    await stopped;

    const db = await PgliteDatabase.open(data);
    try {
      const { rows } = await db.query<{ runs: number; claims: number; actors: number }>(
        `SELECT (SELECT count(*) FROM import_runs WHERE kind = 'users')::int AS runs,
                (SELECT count(*) FROM import_drop_files)::int AS claims,
                (SELECT count(*) FROM actors a JOIN tenants t ON t.id = a.tenant_id WHERE t.name = 'demo')::int AS actors`,
      );
      assert.deepEqual(rows[0], { runs: 1, claims: 1, actors: USERS });
    } finally {
      await db.close();
    }
  });
});
