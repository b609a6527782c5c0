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

/** The ports table ("Declarations, ports and the composition root"): each port and the modules the page says fill it. */
export function documentedPorts(): Map<string, string[]> {
  const start = ARCHITECTURE.indexOf('| port | type (kernel/) | filled by | called by |');
  assert.ok(start >= 0, 'docs/architecture.md has the ports table');
  const ports = new Map<string, string[]>();
  for (const line of ARCHITECTURE.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [port, , filledBy] = line.split(' | ').map((cell) => cell.replace(/^\| /, ''));
    const name = /^`([A-Za-z]+)`$/.exec(port ?? '')?.[1];
    assert.ok(name, `a row of the ports table names its port in backticks: ${line.slice(0, 60)}`);
    // The modules named before their details: "identity: …", "actors (…)", "learning and launch (…)".
    const modules = (/^([a-z, ]+?)(?: \(|:|$)/.exec(filledBy ?? '')?.[1] ?? '').split(/,\s*|\s+and\s+/).filter(Boolean);
    assert.ok(!ports.has(name), `docs/architecture.md lists the port ${name} twice`);
    ports.set(name, modules);
  }
  return ports;
}
