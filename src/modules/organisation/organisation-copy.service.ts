import { TtlCache } from '../../platform/cache.js';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { type EntryTree, entryTree } from './organisation-tree.js';
import { findAllJobs, findAllOrganisationEntries, findVersion, type Job, type OrgEntry } from './organisation.repository.js';

/** A tenant's organisation structure as the reports walk it (entryTree). Read-only: every caller of a tenant shares it. */
export type Structure = EntryTree<OrgEntry>;

/** One tenant's copy: the version it was read at, and what of it was read so far. */
interface Copy {
  version: string;
  structure?: Structure;
  jobs?: readonly Job[];
}

/**
 * The copies this process keeps of the tenants' structures and jobs, each checked against the
 * tenant's version (one row, migration 0046) at every read: a replacement committed by any
 * process is seen by the next read, as when the entries are read every time. A version is random
 * and set anew by every replacement, so a copy read inside a transaction that then rolled back
 * never matches again. The lifetime only frees the memory of tenants nobody reads.
 */
const copies = new TtlCache<Copy>(10 * 60_000, { maxEntries: 200, name: 'organisation' });

/** The tenant's copy at its version now: kept, or a new empty one. */
async function currentCopy(sql: SqlClient, tenantId: string): Promise<Copy> {
  // The version first, then what it versions: a replacement committed in between is read with the
  // older version, and the next read replaces it.
  const version = await findVersion(sql, tenantId);
  const kept = copies.get(tenantId);
  if (kept?.version === version) return kept;
  const copy: Copy = { version };
  copies.set(tenantId, copy);
  return copy;
}

/** The tenant's whole organisation structure, from this process's copy when it is current. */
export async function organisationStructure(sql: SqlClient, tenantId: string): Promise<Structure> {
  const copy = await currentCopy(sql, tenantId);
  copy.structure ??= entryTree(await findAllOrganisationEntries(sql, tenantId));
  return copy.structure;
}

/** The tenant's jobs in import order, from this process's copy when it is current. */
export async function organisationJobs(sql: SqlClient, tenantId: string): Promise<readonly Job[]> {
  const copy = await currentCopy(sql, tenantId);
  copy.jobs ??= await findAllJobs(sql, tenantId);
  return copy.jobs;
}

/**
 * The entries of `structure` at and below `rootId`, in import order (empty when there is no such
 * entry). Each entry is reached once, so even data with a cycle (imports refuse them) ends.
 */
export function subtreeOf(structure: Structure, rootId: string): OrgEntry[] {
  const root = structure.index.get(rootId);
  if (root === undefined) return [];
  const { entries } = structure;
  const children = childLists(structure);
  const reached = new Uint8Array(entries.length);
  const below: number[] = [];
  const stack = [root];
  reached[root] = 1;
  while (stack.length > 0) {
    const at = stack.pop() as number;
    below.push(at);
    for (let child = children.first[at]; child !== -1; child = children.next[child]) {
      if (reached[child] === 0) {
        reached[child] = 1;
        stack.push(child);
      }
    }
  }
  return below.sort((a, b) => a - b).map((i) => entries[i]);
}

/** Each entry's first child and next sibling (-1 for none), made once per structure. */
const childrenOf = new WeakMap<Structure, { first: Int32Array; next: Int32Array }>();

function childLists(structure: Structure): { first: Int32Array; next: Int32Array } {
  let lists = childrenOf.get(structure);
  if (lists === undefined) {
    const { parents } = structure;
    const first = new Int32Array(parents.length).fill(-1);
    const next = new Int32Array(parents.length).fill(-1);
    for (let i = parents.length - 1; i >= 0; i--) {
      const parent = parents[i];
      if (parent === -1) continue;
      next[i] = first[parent];
      first[parent] = i;
    }
    lists = { first, next };
    childrenOf.set(structure, lists);
  }
  return lists;
}
