import { Link } from 'react-router';
import { type Criteria, encodeCriteria } from '../criteria/criteria-model';
import { count } from '../components/data-table';
import { getPage } from '../lib/api';

/**
 * What the activities, assignments and assignment pages share: the activities registry as the API
 * answers it (docs/activities.md), an assignment and its statuses (docs/learning.md, "Assignments"),
 * and how both are said on a page.
 */

/** An entry of the activities registry (GET /api/activities). */
export interface RegistryEntry {
  id: string;
  definition: {
    name?: Record<string, string>;
    description?: Record<string, string>;
    type?: string;
    moreInfo?: string;
    extensions?: Record<string, unknown>;
  };
  attributes: Record<string, string>;
  tags: string[];
  parentId?: string;
  launchUrl?: string;
  competencies: string[];
  requiresSuccess: boolean;
  updated: string;
}

/** The registry read whole, linked into its hierarchy. */
export interface Registry {
  entries: RegistryEntry[];
  byId: Map<string, RegistryEntry>;
  /** Each entry's children, in id order. */
  children: Map<string, RegistryEntry[]>;
  /** Entries without a parent (or whose parent was not read). */
  roots: RegistryEntry[];
  /** False when the registry holds more than the console reads (MAX_PAGES pages). */
  complete: boolean;
  /** How many entries the registry holds (`X-Total-Count`), when the API said. */
  total?: number;
}

const PAGE = 1000;
const MAX_PAGES = 20;

/** Every entry of the registry, a page of 1,000 at a time (the API's largest), up to 20,000. */
export async function loadRegistry(signal?: AbortSignal): Promise<Registry> {
  const entries: RegistryEntry[] = [];
  let complete = false;
  let total: number | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const got = await getPage<RegistryEntry>('/api/activities', { query: { limit: PAGE, skip: page * PAGE }, signal });
    entries.push(...got.items);
    total ??= got.total;
    if (!got.hasNext || got.items.length < PAGE) {
      complete = true;
      break;
    }
  }
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const children = new Map<string, RegistryEntry[]>();
  const roots: RegistryEntry[] = [];
  for (const entry of entries) {
    if (entry.parentId === undefined || !byId.has(entry.parentId)) roots.push(entry);
    else children.set(entry.parentId, [...(children.get(entry.parentId) ?? []), entry]);
  }
  return { entries, byId, children, roots, complete, total };
}

/** A language map's text in the reader's language if it has it, else English, else its first. */
export function languageText(map: Record<string, string> | undefined): string | undefined {
  if (!map) return undefined;
  const keys = Object.keys(map);
  if (keys.length === 0) return undefined;
  const wanted = [navigator.language, navigator.language.split('-')[0], 'en-US', 'en', 'en-GB'];
  for (const language of wanted) {
    const key = keys.find((candidate) => candidate.toLowerCase() === language?.toLowerCase());
    if (key) return map[key];
  }
  return map[keys[0]!];
}

/** How an activity is named on a page: its registry name, else its id. */
export const activityName = (id: string, registry?: Registry): string => {
  const entry = registry?.byId.get(id);
  return (entry && languageText(entry.definition.name)) || id;
};

