import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ModuleDeclaration } from '../../src/kernel/module-declaration.js';
import { collectPorts, MODULES } from '../../src/server/composition.js';
import { testConfig } from '../support/build-test-app.js';

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
