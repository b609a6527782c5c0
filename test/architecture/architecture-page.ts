import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** docs/architecture.md, as the architecture tests read it. */
export const ARCHITECTURE = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');

/** The page's table → owner list ("Tables and their one writer"). */
export function documentedOwners(): Map<string, string> {
  const section = ARCHITECTURE.slice(ARCHITECTURE.indexOf('## Tables and their one writer'));
  const owners = new Map<string, string>();
  for (const [, table, owner] of section.matchAll(/^\| `([a-z_0-9]+)` \| ([a-z]+) \|$/gm)) {
    assert.ok(!owners.has(table), `docs/architecture.md lists ${table} twice`);
    owners.set(table, owner);
  }
  return owners;
}
