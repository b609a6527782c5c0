/**
 * An organisation structure's entries as indexes: what a walk of the tree (a report's roll-up,
 * its depth, a subtree) steps through without a Map lookup per step. Pure: no database.
 */

/**
 * Each entry's parent's index, -1 for a root of the list (an entry whose parent is not among
 * them). `index`: each entry's index by id, when the caller has it already.
 */
export function parentIndexes(
  entries: ReadonlyArray<{ id: string; parentId?: string }>,
  index: ReadonlyMap<string, number> = new Map(entries.map((entry, i) => [entry.id, i])),
): Int32Array {
  const parents = new Int32Array(entries.length);
  entries.forEach((entry, i) => {
    parents[i] = entry.parentId === undefined ? -1 : (index.get(entry.parentId) ?? -1);
  });
  return parents;
}

/**
 * Each entry's level below the top of the list (0 for a root; an entry on a cycle, which imports
 * refuse, counts from where its walk up meets itself). Each entry is walked once.
 */
export function entryLevels(parents: Int32Array): Int32Array {
  const levels = new Int32Array(parents.length).fill(-1);
  const passed = new Int32Array(parents.length).fill(-1);
  const chain: number[] = [];
  for (let i = 0; i < parents.length; i++) {
    chain.length = 0;
    let at = i;
    while (at !== -1 && levels[at] === -1 && passed[at] !== i) {
      passed[at] = i;
      chain.push(at);
      at = parents[at];
    }
    let level = at !== -1 && levels[at] !== -1 ? levels[at] + 1 : 0;
    for (let k = chain.length - 1; k >= 0; k--) levels[chain[k]] = level++;
  }
  return levels;
}

/**
 * The entries' indexes deepest level first (each entry after every entry below it), for a sum up
 * the tree in one pass; undefined when the parents have a cycle (imports refuse them), whose
 * entries' levels do not go down from parent to child.
 */
export function deepestFirst(parents: Int32Array, levels: Int32Array): Int32Array | undefined {
  for (let i = 0; i < parents.length; i++) {
    if (parents[i] !== -1 && levels[parents[i]] !== levels[i] - 1) return undefined;
  }
  return Int32Array.from(parents.keys()).sort((a, b) => levels[b] - levels[a]);
}

/**
 * Entries as a tree of indexes: each one's index by id, its parent's index (-1 for an entry whose
 * parent is not among them: a root of the list), its level below the top, and the indexes deepest
 * first (undefined when the parents have a cycle). What a report's roll-up, depth and page walk.
 */
export interface EntryTree<Entry extends { id: string; parentId?: string }> {
  readonly entries: readonly Entry[];
  readonly index: ReadonlyMap<string, number>;
  readonly parents: Int32Array;
  readonly levels: Int32Array;
  readonly order: Int32Array | undefined;
}

/** `entries` (a whole structure, a subtree, a scoped principal's entries) as a tree of their own. */
export function entryTree<Entry extends { id: string; parentId?: string }>(entries: readonly Entry[]): EntryTree<Entry> {
  const index = new Map(entries.map((entry, i) => [entry.id, i]));
  const parents = parentIndexes(entries, index);
  const levels = entryLevels(parents);
  return { entries, index, parents, levels, order: deepestFirst(parents, levels) };
}
