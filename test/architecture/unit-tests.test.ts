import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The unit tier (`npm run test:unit`, test/support/run-tests.ts) is the tests beside the code in
 * src/: they need no database, no server and no build, so they run in seconds. This holds them to
 * it: a test in src/ imports the code it tests and libraries, never the test support of test/
 * (databases, apps, browsers), the app's assembly or a database opener. An HTTP suite lives in
 * test/.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const IMPORT = /\bfrom\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/g;

/** Files of src/ a unit test may not import: what builds the app or opens a database. */
const NOT_FOR_UNITS = [
  'server/app.ts',
  'server/main.ts',
  'platform/database/open-database.ts',
  'platform/database/pglite-client.ts',
  'platform/database/postgres-client.ts',
];

function unitTests(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => join(SRC, path));
}

/** What a test in src/ imports that a unit test may not: `file: specifier (why)`. */
function outsideTheTier(file: string, text = readFileSync(file, 'utf8')): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (!specifier.startsWith('.')) continue;
    const target = relative(SRC, resolve(dirname(file), specifier))
      .split('\\')
      .join('/')
      .replace(/\.js$/, '.ts');
    const where = relative(ROOT, file);
    if (target.startsWith('../')) problems.push(`${where}: ${specifier} (outside src/: an HTTP or database suite belongs in test/)`);
    else if (NOT_FOR_UNITS.includes(target)) problems.push(`${where}: ${specifier} (builds the app or opens a database)`);
  }
  return problems;
}

describe('the unit tier', () => {
  it('finds the tests of src/', () => {
    assert.ok(unitTests().length > 20, `${unitTests().length} test files in src/`);
  });

  it('every test in src/ needs no database, no server and nothing of test/', () => {
    assert.deepEqual(
      unitTests().flatMap((file) => outsideTheTier(file)),
      [],
    );
  });

  it('sees an import that leaves src/ or builds the app, and lets the code under test be', () => {
    const probe = join(SRC, 'modules', 'xapi', 'probe.test.ts');
    const text = [
      "import { describeEachBackend } from '../../../test/support/build-test-app.js';",
      "const { buildApp } = await import('../../server/app.js');",
      "import { parseMultipart } from '@remix-run/multipart-parser/node';",
      "import { readStatement } from './statements/statement-rules.js';",
    ].join('\n');
    assert.deepEqual(outsideTheTier(probe, text), [
      'src/modules/xapi/probe.test.ts: ../../../test/support/build-test-app.js (outside src/: an HTTP or database suite belongs in test/)',
      'src/modules/xapi/probe.test.ts: ../../server/app.js (builds the app or opens a database)',
    ]);
  });
});
