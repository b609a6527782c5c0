import { findJsonProblem } from '../../platform/json-guard.js';
import { MAX_IRI_BYTES } from '../../kernel/limits.js';
import { isIri, isLanguageTag } from '../../kernel/formats.js';
import type { NewRegisteredActivity } from './activity-registry.repository.js';

/**
 * The rules of `PUT /api/activities` (docs/activities.md): pure functions from the parsed body to
 * the entries to store or every problem found, one per entry and field. A write is all or nothing,
 * so the caller names every offending entry at once. The rules that need the stored registry
 * (an unknown parentId, a cycle through stored parents) are in hierarchyProblems, which the
 * service runs under the tenant's lock.
 */

/** One reason an entry is refused: its 0-based index, its id when usable, the field (a path in the entry; '' for the entry itself). */
export interface RegistryProblem {
  index: number;
  id?: string;
  field: string;
  message: string;
}

/** An entry with a usable id (its first occurrence) and its parentId when usable: what the hierarchy check walks. */
export interface HierarchyLink {
  index: number;
  id: string;
  parentId?: string;
}

export interface RegistryCheck {
  /** The entries to store, in body order; complete only when `problems` is empty. */
  entries: NewRegisteredActivity[];
  links: HierarchyLink[];
  problems: RegistryProblem[];
}

/**
 * Longest id or parentId, in UTF-8 bytes: an activity id's limit everywhere (kernel/limits.ts), so a
 * registered activity can be named in statements, and an entry's parent index, which holds
 * parentId and id together, stays under the B-tree's 2,704 bytes (2,000 here had it fail).
 */
export const MAX_ID_BYTES = MAX_IRI_BYTES;
/** Longest launchUrl, in characters. */
export const MAX_LAUNCH_URL_LENGTH = 4000;
/** Longest tag and competency, in characters (code points). */
export const MAX_TAG_LENGTH = 255;
export const MAX_COMPETENCY_LENGTH = 1000;

export const ENTRY_FIELDS = ['id', 'definition', 'attributes', 'tags', 'parentId', 'launchUrl', 'competencies', 'requiresSuccess'] as const;
/**
 * The parts of an xAPI activity definition (xAPI 2.0 Part 2 §2.4.4.1) a registry entry holds. The
 * interaction properties (interactionType, choices…) describe a question inside content, which
 * statements carry; the catalogue describes the content itself.
 */
export const DEFINITION_FIELDS = ['name', 'description', 'type', 'moreInfo', 'extensions'] as const;

/** Values echoed in a message are cut here, so a huge one cannot make a huge answer. */
const SHOWN_LIMIT = 100;
/** Ids named in a cycle's message at most. */
const CYCLE_SHOWN = 10;

const shown = (text: string): string => JSON.stringify(text.length > SHOWN_LIMIT ? `${text.slice(0, SHOWN_LIMIT)}…` : text);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why `value` cannot be an activity id (or parentId), or undefined when it can. */
export function iriIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return value === undefined ? 'is missing' : 'must be a string';
  if (!isIri(value)) return 'must be an absolute IRI with a scheme, such as "http://example.com/courses/intro"';
  if (Buffer.byteLength(value, 'utf8') > MAX_ID_BYTES) return `must be at most ${MAX_ID_BYTES} bytes of UTF-8`;
  return undefined;
}

/** Why `value` cannot be a launchUrl: it must parse (WHATWG URL) as an absolute http or https URL. */
export function launchUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if ([...value].length > MAX_LAUNCH_URL_LENGTH) return `must be at most ${MAX_LAUNCH_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL, such as "https://content.example.com/course/index.html"';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http or https URL, not ${shown(url.protocol.slice(0, -1))}`;
  if (url.host === '') return 'must name a host';
  return undefined;
}

