// Migrated databases for the tests, made once and copied: migrating a new database takes about a
// second on PGlite (most of it PGlite creating the empty database) and a tenth of one on
// PostgreSQL, and a run opens hundreds. Each template is named by TEMPLATE_KEY, so a change to the
// migrations makes a new one and the old ones are removed.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { backupDataFolder } from '../../src/platform/database/pglite-dump.js';
import { isAlive } from '../../src/platform/database/folder-lock.js';
import { MIGRATIONS_DIR, migrate, migrationFiles } from '../../src/platform/database/migrate.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';

/**
 * What a template depends on: the migration files migrate() applies (names and contents), the
 * code applying them, and the PGlite version (whose data folder format a dump is in).
 */
export const TEMPLATE_KEY = (() => {
  const hash = createHash('sha256');
  for (const name of migrationFiles()) hash.update(`${name}\0${readFileSync(join(MIGRATIONS_DIR, name), 'utf8')}\0`);
  hash.update(readFileSync(new URL('../../src/platform/database/migrate.ts', import.meta.url)));
  hash.update(readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url)));
  return hash.digest('hex').slice(0, 16);
})();

const PREFIX = 'learnbase-template-';

let folder: Promise<string> | undefined;

/**
 * The folder holding the migrated PGlite template: `data/`, a data folder (no server holds it), and
 * `data.tar.gz`, its backup. Made once per TEMPLATE_KEY under os.tmpdir(), where later runs find it;
 * each test process looks once. It is built under a name of its own and renamed into place, so of
 * two processes making it at once one wins and the other drops its copy, and a half-made template
 * (a process killed while making it) never has the name.
 */
export function pgliteTemplateFolder(): Promise<string> {
  folder ??= makePgliteTemplate();
  return folder;
}

async function makePgliteTemplate(): Promise<string> {
  const ready = join(tmpdir(), `${PREFIX}${TEMPLATE_KEY}`);
  if (existsSync(ready)) return ready;
  const building = `${ready}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building);
  try {
    const db = await PgliteDatabase.open(join(building, 'data'));
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
    await backupDataFolder(join(building, 'data'), join(building, 'data.tar.gz'), { force: false });
    renameSync(building, ready);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another process renamed its template into place first: use that one.
    if (existsSync(ready)) return ready;
    throw error;
  }
  removeOtherPgliteTemplates(ready);
  return ready;
}

/** Templates of other keys (older migrations), and copies left half-made by processes that have ended. */
function removeOtherPgliteTemplates(current: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX) || join(tmpdir(), name) === current) continue;
    const builder = /\.building-(\d+)$/.exec(name)?.[1];
    if (builder !== undefined && isAlive(Number(builder))) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

let dump: Promise<Blob> | undefined;

/** The migrated template as PgliteDatabase.load takes it: read and unzipped once per test process. */
function pgliteTemplateDump(): Promise<Blob> {
  dump ??= pgliteTemplateFolder().then(
    (ready) => new Blob([gunzipSync(readFileSync(join(ready, 'data.tar.gz')))], { type: 'application/x-tar' }),
  );
  return dump;
}

/** A new in-memory PGlite database, migrated: a copy of the template (about a third of the time of creating and migrating one). */
export async function openMigratedPglite(): Promise<PgliteDatabase> {
  return PgliteDatabase.load(await pgliteTemplateDump());
}

/**
 * Fills `folder` (new or empty) with a copy of the template's data folder: a migrated database that
 * no server holds. A command on an empty folder first spends about two seconds creating and
 * migrating its database; the tests whose subject is something else start from this copy.
 */
export async function copyMigratedDataFolder(folder: string): Promise<string> {
  cpSync(join(await pgliteTemplateFolder(), 'data'), folder, { recursive: true });
  return folder;
}
