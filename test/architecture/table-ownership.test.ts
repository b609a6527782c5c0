import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openMigratedPglite } from '../support/templates.js';
import { ARCHITECTURE, documentedOwners } from './architecture-page.js';

/**
 * docs/architecture.md, "Tables and their one writer": every table is written by exactly one
 * module, the one the page names. This reads the SQL of every source file (INSERT INTO, UPDATE,
 * DELETE FROM: the project writes SQL keywords in capitals and table names in lower case) and
 * the page's list, and compares both with the tables the migrations make.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const WRITE = /\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+([a-z_][a-z0-9_]*)/g;

/** The owner a source file writes as: its module, or `platform`; undefined for the kernel and the entries. */
function ownerOf(file: string): string | undefined {
  const path = relative(SRC, file).split('\\').join('/');
  const module = /^modules\/([^/]+)\//.exec(path);
  if (module) return module[1];
  return path.startsWith('platform/') ? 'platform' : undefined;
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'))
    .map((path) => join(SRC, path));
}

/** table → the files that write it, grouped by owner. */
function writesInCode(): Map<string, Map<string | undefined, string[]>> {
  const writes = new Map<string, Map<string | undefined, string[]>>();
  for (const file of sourceFiles()) {
    for (const match of readFileSync(file, 'utf8').matchAll(WRITE)) {
      const byOwner = writes.get(match[1]) ?? new Map<string | undefined, string[]>();
      const files = byOwner.get(ownerOf(file)) ?? [];
      if (!files.includes(relative(ROOT, file))) files.push(relative(ROOT, file));
      byOwner.set(ownerOf(file), files);
      writes.set(match[1], byOwner);
    }
  }
  return writes;
}

/** The modules of the page's module table, in its order. */
function documentedModules(): string[] {
  const section = ARCHITECTURE.slice(ARCHITECTURE.indexOf('## The modules, bottom up'), ARCHITECTURE.indexOf('## Tables'));
  return [...section.matchAll(/^\| `([a-z]+)` \|/gm)].map((match) => match[1]);
}

async function tablesOfTheSchema(): Promise<string[]> {
  const db = await openMigratedPglite();
  try {
    const { rows } = await db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    return rows.map((row) => row.name);
  } finally {
    await db.close();
  }
}

describe('docs/architecture.md: one owner per table', () => {
  it('lists every table the migrations make, and only those', async () => {
    assert.deepEqual([...documentedOwners().keys()].sort(), await tablesOfTheSchema());
  });

  it('names as owners only modules that exist, or platform', () => {
    const modules = new Set(readdirSync(join(SRC, 'modules')));
    for (const [table, owner] of documentedOwners()) {
      assert.ok(owner === 'platform' || modules.has(owner), `${table}: its owner ${owner} is not a folder of src/modules`);
    }
  });

  it('has each table written by its owner alone', () => {
    const owners = documentedOwners();
    const problems: string[] = [];
    for (const [table, byOwner] of writesInCode()) {
      const owner = owners.get(table);
      if (owner === undefined) {
        problems.push(`${table} is written (${[...byOwner.values()].flat().join(', ')}) but docs/architecture.md names no owner`);
        continue;
      }
      for (const [writer, files] of byOwner) {
        if (writer !== owner) problems.push(`${table} belongs to ${owner} but ${files.join(', ')} (${writer ?? 'no module'}) writes it`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('finds the writes it looks for (the reading is not blind)', () => {
    const writes = writesInCode();
    assert.ok(writes.get('actors')?.has('actors'), 'the actors module writes actors');
    assert.ok(writes.get('xapi_statement_keys')?.has('xapi'), 'xapi writes its statement keys');
    assert.ok(writes.get('tenants')?.has('tenancy'), 'tenancy writes tenants');
  });
});

describe('docs/architecture.md: the modules', () => {
  it('lists every module folder once, in the order dependency-cruiser enforces', () => {
    const require = createRequire(import.meta.url);
    const cruiser = readFileSync(join(ROOT, '.dependency-cruiser.cjs'), 'utf8');
    const order = /const MODULES = \[([^\]]*)\]/.exec(cruiser)?.[1];
    assert.ok(order, '.dependency-cruiser.cjs has its MODULES list');
    const enforced = [...order.matchAll(/'([a-z]+)'/g)].map((match) => match[1]);
    assert.deepEqual(documentedModules(), enforced);
    assert.deepEqual([...enforced].sort(), readdirSync(join(SRC, 'modules')).sort());
    // The configuration loads (a syntax error there would otherwise only show in npm run lint).
    assert.ok(Array.isArray(require(join(ROOT, '.dependency-cruiser.cjs')).forbidden));
  });
});
