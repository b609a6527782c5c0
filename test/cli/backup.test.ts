import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { buildApp } from '../../src/server/app.js';
import { migrate, MIGRATIONS_DIR } from '../../src/platform/database/migrate.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { testConfig } from '../support/build-test-app.js';
import { runCli, runCliProcess } from '../support/cli.js';
import { copyMigratedDataFolder } from '../support/templates.js';

// PGlite only: with PostgreSQL the commands refuse and name pg_dump / pg_restore (tested below).

const folders: string[] = [];
const newFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'learnbase-backup-'));
  folders.push(folder);
  return folder;
};
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

const STATE_URL =
  '/xapi/activities/state?activityId=https%3A%2F%2Fexample.com%2Fcourses%2Fintro' +
  '&agent=%7B%22mbox%22%3A%22mailto%3Alearner%40example.com%22%7D&stateId=bookmark';

interface Source {
  data: string;
  file: string;
  headers: Record<string, string>;
  statementId: string;
}

let source: Promise<Source> | undefined;
/** One folder with a tenant, an API key, a state document and a statement, backed up once for the tests that only read the backup. */
function backedUpSource(): Promise<Source> {
  source ??= (async () => {
    const data = await copyMigratedDataFolder(newFolder());
    assert.equal((await runCli(['tenant', 'create', 'acme', '--data', data])).code, 0);
    const created = await runCli(['apikey', 'create', '--tenant', 'acme', '--data', data, '--json']);
    assert.equal(created.code, 0, created.stderr);
    const { key, secret } = JSON.parse(created.stdout) as { key: string; secret: string };
    const headers = {
      authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
      'x-svc-tenant': 'acme',
      'x-experience-api-version': '1.0.3',
    };
    const statementId = await withApp(data, async (app) => {
      const put = await app.inject({ method: 'PUT', url: STATE_URL, headers, payload: { page: 3 } });
      assert.equal(put.statusCode, 204, put.body);
      const stored = await app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers,
        payload: {
          actor: { mbox: 'mailto:learner@example.com' },
          verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
          object: { id: 'https://example.com/courses/intro' },
        },
      });
      assert.equal(stored.statusCode, 200, stored.body);
      return (stored.json() as string[])[0];
    });
    const file = join(newFolder(), 'learnbase.tar.gz');
    const backup = await runCli(['backup', '--data', data, file, '--json']);
    assert.equal(backup.code, 0, backup.stderr);
    assert.deepEqual(JSON.parse(backup.stdout), { data, file, bytes: readFileSync(file).length });
    return { data, file, headers, statementId };
  })();
  return source;
}

