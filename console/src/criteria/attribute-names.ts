import { useEffect, useState } from 'react';
import { api } from '../lib/api';
import { useSession } from '../lib/session';
import type { CriteriaModel, ModelNode } from './criteria-model';

/** How long the catalogue read once serves every builder of the tab (and its reloads). */
const KEPT_MS = 5 * 60_000;

let kept: { tenant: string; names: Promise<string[]>; at: number } | undefined;

/** The catalogue a reload of the tab found kept (sessionStorage), when it is the tenant's and fresh. */
function keptInTab(tenant: string): string[] | undefined {
  try {
    const stored = JSON.parse(sessionStorage.getItem('lb-attribute-names') ?? 'null') as {
      tenant: string;
      names: string[];
      at: number;
    } | null;
    return stored && stored.tenant === tenant && Date.now() - stored.at <= KEPT_MS ? stored.names : undefined;
  } catch {
    return undefined;
  }
}

/** The tenant's attribute names (GET /api/actors/attributes), read at most once in KEPT_MS; none when it cannot be read. */
function catalogue(tenant: string): Promise<string[]> {
  if (kept === undefined || kept.tenant !== tenant || Date.now() - kept.at > KEPT_MS) {
    const inTab = keptInTab(tenant);
    const names = inTab
      ? Promise.resolve(inTab)
      : api<{ attributes: { name: string }[] }>('GET', '/api/actors/attributes').then(
          (answer) => {
            const read = answer.attributes.map((entry) => entry.name);
            try {
              sessionStorage.setItem('lb-attribute-names', JSON.stringify({ tenant, names: read, at: Date.now() }));
            } catch {
              // A full or refused storage only means the next reload asks again.
            }
            return read;
          },
          () => {
            kept = undefined;
            return [];
          },
        );
    kept = { tenant, names, at: Date.now() };
  }
  return kept.names;
}

const namesAttribute = (node: ModelNode): boolean =>
  node.type === 'group' ? node.children.some(namesAttribute) : node.field === 'attributes';

/**
 * The attribute names the criteria builder offers for `attributes.<name>`, asked for only once the
 * model holds such a condition: the catalogue reads every attribute of every person (most of a
 * second at 100,000 people on the embedded database, which answers one request at a time), so a
 * page that only lists people never waits behind it, and a reload of the tab within five minutes
 * does not ask again. A page whose own answer should come first
 * says when it has (`after`).
 */
export function useAttributeNames(model: CriteriaModel, after = true): string[] {
  const tenant = useSession().tenant.name;
  const wanted = after && namesAttribute(model);
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    if (!wanted) return;
    let current = true;
    void catalogue(tenant).then((read) => current && setNames(read));
    return () => {
      current = false;
    };
  }, [wanted, tenant]);
  return names;
}
