import { textProblem } from '../../platform/json-guard.js';
import type { OrgEntry } from './organisation.repository.js';

/**
 * The rules of an organisation import (`PUT /api/import/organisation`, interface 2.4): pure
 * functions from the parsed body to either the entries to store or every problem found. The
 * import is all or nothing, so the caller gets the whole list of problems at once, one per entry
 * and field, rather than the first.
 */

/** One reason an entry is refused; `index` is the entry's 0-based position in the array. */
export interface ImportProblem {
  index: number;
  /** The entry's id, when it has a usable one. */
  id?: string;
  problem: string;
}

/** The entries to store, or why not: every entry's problems, or `body` when the body is not an array at all. */
export type ImportCheck<T> = { ok: true; value: T } | { ok: false; problems: ImportProblem[]; body?: string };

/** Ids are 1 to 255 characters (Unicode code points): enough for any position or job code, and short enough to echo in messages. */
export const MAX_ID_LENGTH = 255;

/** Values echoed in a problem (a parentId naming nothing) are cut here, so a huge one cannot make a huge message. */
const SHOWN_LIMIT = 100;

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value for a message: JSON-quoted (NUL and lone surrogates show as escapes) and cut. */
export const shown = (text: string): string => JSON.stringify(text.length > SHOWN_LIMIT ? `${text.slice(0, SHOWN_LIMIT)}…` : text);

/** Why `value` cannot be an id (of an entry, a parent, a job), or undefined when it can. */
export function idProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return value === undefined ? 'is missing' : 'must be a string';
  if (value.length === 0) return 'must not be empty';
  const text = textProblem(value);
  if (text) return text.why;
  if ([...value].length > MAX_ID_LENGTH) return `must be at most ${MAX_ID_LENGTH} characters`;
  return undefined;
}

/**
 * The problems of an `attributes` value (absent is fine): an object whose values are strings,
 * neither names nor values holding U+0000 or a lone surrogate (PostgreSQL cannot store them).
 */
export function attributesProblems(value: unknown): string[] {
  if (value === undefined) return [];
  if (!isPlainObject(value)) return ['`attributes` must be an object of strings'];
  const problems: string[] = [];
  for (const [name, attribute] of Object.entries(value)) {
    const nameProblem = textProblem(name);
    if (nameProblem) problems.push(`\`attributes\` has a name that ${nameProblem.why}`);
    else if (typeof attribute !== 'string') problems.push(`\`attributes.${shown(name)}\` must be a string`);
    else {
      const valueProblem = textProblem(attribute);
      if (valueProblem) problems.push(`\`attributes.${shown(name)}\` ${valueProblem.why}`);
    }
  }
  return problems;
}

/** One problem per field of `entry` that is not in `known`: unknown fields are refused, not ignored. */
export function unknownFieldProblems(entry: Record<string, unknown>, known: readonly string[], hint = ''): string[] {
  return Object.keys(entry)
    .filter((field) => !known.includes(field))
    .map((field) => `has the unknown field ${shown(field)}; an entry has only ${known.map((name) => `\`${name}\``).join(', ')}${hint}`);
}

/** The ids of `entries` that are usable, first occurrence winning, and a problem for every later one. */
export function duplicateProblems(entries: readonly unknown[]): { firstIndex: Map<string, number>; problems: ImportProblem[] } {
  const firstIndex = new Map<string, number>();
  const problems: ImportProblem[] = [];
  entries.forEach((entry, index) => {
    if (!isPlainObject(entry) || idProblem(entry.id) !== undefined) return;
    const id = entry.id as string;
    const first = firstIndex.get(id);
    if (first === undefined) firstIndex.set(id, index);
    else problems.push({ index, id, problem: `\`id\` repeats the id of the entry at index ${first}; ids are unique` });
  });
  return { firstIndex, problems };
}

const ORG_FIELDS = ['id', 'parentId', 'attributes'] as const;

/**
 * Checks a whole organisation import. Entries may come in any order (a child before its parent);
 * `parentId` absent or null makes a root (a flat list of locations is all roots).
 */