/** The problems of an entry's definition, each as [field, message]. */
export function definitionProblems(value: unknown): [string, string][] {
  if (value === undefined) return [['definition', 'is missing: an entry needs a definition (it may be {})']];
  if (!isPlainObject(value)) return [['definition', 'must be an object (an xAPI activity definition)']];
  const problems: [string, string][] = [];
  for (const key of Object.keys(value)) {
    if (!(DEFINITION_FIELDS as readonly string[]).includes(key)) {
      problems.push([
        `definition.${key}`,
        `is not a field of a registry definition; it has only ${DEFINITION_FIELDS.map((name) => `\`${name}\``).join(', ')}`,
      ]);
    }
  }
  for (const key of ['name', 'description'] as const) {
    const map = value[key];
    if (map === undefined) continue;
    if (!isPlainObject(map)) {
      problems.push([`definition.${key}`, 'must be a language map, such as {"en-US": "Introduction"}']);
      continue;
    }
    for (const [tag, text] of Object.entries(map)) {
      if (!isLanguageTag(tag)) problems.push([`definition.${key}`, `has the key ${shown(tag)}, which is not an RFC 5646 language tag`]);
      else if (typeof text !== 'string') problems.push([`definition.${key}.${tag}`, 'must be a string']);
    }
  }
  for (const key of ['type', 'moreInfo'] as const) {
    if (value[key] !== undefined && !isIri(value[key]))
      problems.push([`definition.${key}`, 'must be an IRI with a scheme, such as "http://example.com/x"']);
  }
  if (value.extensions !== undefined) {
    if (!isPlainObject(value.extensions)) problems.push(['definition.extensions', 'must be an object whose keys are IRIs']);
    else {
      for (const key of Object.keys(value.extensions)) {
        if (!isIri(key)) problems.push(['definition.extensions', `has the key ${shown(key)}, which is not an IRI`]);
      }
    }
  }
  return problems;
}

function attributesProblems(value: unknown): [string, string][] {
  if (value === undefined) return [];
  if (!isPlainObject(value)) return [['attributes', 'must be an object whose values are strings']];
  return Object.entries(value)
    .filter(([, attribute]) => typeof attribute !== 'string')
    .map(([name]) => [`attributes.${name}`, 'must be a string']);
}

/** `tags` (non-empty, no repeats) and `competencies` (non-empty strings). */
function stringListProblems(field: 'tags' | 'competencies', value: unknown, maxLength: number): [string, string][] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [[field, 'must be an array of strings']];
  const problems: [string, string][] = [];
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const at = `${field}[${index}]`;
    if (typeof item !== 'string') problems.push([at, 'must be a string']);
    else if (item.length === 0) problems.push([at, 'must not be empty']);
    else if ([...item].length > maxLength) problems.push([at, `must be at most ${maxLength} characters`]);
    else if (seen.has(item)) problems.push([at, `repeats ${shown(item)}`]);
    else seen.add(item);
  });
  return problems;
}

/**
 * Checks every entry of a PUT body that is an array (the caller refuses any other body). Returns
 * the entries, the hierarchy links to check against the store, and every problem that needs no
 * stored data: shape, IRIs, launchUrl, unknown fields, repeated ids, a self-parent, text
 * PostgreSQL cannot store.
 */
export function checkRegistryEntries(body: readonly unknown[]): RegistryCheck {
  const problems: RegistryProblem[] = [];
  const entries: NewRegisteredActivity[] = [];
  const links: HierarchyLink[] = [];
  const firstIndex = new Map<string, number>();

  body.forEach((entry, index) => {
    if (!isPlainObject(entry)) {
      problems.push({ index, field: '', message: 'the entry must be an object with `id` and `definition`' });
      return;
    }
    const idWhy = iriIdProblem(entry.id);
    const id = idWhy === undefined ? (entry.id as string) : undefined;
    const add = (field: string, message: string) =>
      problems.push(id === undefined ? { index, field, message } : { index, id, field, message });
    // First: text jsonb cannot hold and nesting too deep for the code after this, anywhere in the entry.
    const json = findJsonProblem(entry, '');
    if (json) {
      add(json.path.replace(/^\./, ''), json.why);
      return;
    }
    if (idWhy) add('id', idWhy);
    if (id !== undefined) {
      const first = firstIndex.get(id);
      if (first !== undefined) add('id', `repeats the id of the entry at index ${first}; ids are unique in one request`);
      else firstIndex.set(id, index);
    }
    for (const field of Object.keys(entry)) {
      if (!(ENTRY_FIELDS as readonly string[]).includes(field)) {
        add(field, `is not a field of a registry entry; an entry has only ${ENTRY_FIELDS.map((name) => `\`${name}\``).join(', ')}`);
      }
    }
    for (const [field, message] of definitionProblems(entry.definition)) add(field, message);
    for (const [field, message] of attributesProblems(entry.attributes)) add(field, message);
    for (const [field, message] of stringListProblems('tags', entry.tags, MAX_TAG_LENGTH)) add(field, message);
    for (const [field, message] of stringListProblems('competencies', entry.competencies, MAX_COMPETENCY_LENGTH)) add(field, message);
    if (entry.requiresSuccess !== undefined && typeof entry.requiresSuccess !== 'boolean') add('requiresSuccess', 'must be true or false');
    if (entry.launchUrl !== undefined && entry.launchUrl !== null) {
      const why = launchUrlProblem(entry.launchUrl);
      if (why) add('launchUrl', why);
    }
    let parentId: string | undefined;
    if (entry.parentId !== undefined && entry.parentId !== null) {
      const why = iriIdProblem(entry.parentId);
      if (why) add('parentId', why);
      else if (entry.parentId === id) add('parentId', 'names the entry itself: an activity cannot be its own parent');
      else parentId = entry.parentId as string;
    }
    if (id !== undefined && firstIndex.get(id) === index) links.push(parentId === undefined ? { index, id } : { index, id, parentId });
    entries.push({
      id: entry.id as string,
      definition: (entry.definition ?? {}) as Record<string, unknown>,
      attributes: (entry.attributes ?? {}) as Record<string, string>,
      tags: (entry.tags ?? []) as string[],
      ...(typeof entry.parentId === 'string' ? { parentId: entry.parentId } : {}),
      ...(typeof entry.launchUrl === 'string' ? { launchUrl: entry.launchUrl } : {}),
      competencies: (entry.competencies ?? []) as string[],
      requiresSuccess: entry.requiresSuccess === true,
    });
  });
  return { entries, links, problems };
}

/**
 * The problems of the hierarchy the write would make: a parentId naming neither an entry of the
 * request nor a stored one, and every entry of the request on a cycle of parents, stored links
 * included. `stored` maps stored ids to their stored parent (null for a root): at least every
 * stored entry reachable upwards from the parentIds the request names. An entry of the request
 * replaces its stored parent link. Iterative and linear: each walk stops at an id already settled.
 */
export function hierarchyProblems(links: readonly HierarchyLink[], stored: ReadonlyMap<string, string | null>): RegistryProblem[] {
  const requested = new Map(links.map((link) => [link.id, link]));
  const parentOf = (id: string): string | undefined => {
    const link = requested.get(id);
    if (link) return link.parentId;
    return stored.get(id) ?? undefined;
  };
  const known = (id: string) => requested.has(id) || stored.has(id);
  const problems: RegistryProblem[] = [];
  for (const link of links) {
    if (link.parentId !== undefined && !known(link.parentId)) {
      problems.push({
        index: link.index,
        id: link.id,
        field: 'parentId',
        message: `${shown(link.parentId)} names neither an entry of this request nor a registered activity`,
      });
    }
  }
  /** 1 on the current walk, 2 settled. */
  const state = new Map<string, 1 | 2>();
  for (const link of links) {
    if (state.has(link.id)) continue;
    const walk: string[] = [];
    let at: string | undefined = link.id;
    while (at !== undefined && !state.has(at) && known(at)) {
      state.set(at, 1);
      walk.push(at);
      at = parentOf(at);
    }
    if (at !== undefined && state.get(at) === 1) {
      const cycle = walk.slice(walk.indexOf(at));
      // A self-parent is refused by checkRegistryEntries and never linked, so a cycle has two ids at least.
      const path =
        cycle.length <= CYCLE_SHOWN
          ? [...cycle, cycle[0]].map(shown).join(' → ')
          : `${cycle.slice(0, CYCLE_SHOWN).map(shown).join(' → ')} → …`;
      for (const id of cycle) {
        const member = requested.get(id);
        if (member) {
          problems.push({
            index: member.index,
            id,
            field: 'parentId',
            message: `is on a cycle of parents (${cycle.length} activities: ${path})`,
          });
        }
      }
    }
    for (const id of walk) state.set(id, 2);
  }
  return problems;
}

/** The ids whose stored parent links the hierarchy check needs: the parents named that are not in the request. */
export function storedParentsToRead(links: readonly HierarchyLink[]): string[] {
  const requested = new Set(links.map((link) => link.id));
  return [...new Set(links.flatMap((link) => (link.parentId !== undefined && !requested.has(link.parentId) ? [link.parentId] : [])))];
}
