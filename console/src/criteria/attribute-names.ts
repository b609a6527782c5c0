import { useEffect, useState } from 'react';
import { api } from '../lib/api';
import type { CriteriaModel, ModelNode } from './criteria-model';

/** How long the catalogue read once serves every builder of the page (and the next pages). */
const KEPT_MS = 5 * 60_000;

let kept: { names: Promise<string[]>; at: number } | undefined;

/** The tenant's attribute names (GET /api/actors/attributes), read at most once in KEPT_MS; none when it cannot be read. */
function catalogue(): Promise<string[]> {
  if (kept === undefined || Date.now() - kept.at > KEPT_MS) {
    const names = api<{ attributes: { name: string }[] }>('GET', '/api/actors/attributes').then(
      (answer) => answer.attributes.map((entry) => entry.name),
      () => {
        kept = undefined;
        return [];
      },
    );
    kept = { names, at: Date.now() };
  }
  return kept.names;
}

const namesAttribute = (node: ModelNode): boolean =>
  node.type === 'group' ? node.children.some(namesAttribute) : node.field === 'attributes';

/**
 * The attribute names the criteria builder offers for `attributes.<name>`, asked for only once the
 * model holds such a condition: the catalogue reads every attribute of every person (most of a
 * second at 100,000 people on the embedded database, which answers one request at a time), so a
 * page that only lists people never waits behind it. A page whose own answer should come first
 * says when it has (`after`).
 */
export function useAttributeNames(model: CriteriaModel, after = true): string[] {
  const wanted = after && namesAttribute(model);
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    if (!wanted) return;
    let current = true;
    void catalogue().then((read) => current && setNames(read));
    return () => {
      current = false;
    };
  }, [wanted]);
  return names;
}