async function withApp<T>(data: string, work: (app: Awaited<ReturnType<typeof buildApp>>) => Promise<T>): Promise<T> {
  const db = await PgliteDatabase.open(data);
  try {
    const app = await buildApp(testConfig(), db, { logger: false });
    try {
      return await work(app);
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}

async function tenantNames(data: string): Promise<string[]> {
  const db = await PgliteDatabase.open(data);
  try {
    const { rows } = await db.query<{ name: string }>('SELECT name FROM tenants ORDER BY name');
    return rows.map((row) => row.name);
  } finally {
    await db.close();
  }
}

describe('learnbase backup and restore [pglite]', () => {
  it('restores a backup into a new folder where the tenant, its key, documents and statements still work', async () => {
    const { file, headers, statementId } = await backedUpSource();
    assert.deepEqual([...readFileSync(file).subarray(0, 2)], [0x1f, 0x8b], 'the backup is gzip-compressed');
    assert.deepEqual(readdirSync(join(file, '..')), ['learnbase.tar.gz'], 'no partial file is left beside it');

    const target = join(newFolder(), 'restored');
    const restored = await runCli(['restore', '--data', target, file, '--json']);
    assert.equal(restored.code, 0, restored.stderr);
    assert.deepEqual(JSON.parse(restored.stdout), { file, data: target, applied: [], replaced: false });
    assert.deepEqual(readdirSync(target), ['pgdata'], 'no staging folder nor lock file is left');

    await withApp(target, async (app) => {
      const me = await app.inject({ method: 'GET', url: '/api/me', headers });
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().tenant.name, 'acme');
      const state = await app.inject({ method: 'GET', url: STATE_URL, headers });
      assert.equal(state.statusCode, 200);
      assert.deepEqual(state.json(), { page: 3 });
      const statement = await app.inject({ method: 'GET', url: `/xapi/statements?statementId=${statementId}`, headers });
      assert.equal(statement.statusCode, 200);
      assert.equal(statement.json().id, statementId);
      const wrong = await app.inject({ method: 'GET', url: '/api/me', headers: { ...headers, authorization: 'Basic bm9wZTpub3Bl' } });
      assert.equal(wrong.statusCode, 401, 'credentials are still checked');
    });
  });

  it('applies pending migrations to a backup made by an older version, and says so', async () => {
    const migrations = readdirSync(MIGRATIONS_DIR)
      .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name))
      .sort();
    const older = newFolder();
    for (const name of migrations.slice(0, -2)) writeFileSync(join(older, name), readFileSync(join(MIGRATIONS_DIR, name)));
    const data = newFolder();
    const db = await PgliteDatabase.open(data);
    try {
      await migrate(db, older);
    } finally {
      await db.close();
    }
    const file = join(newFolder(), 'old.tar.gz');
    assert.equal((await runCli(['backup', '--data', data, file])).code, 0);

    const target = newFolder();
    const restored = await runCli(['restore', '--data', target, file]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, new RegExp(`Applied ${migrations.slice(-2).join(', ')} \\(the backup came from an older version\\)`));
    const check = await PgliteDatabase.open(target);
    try {
      const { rows } = await check.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      assert.deepEqual(
        rows.map((row) => row.name),
        migrations,
      );
    } finally {
      await check.close();
    }
  });

  it('replaces the database in a non-empty folder only with --force', async () => {
    const { file } = await backedUpSource();
    const target = await copyMigratedDataFolder(newFolder());
    assert.equal((await runCli(['tenant', 'create', 'old', '--data', target])).code, 0);
    writeFileSync(join(target, 'notes.txt'), 'kept');

    const refused = await runCli(['restore', '--data', target, file]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /learnbase: The data folder .* is not empty \(.*pgdata.*\)\. Add --force to replace the database in it\./);
    assert.deepEqual(await tenantNames(target), ['old'], 'the refused restore changed nothing');

    const forced = await runCli(['restore', '--data', target, file, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /replacing the database that was there/);
    assert.deepEqual(await tenantNames(target), ['acme']);
    assert.deepEqual(readdirSync(target).sort(), ['notes.txt', 'pgdata'], 'other files stay; nothing of the swap is left');
  });

  it('refuses both while another process holds the folder, and changes nothing', async () => {
    const { file } = await backedUpSource();
    const data = await copyMigratedDataFolder(newFolder());
    assert.equal((await runCli(['tenant', 'create', 'held', '--data', data])).code, 0);
    const out = join(newFolder(), 'held.tar.gz');
    const holder = await PgliteDatabase.open(data);
    try {
      const backup = await runCliProcess(['backup', '--data', data, out]);
      assert.equal(backup.code, 1);
      assert.match(backup.stderr, /in use by another learnbase process \(pid \d+\)/);
      assert.equal(existsSync(out), false);
      assert.deepEqual(readdirSync(join(out, '..')), [], 'no partial file either');

      const restore = await runCliProcess(['restore', '--data', data, file, '--force']);
      assert.equal(restore.code, 1);
      assert.match(restore.stderr, /in use by another learnbase process/);
      const { rows } = await holder.query<{ name: string }>('SELECT name FROM tenants');
      assert.deepEqual(
        rows.map((row) => row.name),
        ['held'],
      );
    } finally {
      await holder.close();
    }
    assert.equal((await runCli(['backup', '--data', data, out])).code, 0, 'once the folder is free, it is backed up');
  });

  it('refuses to overwrite an existing FILE without --force', async () => {
    const { data } = await backedUpSource();
    const folder = newFolder();
    const file = join(folder, 'precious.tar.gz');
    writeFileSync(file, 'precious');
    const refused = await runCli(['backup', '--data', data, file]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /precious\.tar\.gz already exists\. Add --force to replace it\./);
    assert.equal(readFileSync(file, 'utf8'), 'precious');

    const forced = await runCli(['backup', '--data', data, file, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /^Backed up .* to .*precious\.tar\.gz \(\d+ bytes\)\.\n$/);
    assert.deepEqual([...readFileSync(file).subarray(0, 2)], [0x1f, 0x8b]);
    assert.deepEqual(readdirSync(folder), ['precious.tar.gz']);
  });

  it('refuses a missing FILE and files that are not PGlite backups, leaving the target untouched', async () => {
    const { file } = await backedUpSource();
    const scratch = newFolder();
    const target = await copyMigratedDataFolder(newFolder());
    assert.equal((await runCli(['tenant', 'create', 'old', '--data', target])).code, 0);
    const whole = readFileSync(file);
    const cases: Array<[string, Buffer | undefined, RegExp]> = [
      ['missing.tar.gz', undefined, /The backup file .*missing\.tar\.gz does not exist\./],
      ['notes.txt', Buffer.from('not a backup\n'), /is not a PGlite backup \(not a tar archive\); nothing was changed\./],
      ['cut.tar.gz', whole.subarray(0, whole.length >> 1), /is not a PGlite backup \(a damaged gzip file: .*\)/],
      ['other.tar.gz', gzipSync(tarOf({ 'hello.txt': 'hi' })), /is not a PGlite backup \(no PG_VERSION in it\)/],
    ];
    for (const [name, content, message] of cases) {
      const path = join(scratch, name);
      if (content) writeFileSync(path, content);
      const fresh = join(scratch, `${name}.target`);
      const intoNew = await runCli(['restore', '--data', fresh, path]);
      assert.equal(intoNew.code, 1, name);
      assert.match(intoNew.stderr, message, name);
      assert.equal(existsSync(fresh), false, `${name}: no folder is created`);
      const intoOld = await runCli(['restore', '--data', target, path, '--force']);
      assert.equal(intoOld.code, 1, name);
      assert.match(intoOld.stderr, message, name);
    }
    assert.deepEqual(await tenantNames(target), ['old']);
    assert.deepEqual(readdirSync(target), ['pgdata']);
  });

  it("refuses a PGlite database that is not learnbase's, leaving the target untouched", async () => {
    const foreign = await PGlite.create();
    const file = join(newFolder(), 'foreign.tar.gz');
    try {
      await foreign.exec('CREATE TABLE t (x int)');
      writeFileSync(file, Buffer.from(await (await foreign.dumpDataDir('gzip')).arrayBuffer()));
    } finally {
      await foreign.close();
    }
    const target = join(newFolder(), 'target');
    const refused = await runCli(['restore', '--data', target, file]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /holds a PGlite database, but not a learnbase one \(no schema_migrations table\)/);
    assert.equal(existsSync(target), false);
  });

  it('refuses a backup of a folder with no database, and bad usage', async () => {
    const empty = newFolder();
    const out = join(newFolder(), 'x.tar.gz');
    const nothing = await runCli(['backup', '--data', empty, out]);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /There is no learnbase database in .* \(no pgdata folder in it\)\./);
    assert.equal(existsSync(out), false);
    const noFile = await runCli(['backup', '--data', empty]);
    assert.equal(noFile.code, 2);
    assert.match(noFile.stderr, /Expected: learnbase backup --data DIR FILE \[--force\]/);
    const twoFiles = await runCli(['restore', '--data', empty, 'a', 'b']);
    assert.equal(twoFiles.code, 2);
  });

  it('refuses --database and names the pg_dump / pg_restore commands', async () => {
    const url = 'postgres://127.0.0.1:5432/test';
    const backup = await runCli(['backup', '--database', url, 'learnbase.dump']);
    assert.equal(backup.code, 2);
    assert.equal(
      backup.stderr,
      'learnbase: backup is for the embedded database (--data DIR). For PostgreSQL use pg_dump:\n' +
        '  pg_dump --format=custom --file=learnbase.dump "$DATABASE_URL"\n',
    );
    const restore = await runCli(['restore', '--data', newFolder(), 'my backup.dump'], { DATABASE_URL: url });
    assert.equal(restore.code, 1, 'an explicit --data wins over DATABASE_URL: a PGlite restore, of a missing file');
    assert.match(restore.stderr, /does not exist/);
    const fromEnv = await runCli(['restore', 'my backup.dump'], { DATABASE_URL: url });
    assert.equal(fromEnv.code, 2);
    assert.match(
      fromEnv.stderr,
      /For PostgreSQL use pg_restore:\n {2}pg_restore --clean --if-exists --no-owner --dbname="\$DATABASE_URL" 'my backup\.dump'\n$/,
    );
  });
});

/** A minimal ustar archive of regular files, for a valid tar that is not a PGlite folder. */
function tarOf(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, text] of Object.entries(files)) {
    const body = Buffer.from(text);
    const header = Buffer.alloc(512);
    header.write(name, 0);
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write('0', 156);
    header.write('ustar\x0000', 257);
    header.fill(0x20, 148, 156);
    const sum = header.reduce((total, byte) => total + byte, 0);
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
