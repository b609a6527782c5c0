import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ModuleDeclaration } from '../../src/kernel/module-declaration.js';
import { collectPorts, MODULES } from '../../src/server/composition.js';
import { testConfig } from '../support/build-test-app.js';
import { openMigratedPglite } from '../support/templates.js';
import { documentedOwners } from './architecture-page.js';

/**
 * docs/architecture.md, "Ports": every module is declared once in the composition root
 * (server/composition.ts), its declaration says which modules it needs, and that is what its files
 * import (the faces of other modules), no more, no less.
 */

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const FACE = /\bfrom\s+'([^']+)'/g;

/** The modules whose faces the files of `module` import (its tests left out). */
function facesImported(module: string): string[] {
  const folder = join(SRC, 'modules', module);
  const imported = new Set<string>();
  for (const path of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    if (!path.endsWith('.ts') || path.endsWith('.test.ts')) continue;
    const file = join(folder, path);
    for (const match of readFileSync(file, 'utf8').matchAll(FACE)) {
      if (!match[1].startsWith('.')) continue;
      const target = relative(join(SRC, 'modules'), resolve(dirname(file), match[1]))
        .split('\\')
        .join('/');
      const face = /^([^/]+)\/index\.js$/.exec(target);
      if (face && face[1] !== module) imported.add(face[1]);
    }
  }
  return [...imported].sort();
}

describe('the modules’ declarations', () => {
  it('declare every module of src/modules once, in the composition root', () => {
    assert.deepEqual(MODULES.map((module) => module.name).sort(), readdirSync(join(SRC, 'modules')).sort());
  });

  for (const module of MODULES) {
    it(`${module.name} needs exactly the modules whose faces it imports`, () => {
      assert.deepEqual([...module.needs].sort(), facesImported(module.name));
    });
  }

  it('the ports are collected from every declaration that fills one', () => {
    const ports = collectPorts(testConfig());
    assert.equal(ports.tenantErasers.length, MODULES.filter((module) => module.fills.tenantEraser).length);
    assert.ok(ports.tenantErasers.length >= 1, 'xapi erases the statement keys and tallies');
    assert.equal(ports.personReach, MODULES.find((module) => module.name === 'actors')?.fills.personReach);
  });

  it('a port exactly one module must fill, filled by none or by two, stops the start', () => {
    const none: ModuleDeclaration[] = MODULES.filter((module) => !module.fills.personReach);
    assert.throws(() => collectPorts(testConfig(), { modules: none }), /Exactly one module fills personReach; none do/);
    const actors = MODULES.find((module) => module.fills.personReach)!;
    assert.throws(() => collectPorts(testConfig(), { modules: [...MODULES, { ...actors, name: 'twin' }] }), /actors, twin do/);
  });
});

interface Schema {
  /** Every foreign key that deletes its rows with the rows it names: child → parent. */
  cascades: { child: string; parent: string }[];
  /** The tables with a `tenant_id` column. */
  tenantTables: string[];
}

let schema: Promise<Schema> | undefined;

/** The migrated schema's cascades and tenant tables, read once for the tests below. */
function readSchema(): Promise<Schema> {
  schema ??= (async () => {
    const db = await openMigratedPglite();
    try {
      const cascades = await db.query<{ child: string; parent: string }>(
        `SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent
           FROM pg_constraint c WHERE c.contype = 'f' AND c.confdeltype = 'c' AND c.conrelid <> c.confrelid ORDER BY 1, 2`,
      );
      const tenantTables = await db.query<{ name: string }>(
        `SELECT table_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'tenant_id' ORDER BY 1`,
      );
      return { cascades: cascades.rows, tenantTables: tenantTables.rows.map((row) => row.name) };
    } finally {
      await db.close();
    }
  })();
  return schema;
}

describe('what a deletion takes with it', () => {
  it('every cascade from another module’s table is named in the declaration of the module it deletes from', async () => {
    const owners = documentedOwners();
    const inSchema = new Map<string, Set<string>>();
    for (const { child, parent } of (await readSchema()).cascades) {
      const [own, other] = [owners.get(child), owners.get(parent)];
      if (parent === 'tenants' || own === other || own === undefined) continue;
      inSchema.set(own, new Set([...(inSchema.get(own) ?? []), parent]));
    }
    assert.ok(inSchema.size >= 1, 'the schema has cross-module cascades (learning’s members follow actors)');
    for (const module of MODULES) {
      assert.deepEqual([...(module.cascadesFrom ?? [])].sort(), [...(inSchema.get(module.name) ?? [])].sort(), module.name);
    }
  });

  it('every table of a tenant follows the tenant by cascades, or its module fills a tenant eraser', async () => {
    const owners = documentedOwners();
    const { cascades: links, tenantTables } = await readSchema();
    const reached = new Set(['tenants']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const { child, parent } of links) {
        if (reached.has(parent) && !reached.has(child)) {
          reached.add(child);
          grew = true;
        }
      }
    }
    const erasing = new Set(MODULES.filter((module) => module.fills.tenantEraser).map((module) => module.name));
    const left = tenantTables.filter((table) => !reached.has(table) && !erasing.has(owners.get(table) ?? ''));
    assert.deepEqual(left, []);
    assert.ok(
      tenantTables.some((table) => !reached.has(table)),
      'some tables are erased, not cascaded (xapi’s statement keys)',
    );
  });
});
