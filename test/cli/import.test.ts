import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { POSTGRES_AVAILABLE, createPostgresDatabase } from '../support/backends.js';
import { runCli } from '../support/cli.js';
import { copyMigratedDataFolder } from '../support/templates.js';

const folder = mkdtempSync(join(tmpdir(), 'learnbase-import-cli-'));
after(() => rmSync(folder, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
};

const USERS_CSV = 'name,email,employeeId\nAda Lovelace,ada@example.com,E1\n"Hopper, Grace",grace@example.com,E2\n';
const USERS_JSON = JSON.stringify({
  users: [
    { name: 'Ada Lovelace', attributes: { email: 'ada@example.com', employeeId: 'E1' } },
    { name: 'Hopper, Grace', attributes: { email: 'grace@example.com', employeeId: 'E2' } },
  ],
});

/** The same command-line cases on a PGlite folder and, when there is one, a PostgreSQL database. */
const storages: Array<{
  name: string;
  open(): Promise<{ flags: string[]; count(sql: string): Promise<number>; dispose(): Promise<void> }>;
}> = [
  {
    name: 'pglite',
    async open() {
      const data = await copyMigratedDataFolder(mkdtempSync(join(folder, 'data-')));
      const count = async (sql: string) => {
        const db = await PgliteDatabase.open(data);
        try {
          return Number((await db.query<{ n: number }>(sql)).rows[0].n);
        } finally {
          await db.close();
        }
      };
      return { flags: ['--data', data], count, dispose: async () => {} };
    },
  },
  ...(POSTGRES_AVAILABLE
    ? [
        {
          name: 'postgres',
          async open() {
            const created = await createPostgresDatabase();
            const { PostgresDatabase } = await import('../../src/platform/database/postgres-client.js');
            const count = async (sql: string) => {
              const db = new PostgresDatabase(created.url, { max: 1 });
              try {
                return Number((await db.query<{ n: number }>(sql)).rows[0].n);
              } finally {
                await db.close();
              }
            };
            return { flags: ['--database', created.url], count, dispose: created.drop };
          },
        },
      ]
    : []),
];

for (const storage of storages) {
  describe(`learnbase import [${storage.name}]`, () => {
    let flags: string[] = [];
    let count: (sql: string) => Promise<number>;
    let dispose = async () => {};
    before(async () => {
      const opened = await storage.open();
      ({ flags, count, dispose } = opened);
      const created = await runCli(['tenant', 'create', 'acme', ...flags]);
      assert.equal(created.code, 0, created.stderr);
    });
    after(() => dispose());

    it('checks users with --verify and writes nothing but the history, then imports them from CSV (exit 0)', async () => {
      const verified = await runCli(['import', 'users', '--tenant', 'acme', file('users.csv', USERS_CSV), '--verify', '--json', ...flags]);
      assert.equal(verified.code, 0, verified.stderr);
      assert.deepEqual(JSON.parse(verified.stdout), {
        rows: 2,
        new: 2,
        existing: 0,
        skipped: 0,
        errorCount: 0,
        warningCount: 0,
        errors: [],
        warnings: [],
      });
      assert.equal(await count('SELECT count(*) AS n FROM actors WHERE attributes IS NOT NULL'), 0);
      assert.match(verified.stderr, /checking 2 users/, 'progress lines when not on a terminal');

      const imported = await runCli(['import', 'users', '--tenant', 'acme', join(folder, 'users.csv'), ...flags]);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /Imported 2 rows into "acme": 2 new, 0 existing, 0 skipped/);
      assert.equal(await count('SELECT count(*) AS n FROM actors WHERE attributes IS NOT NULL'), 2);
      assert.equal(await count("SELECT count(*) AS n FROM import_runs WHERE kind = 'users' AND principal_kind = 'operator'"), 2);
    });

    it('gives the same summary for the same users as JSON, now all existing', async () => {
      const again = await runCli(['import', 'users', '--tenant', 'acme', file('users.json', USERS_JSON), '--json', ...flags]);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(JSON.parse(again.stdout), {
        rows: 2,
        new: 0,
        existing: 2,
        skipped: 0,
        errorCount: 0,
        warningCount: 0,
        errors: [],
        warnings: [],
      });
      assert.equal(await count('SELECT count(*) AS n FROM actors WHERE attributes IS NOT NULL'), 2);
    });

    it('exits 1 when rows were skipped, naming them', async () => {
      const skipped = await runCli([
        'import',
        'users',
        '--tenant',
        'acme',
        file('skips.csv', 'name,email\n,nameless@example.com\nCleo,cleo@example.com\n'),
        ...flags,
      ]);
      assert.equal(skipped.code, 1, skipped.stderr);
      assert.match(skipped.stdout, /1 new, 0 existing, 1 skipped/);
      assert.match(skipped.stdout, /error +row 1: missing_name/);
    });

    it('reads a CSV file in the charset --charset names; without it, a row that is not UTF-8 is that row’s error (issue 24)', async () => {
      const latin1 = join(folder, `latin1-${flags.join('').length}.csv`);
      writeFileSync(latin1, Buffer.from('name,email,city\r\nZo\xeb,zoe@example.com,Z\xfcrich\r\n', 'latin1'));
      const unread = await runCli(['import', 'users', '--tenant', 'acme', latin1, ...flags]);
      assert.equal(unread.code, 1, unread.stderr);
      assert.match(unread.stdout, /error +row 1: invalid_encoding/);
      const read = await runCli(['import', 'users', '--tenant', 'acme', latin1, '--charset', 'iso-8859-1', '--json', ...flags]);
      assert.equal(read.code, 0, read.stderr);
      assert.equal(JSON.parse(read.stdout).new, 1);
      assert.equal(await count("SELECT count(*) AS n FROM actors WHERE attributes ->> 'city' = 'Z\u00fcrich' AND name = 'Zo\u00eb'"), 1);
      const refused = await runCli(['import', 'users', '--tenant', 'acme', latin1, '--charset', 'utf-16', ...flags]);
      assert.equal(refused.code, 2, refused.stderr);
    });

    it('imports organisation and jobs from JSON', async () => {
      const organisation = await runCli([
        'import',
        'organisation',
        '--tenant',
        'acme',
        file('org.json', '[{"id":"P1"},{"id":"P2","parentId":"P1"}]'),
        ...flags,
      ]);
      assert.equal(organisation.code, 0, organisation.stderr);
      assert.match(organisation.stdout, /Imported 2 organisation entries/);
      const jobs = await runCli([
        'import',
        'jobs',
        '--tenant',
        'acme',
        file('jobs.json', '[{"id":"J1","name":"Engineer","competencies":[{"Name":"Rust","Description":"Systems"}]}]'),
        ...flags,
      ]);
      assert.equal(jobs.code, 0, jobs.stderr);
      assert.equal(await count('SELECT count(*) AS n FROM organisation_entries'), 2);
      assert.equal(await count('SELECT count(*) AS n FROM jobs'), 1);
    });

    it('checks an organisation or jobs file with --verify: the summary, nothing replaced but a history line (exit 0)', async () => {
      const runsBefore = await count('SELECT count(*) AS n FROM import_runs');
      const organisation = await runCli([
        'import',
        'organisation',
        '--tenant',
        'acme',
        file('org-next.json', '[{"id":"P1"},{"id":"P3","parentId":"P1"}]'),
        '--verify',
        ...flags,
      ]);
      assert.equal(organisation.code, 0, organisation.stderr);
      assert.match(
        organisation.stdout,
        /Checked 2 organisation entries for "acme": 1 new, 1 removed, 0 changed, 1 unchanged; 0 people linked, 0 would lose their position\. Nothing was imported\./,
      );
      assert.match(organisation.stdout, /new: P3\n {2}removed: P2/);
      assert.match(organisation.stderr, /checking 2 organisation entries/);

      const jobs = await runCli([
        'import',
        'jobs',
        '--tenant',
        'acme',
        file('jobs-next.json', '[{"id":"J1","name":"Engineer","competencies":[{"Name":"rust"},{"Name":"Go"}]}]'),
        '--verify',
        '--json',
        ...flags,
      ]);
      assert.equal(jobs.code, 0, jobs.stderr);
      assert.deepEqual(JSON.parse(jobs.stdout), {
        verify: true,
        entries: 1,
        added: 0,
        removed: 0,
        changed: 1,
        unchanged: 0,
        people: { linked: 0, unlinked: 0 },
        competencies: { added: 1 },
        examples: { added: [], removed: [], changed: ['J1'], unlinked: [], competencies: ['Go'] },
      });
      assert.equal(await count("SELECT count(*) AS n FROM organisation_entries WHERE id = 'P2'"), 1, 'nothing replaced');
      assert.equal(await count("SELECT count(*) AS n FROM competencies WHERE name = 'Go'"), 0);
      assert.equal(await count("SELECT count(*) AS n FROM import_runs WHERE verify AND kind <> 'users'"), 2);
      assert.equal(await count('SELECT count(*) AS n FROM import_runs'), runsBefore + 2);

      const refused = await runCli([
        'import',
        'organisation',
        '--tenant',
        'acme',
        file('org-bad.json', '[{"id":"P1","parentId":"P9"}]'),
        '--verify',
        ...flags,
      ]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stdout, /names no entry of this import/);
    });

    it('exits 2 for a refused file, an unknown tenant or a missing file, and changes nothing', async () => {
      const before = await count('SELECT count(*) AS n FROM import_runs');
      for (const [args, message] of [
        [['users', '--tenant', 'acme', file('bad.json', '{"users": 3}')], /"users" must be an array/],
        [['users', '--tenant', 'acme', file('broken.json', '{"users": [')], /not valid JSON/],
        [['users', '--tenant', 'acme', file('broken.csv', 'name,email\n"Ada,a@example.com\n')], /CSV cannot be read/],
        [
          ['organisation', '--tenant', 'acme', file('cycle.json', '[{"id":"P1","parentId":"P2"},{"id":"P2","parentId":"P1"}]')],
          /nothing was imported/,
        ],
        [['users', '--tenant', 'nobody', join(folder, 'users.csv')], /nobody/],
        [['users', '--tenant', 'acme', join(folder, 'absent.csv')], /Cannot read/],
      ] as const) {
        const refused = await runCli(['import', ...args, ...flags]);
        assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stdout}${refused.stderr}`);
        assert.match(refused.stdout, message);
      }
      assert.equal(await count('SELECT count(*) AS n FROM organisation_entries'), 2);
      assert.equal(await count('SELECT count(*) AS n FROM import_runs'), before);
      const unreachable = await runCli([
        'import',
        'users',
        '--tenant',
        'acme',
        join(folder, 'users.csv'),
        '--database',
        'postgres://postgres@127.0.0.1:1/none',
      ]);
      assert.equal(unreachable.code, 3, 'a failure of the command itself is not "rows skipped"');
      const usage = await runCli(['import', 'people', '--tenant', 'acme', join(folder, 'users.csv'), ...flags]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /import users\|organisation\|jobs/);
    });
  });
}
