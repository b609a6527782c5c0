import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * docs/architecture.md, "Layers, bottom up": every principal is minted by auth, the request's by its
 * hook and the others by auth's principals.ts (one operator for the command line and the import
 * folder). This refuses an object that makes a principal (`kind: '<a principal kind>'` next to its
 * `tenant`) anywhere else in src/.
 */

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const KINDS = ['admin', 'api_key', 'actor', 'launch', 'operator', 'scim', 'hr_webhook', 'sso'];
const MINTED = new RegExp(`kind:\\s*'(?:${KINDS.join('|')})'\\s*,\\s*tenant\\b`);

/** Where `text` (a file at `path`) makes a principal: `path:line`. */
function mintings(path: string, text: string): string[] {
  return text.split('\n').flatMap((line, index) => (MINTED.test(line) ? [`${path}:${index + 1}`] : []));
}

describe('principals', () => {
  it('are minted only in auth', () => {
    const outside = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.split(/[\\/]/).join('/').startsWith('modules/auth/'))
      .flatMap((path) => mintings(path, readFileSync(join(SRC, path), 'utf8')));
    assert.deepEqual(outside, []);
  });

  it('are seen when made by hand', () => {
    const text = ["const p: Principal = { kind: 'operator', tenant, id: 'cli:me' };", "signIns.inc({ kind: 'admin' });"].join('\n');
    assert.deepEqual(mintings('cli/x.ts', text), ['cli/x.ts:1']);
  });
});
