import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BuildContext, DeclaredModule, ModulePorts, Ports } from '../../src/kernel/module-declaration.js';
import type { NotifyBus } from '../../src/platform/database/notify-bus.js';
import type { SqlClient } from '../../src/platform/database/sql-client.js';
import { Admission } from '../../src/platform/http/admission.js';
import type { OutboundHttp } from '../../src/platform/outbound-http.js';
import { SecretBox } from '../../src/platform/secret-box.js';
import { buildOrder, collectPorts, type Composition, composeModules, MODULES } from '../../src/server/composition.js';
import { testConfig } from '../support/build-test-app.js';
import { openMigratedPglite } from '../support/templates.js';
import { documentedOwners, documentedPorts } from './architecture-page.js';

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

  it('are built bottom up: each after every module it needs', () => {
    const order = buildOrder().map((module) => module.name);
    for (const module of MODULES) {
      for (const need of module.needs) assert.ok(order.indexOf(need) < order.indexOf(module.name), `${need} before ${module.name}`);
    }
    assert.throws(
      () =>
        buildOrder([
          { ...MODULES[0]!, name: 'a', needs: ['b'] },
          { ...MODULES[0]!, name: 'b', needs: ['a'] },
        ]),
      /The modules need each other: a → b → a/,
    );
  });

  it('build without a database, a bus or a request: nothing runs until the server starts it', async () => {
    const composition = await composed();
    assert.deepEqual(
      [...composition.built.keys()],
      buildOrder().map((module) => module.name),
    );
  });

  it('fill the ports, and every port is collected from every module that fills one', async () => {
    const { built, ports } = await composed();
    const filling = (port: keyof ModulePorts) =>
      [...built].filter(([, module]) => module.fills?.[port] !== undefined).map(([name]) => name);
    assert.deepEqual(filling('personReach'), ['actors']);
    assert.equal(ports.personReach, built.get('actors')!.fills!.personReach);
    assert.deepEqual(filling('tenantEraser'), ['xapi'], 'xapi erases the statement keys and tallies');
    assert.equal(ports.tenantErasers.length, 1);
    assert.deepEqual(filling('peopleChanged'), ['learning']);
    assert.deepEqual(filling('statementProjection'), ['completions', 'learning']);
    // In the build order: learning's kept counts read the records completions' projection just wrote.
    assert.deepEqual(ports.statementProjections, [
      built.get('completions')!.fills!.statementProjection,
      built.get('learning')!.fills!.statementProjection,
    ]);
    assert.deepEqual(filling('activitiesChanged'), ['learning']);
    assert.deepEqual(ports.activitiesChanges, [built.get('learning')!.fills!.activitiesChanged]);
    assert.deepEqual(filling('launchTokens'), ['launch']);
    assert.equal(ports.launchTokens, built.get('launch')!.fills!.launchTokens);
    assert.deepEqual(filling('adminSignOn'), ['identity']);
    assert.deepEqual(filling('launchSignOn'), ['identity']);
    assert.deepEqual(
      ports.authenticationSchemes.map((scheme) => scheme.prefix),
      ['/scim/', '/hooks/hr/'],
    );
  });

  it('are the ports table of docs/architecture.md: every port the code knows, and the modules that fill it', async () => {
    const { built } = await composed();
    const filled = new Map<string, string[]>();
    for (const [name, module] of built) {
      for (const port of Object.keys(module.fills ?? {})) filled.set(port, [...(filled.get(port) ?? []), name]);
    }
    const documented = documentedPorts();
    assert.deepEqual([...documented.keys()].sort(), [...filled.keys()].sort(), 'the ports in the table are the ports filled');
    for (const [port, modules] of documented) assert.deepEqual([...modules].sort(), [...filled.get(port)!].sort(), port);
  });

  it('a port exactly one module must fill, filled by none or by two, stops the start; one at most one may fill, filled by two, too', () => {
    const reach = { personReach: { readableAgentKeys: async () => undefined } as unknown as ModulePorts['personReach'] };
    assert.throws(() => collectPorts([{ name: 'audit', fills: {} }]), /Exactly one module fills personReach; none do/);
    assert.throws(
      () =>
        collectPorts([
          { name: 'actors', fills: reach },
          { name: 'twin', fills: reach },
        ]),
      /actors, twin do/,
    );
    const tokens = {
      launchTokens: { isLaunchUsername: () => false, checkToken: async () => ({ valid: false as const, reason: 'unknown' as const }) },
    };
    assert.throws(
      () =>
        collectPorts([
          { name: 'actors', fills: reach },
          { name: 'launch', fills: tokens },
          { name: 'again', fills: tokens },
        ]),
      /At most one module fills launchTokens; launch, again do/,
    );
  });

  it('hand the builds ports that answer once every module is built, and refuse a use before that', async () => {
    let early: Ports | undefined;
    const probe: DeclaredModule = {
      name: 'probe',
      needs: [],
      build: ({ ports }) => {
        early = ports;
        return { services: undefined };
      },
    };
    await assert.rejects(
      composeModules(buildContext(), [
        {
          ...probe,
          build: ({ ports }) =>
            ports.peopleChanges.changed(NO_DATABASE, { id: 't', name: 't' }, { kind: 'everyone' }).then(() => ({ services: undefined })),
        },
      ]),
      /The port peopleChanges was used before every module was built/,
    );
    const composition = await composeModules(buildContext(), [...MODULES, probe]);
    assert.equal(early!.tenantErasers.length, composition.ports.tenantErasers.length);
    assert.equal(early!.launchTokens.isLaunchUsername('launch.00.x'), composition.ports.launchTokens.isLaunchUsername('launch.00.x'));
  });
});

/** A database, a bus and an outbound client that refuse every use: a build that reached one would fail. */
const refuse = (what: string) => () => {
  throw new Error(`a module's build used the ${what}`);
};
const NO_DATABASE: SqlClient = { query: refuse('database'), transaction: refuse('database'), script: refuse('database') };
const NO_BUS: NotifyBus = { publish: refuse('bus'), listen: refuse('bus'), close: refuse('bus') } as unknown as NotifyBus;

function buildContext(): Omit<BuildContext, 'ports'> {
  return {
    config: testConfig(),
    sql: NO_DATABASE,
    bus: NO_BUS,
    outbound: new Proxy({}, { get: refuse('outbound client') }) as OutboundHttp,
    secrets: new SecretBox(undefined),
    importAdmission: new Admission('imports', { perProcess: 1, perTenant: 1 }, 1),
    log: new Proxy({}, { get: refuse('log') }) as BuildContext['log'],
  };
}

let composition: Promise<Composition> | undefined;
const composed = () => (composition ??= composeModules(buildContext()));

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
    const { built } = await composed();
    const erasing = new Set([...built].filter(([, module]) => module.fills?.tenantEraser).map(([name]) => name));
    const left = tenantTables.filter((table) => !reached.has(table) && !erasing.has(owners.get(table) ?? ''));
    assert.deepEqual(left, []);
    assert.ok(
      tenantTables.some((table) => !reached.has(table)),
      'some tables are erased, not cascaded (xapi’s statement keys)',
    );
  });
});