/** The entry's ancestors, nearest first (a cycle, which the API refuses, would stop the walk). */
export function ancestorsOf(entry: RegistryEntry, registry: Registry): RegistryEntry[] {
  const found: RegistryEntry[] = [];
  const seen = new Set([entry.id]);
  let parent = entry.parentId === undefined ? undefined : registry.byId.get(entry.parentId);
  while (parent && !seen.has(parent.id)) {
    seen.add(parent.id);
    found.push(parent);
    parent = parent.parentId === undefined ? undefined : registry.byId.get(parent.parentId);
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Assignments

export const STATUSES = ['assigned', 'inProgress', 'completed', 'completedLate', 'overdue'] as const;
export type Status = (typeof STATUSES)[number];

export const STATUS_LABELS: Readonly<Record<Status, string>> = {
  assigned: 'Not started',
  inProgress: 'In progress',
  completed: 'Completed',
  completedLate: 'Completed late',
  overdue: 'Overdue',
};

/** The chart's and the bars' colours (the figures are always in a table or text beside them). */
export const STATUS_COLOURS: Readonly<Record<Status, string>> = {
  completed: '#0f766e',
  completedLate: '#65a30d',
  inProgress: '#1d4ed8',
  assigned: '#9ca3af',
  overdue: '#be123c',
};

/** The order a bar stacks them in: done first, then started, then not, overdue last. */
export const BAR_ORDER: readonly Status[] = ['completed', 'completedLate', 'inProgress', 'assigned', 'overdue'];

export const isStatus = (value: string | null): value is Status => (STATUSES as readonly string[]).includes(value ?? '');

export type Counts = Record<Status, number>;

export type People = { actorIds: string[] } | { criteria: Criteria } | { organisationId: string } | { jobId: string };

/** An assignment as GET /api/assignments lists it. */
export interface AssignmentSummary {
  id: string;
  name: string;
  activityIds: string[];
  selection: 'actorIds' | 'criteria' | 'organisationId' | 'jobId';
  dynamic: boolean;
  dueAt?: string;
  createdAt: string;
  updatedAt: string;
  members: number;
  scope?: { organisationId: string };
}

/** An assignment whole (POST, GET item): its people and their counts by status. */
export interface Assignment extends AssignmentSummary {
  people: People;
  formerMembers: number;
  counts: Counts;
}

export const totalOf = (counts: Counts) => STATUSES.reduce((sum, status) => sum + counts[status], 0);

export const when = (iso: string | undefined) =>
  iso ? new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : '—';
export const day = (iso: string | undefined) => (iso ? new Date(iso).toLocaleDateString('en-GB', { dateStyle: 'medium' }) : '—');

/** One sentence of the counts, in the bar's order, leaving out the statuses nobody has. */
export function countsText(counts: Counts): string {
  const total = totalOf(counts);
  if (total === 0) return 'Nobody yet';
  const done = counts.completed + counts.completedLate;
  const parts = BAR_ORDER.filter((status) => counts[status] > 0).map(
    (status) => `${count(counts[status])} ${STATUS_LABELS[status].toLowerCase()}`,
  );
  return `${count(done)} of ${count(total)} done: ${parts.join(', ')}`;
}

/**
 * The counts as one stacked bar. SVG attributes, not style: the page's policy refuses inline
 * style. Hidden from screen readers, which read the same counts in words beside it.
 */
export function StatusBar({ counts }: { counts: Counts }) {
  const total = totalOf(counts);
  let x = 0;
  return (
    <svg className="status-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect x="0" y="0" width="100" height="10" className="status-bar-empty" />
      {total > 0 &&
        BAR_ORDER.map((status) => {
          const width = (counts[status] / total) * 100;
          const rect = width > 0 ? <rect key={status} x={x} y="0" width={width} height="10" fill={STATUS_COLOURS[status]} /> : null;
          x += width;
          return rect;
        })}
    </svg>
  );
}

// ---------------------------------------------------------------------------------------------
// Who an assignment takes, in words

const OPERATOR_WORDS: Record<string, string> = {
  eq: 'is',
  ne: 'is not',
  in: 'is one of',
  contains: 'contains',
  startsWith: 'starts with',
  lt: 'is below',
  lte: 'is at most',
  gt: 'is above',
  gte: 'is at least',
};

/** Criteria of the actor search as a short phrase: `attributes.city is "London" and not (…)`. */
export function criteriaText(criteria: unknown, nested = false): string {
  if (!criteria || typeof criteria !== 'object') return String(criteria);
  const node = criteria as Record<string, unknown>;
  const wrap = (text: string) => (nested ? `(${text})` : text);
  if (Array.isArray(node.and)) return wrap(node.and.map((child) => criteriaText(child, true)).join(' and '));
  if (Array.isArray(node.or)) return wrap(node.or.map((child) => criteriaText(child, true)).join(' or '));
  if ('not' in node) return `not ${criteriaText(node.not, true)}`;
  if (typeof node.field !== 'string') return 'everyone';
  const value = node.value;
  if (node.op === 'exists') return value === false ? `${node.field} has no value` : `${node.field} has a value`;
  const shown = Array.isArray(value) ? value.map((item) => JSON.stringify(item)).join(', ') : JSON.stringify(value);
  return `${node.field} ${OPERATOR_WORDS[String(node.op)] ?? String(node.op)} ${shown}`;
}

/** Who an assignment takes, with a link to see them where the console shows them. */
export function WhoText({ people }: { people: People }) {
  if ('criteria' in people) {
    const everyone = Object.keys(people.criteria as object).length === 0;
    return (
      <>
        {everyone ? 'Everyone' : <>The people whose {criteriaText(people.criteria)}</>} (kept up to date as people change){' '}
        <Link to={`/people${everyone ? '' : `?q=${encodeCriteria(people.criteria)}`}`}>See them on the people page</Link>
      </>
    );
  }
  if ('organisationId' in people) {
    return (
      <>
        The people of <Link to={`/organisation?entry=${encodeURIComponent(people.organisationId)}`}>{people.organisationId}</Link> and every
        entry below it (kept up to date)
      </>
    );
  }
  if ('jobId' in people) {
    return (
      <>
        The people whose job is <Link to="/organisation?tab=jobs">{people.jobId}</Link> (kept up to date)
      </>
    );
  }
  return <>{count(people.actorIds.length)} people named one by one</>;
}