export function checkOrganisationImport(body: unknown): ImportCheck<OrgEntry[]> {
  if (!Array.isArray(body)) return { ok: false, problems: [], body: 'must be a JSON array of organisation entries' };
  const problems: ImportProblem[] = [];
  const { firstIndex, problems: duplicates } = duplicateProblems(body);

  body.forEach((entry, index) => {
    if (!isPlainObject(entry)) {
      problems.push({ index, problem: 'the entry must be an object with `id` and optional `parentId`, `attributes`' });
      return;
    }
    const idWhy = idProblem(entry.id);
    const id = idWhy === undefined ? (entry.id as string) : undefined;
    const add = (problem: string) => problems.push(id === undefined ? { index, problem } : { index, id, problem });
    if (idWhy) add(`\`id\` ${idWhy}`);
    if (entry.parentId !== undefined && entry.parentId !== null) {
      const parentWhy = idProblem(entry.parentId);
      if (parentWhy) add(`\`parentId\` ${parentWhy}`);
      else if (!firstIndex.has(entry.parentId as string))
        add(`\`parentId\` ${shown(entry.parentId as string)} names no entry of this import`);
      else if (entry.parentId === id) add('`parentId` names the entry itself: an entry cannot be its own parent');
    }
    for (const problem of attributesProblems(entry.attributes)) add(problem);
    for (const problem of unknownFieldProblems(entry, ORG_FIELDS)) add(problem);
  });
  problems.push(...duplicates);
  problems.push(...cycleProblems(body, firstIndex));

  if (problems.length > 0) return { ok: false, problems: problems.sort((a, b) => a.index - b.index) };
  return {
    ok: true,
    value: (body as Record<string, unknown>[]).map((entry) => {
      const stored: OrgEntry = { id: entry.id as string, attributes: (entry.attributes as Record<string, string> | undefined) ?? {} };
      if (typeof entry.parentId === 'string') stored.parentId = entry.parentId;
      return stored;
    }),
  };
}

/** Ids named in a cycle's problem at most. */
const CYCLE_SHOWN = 10;

/**
 * A problem for every entry on a cycle of parents longer than one (a self-parent is reported
 * with the parentId). Iterative, linear in the entries: each walk up the parents stops at an
 * entry already settled, and an entry met twice on the current walk closes a cycle. Only the
 * first entry of a repeated id takes part (the later ones are refused as duplicates).
 */
export function cycleProblems(entries: readonly unknown[], firstIndex: ReadonlyMap<string, number>): ImportProblem[] {
  const parentOf = (index: number): number | undefined => {
    const entry = entries[index] as Record<string, unknown>;
    return typeof entry.parentId === 'string' ? firstIndex.get(entry.parentId) : undefined;
  };
  /** 0 unseen, 1 on the current walk, 2 settled. */
  const state = new Uint8Array(entries.length);
  const problems: ImportProblem[] = [];
  for (const start of firstIndex.values()) {
    if (state[start] !== 0) continue;
    const walk: number[] = [];
    let at: number | undefined = start;
    while (at !== undefined && state[at] === 0) {
      state[at] = 1;
      walk.push(at);
      at = parentOf(at);
    }
    if (at !== undefined && state[at] === 1) {
      const cycle = walk.slice(walk.indexOf(at));
      if (cycle.length > 1) {
        const idOf = (index: number) => (entries[index] as { id: string }).id;
        // A long cycle is named by its first few ids, so 10,000 entries on one cycle cannot make a huge body.
        const path =
          cycle.length <= CYCLE_SHOWN
            ? [...cycle, cycle[0]].map((index) => shown(idOf(index))).join(' → ')
            : `${cycle
                .slice(0, CYCLE_SHOWN)
                .map((index) => shown(idOf(index)))
                .join(' → ')} → …`;
        for (const index of cycle) {
          problems.push({ index, id: idOf(index), problem: `is on a cycle of parents (${cycle.length} entries: ${path})` });
        }
      }
    }
    for (const index of walk) state[index] = 2;
  }
  return problems;
}
