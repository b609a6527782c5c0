import { textProblem } from '../../../platform/json-guard.js';
import { parseActorId } from '../../../kernel/agent.js';
import { lengthProblem, MAX_IRI_BYTES } from '../../../kernel/limits.js';
import { parseTimestamp } from '../../../kernel/timestamp.js';
import { type Criteria, readCriteria } from '../../actors/index.js';
import { pointerToken } from '../../../platform/json-pointer.js';

/**
 * The rules of an assignment's body (`POST /api/assignments`, `PUT /api/assignments/item`;
 * docs/learning.md, "Assignments"): pure functions from the parsed body to what to store, or every
 * problem found, each named by its JSON pointer. What needs the database (the activities
 * registered, the actors, the organisation entry or job named) the service checks after.
 */

/** Longest name, in characters (Unicode code points). */
export const MAX_NAME_LENGTH = 1000;
/** Most activities one assignment holds. */
export const MAX_ACTIVITIES = 1000;
/** Most actor ids of a static assignment: a larger group is chosen by criteria, an organisation subtree or a job. */
export const MAX_ACTOR_IDS = 50_000;
/** Longest organisation entry id or job id: the organisation's own limit (docs/imports.md). */
export const MAX_ENTRY_ID_LENGTH = 255;
/** Problems listed at most in one answer (a body can hold 50,000 bad actor ids). */
export const MAX_PROBLEMS = 100;

/** The four ways of choosing people, as the body names them. */
export const SELECTIONS = ['actorIds', 'criteria', 'organisationId', 'jobId'] as const;
export type SelectionKind = (typeof SELECTIONS)[number];

/** Who an assignment takes, as stored and answered: exactly one of the four. */
export type PeopleSelection = { actorIds: string[] } | { criteria: unknown } | { organisationId: string } | { jobId: string };

/** A body read whole: what to store. */
export interface AssignmentInput {
  name: string;
  activityIds: string[];
  selection: SelectionKind;
  /** The selection as answered: actor ids canonical (`<ifi_property>|<ifi_value>`), criteria as sent. */
  people: PeopleSelection;
  dueAt: Date | null;
}

export interface BodyProblem {
  /** The JSON pointer of what is wrong ('' for the body itself). */
  path: string;
  message: string;
}

export type BodyReading = { ok: true; input: AssignmentInput } | { ok: false; problems: BodyProblem[] };

/**
 * The statuses of a person's assigned activity, and of the person (docs/learning.md, "Status"):
 * the words of the answers, of the counts and of the `status` filter.
 */
export const STATUSES = ['assigned', 'inProgress', 'completed', 'completedLate', 'overdue'] as const;
export type AssignmentStatus = (typeof STATUSES)[number];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
const shown = (text: string) => JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
const codePoints = (text: string) => Array.from(text).length;

/** A string of 1 to `max` characters PostgreSQL can store, not only white space; else the problem. */
function textRule(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return `must be a string, not ${describe(value)}`;
  if (value.trim() === '') return 'must not be empty or only white space';
  if (codePoints(value) > max) return `must be at most ${max.toLocaleString('en')} characters`;
  return textProblem(value)?.why;
}

/**
 * Reads a body: `name` (1 to 1,000 characters), `activityIds` (1 to 1,000 distinct activity ids),
 * `people` (exactly one of `actorIds`, `criteria`, `organisationId`, `jobId`) and `dueAt` (an
 * ISO 8601 date-time with its offset, or null / absent for none). Every problem is named, up to
 * MAX_PROBLEMS.
 */
export function readAssignmentBody(body: unknown): BodyReading {
  const problems: BodyProblem[] = [];
  const problem = (path: string, message: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ path, message });
  };
  if (!isObject(body)) return { ok: false, problems: [{ path: '', message: `must be a JSON object, not ${describe(body)}` }] };
  for (const key of Object.keys(body)) {
    if (!['name', 'activityIds', 'people', 'dueAt'].includes(key)) problem(`/${pointerToken(key)}`, 'is not a property of an assignment');
  }

  if (body.name === undefined) problem('/name', 'is required');
  else {
    const why = textRule(body.name, MAX_NAME_LENGTH);
    if (why) problem('/name', why);
  }

  const activityIds = readActivityIds(body.activityIds, problem);
  const people = readPeople(body.people, problem);

  let dueAt: Date | null = null;
  if (body.dueAt !== undefined && body.dueAt !== null) {
    const parsed = typeof body.dueAt === 'string' ? parseTimestamp(body.dueAt, { requireZone: true }) : undefined;
    if (parsed === undefined) problem('/dueAt', 'must be an ISO 8601 date-time with its offset (2026-12-31T17:00:00Z), or null for none');
    else dueAt = parsed;
  }

  if (problems.length > 0 || people === undefined) return { ok: false, problems };
  return { ok: true, input: { name: body.name as string, activityIds, selection: people.kind, people: people.selection, dueAt } };
}

function readActivityIds(value: unknown, problem: (path: string, message: string) => void): string[] {
  if (value === undefined) {
    problem('/activityIds', 'is required');
    return [];
  }
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ACTIVITIES) {
    problem('/activityIds', `must be an array of 1 to ${MAX_ACTIVITIES.toLocaleString('en')} activity ids`);
    return [];
  }
  const first = new Map<string, number>();
  value.forEach((id, index) => {
    const path = `/activityIds/${index}`;
    if (typeof id !== 'string' || id === '') return problem(path, `must be a non-empty string, not ${describe(id)}`);
    const why = textProblem(id)?.why ?? lengthProblem(id, MAX_IRI_BYTES);
    if (why) return problem(path, why);
    const earlier = first.get(id);
    if (earlier !== undefined) return problem(path, `repeats the activity id at index ${earlier}`);
    first.set(id, index);
  });
  return value as string[];
}

function readPeople(
  value: unknown,
  problem: (path: string, message: string) => void,
): { kind: SelectionKind; selection: PeopleSelection } | undefined {
  const exactlyOne = `must hold exactly one of ${SELECTIONS.join(', ')}`;
  if (value === undefined) {
    problem('/people', `is required: it ${exactlyOne}`);
    return undefined;
  }
  if (!isObject(value)) {
    problem('/people', `must be an object, not ${describe(value)}: it ${exactlyOne}`);
    return undefined;
  }
  const extra = Object.keys(value).filter((key) => !(SELECTIONS as readonly string[]).includes(key));
  for (const key of extra) problem(`/people/${pointerToken(key)}`, `is not a way of choosing people (${SELECTIONS.join(', ')})`);
  const given = SELECTIONS.filter((key) => value[key] !== undefined);
  if (given.length !== 1) {
    problem('/people', `${exactlyOne}; it holds ${given.length === 0 ? 'none' : given.join(' and ')}`);
    return undefined;
  }
  const kind = given[0]!;
  const path = `/people/${kind}`;
  switch (kind) {
    case 'actorIds': {
      const actorIds = readActorIds(value.actorIds, problem);
      return actorIds && { kind, selection: { actorIds } };
    }
    case 'criteria': {
      const reading = readCriteria(value.criteria, path);
      if (!reading.ok) {
        problem(reading.path, reading.message);
        return undefined;
      }
      return { kind, selection: { criteria: value.criteria } };
    }
    default: {
      const why = textRule(value[kind], MAX_ENTRY_ID_LENGTH);
      if (why) {
        problem(path, why);
        return undefined;
      }
      const id = value[kind] as string;
      return { kind, selection: kind === 'organisationId' ? { organisationId: id } : { jobId: id } };
    }
  }
}

/** The actor ids, canonical (`<ifi_property>|<ifi_value>`, as the actor store keys them), each once. */
function readActorIds(value: unknown, problem: (path: string, message: string) => void): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ACTOR_IDS) {
    problem(
      '/people/actorIds',
      `must be an array of 1 to ${MAX_ACTOR_IDS.toLocaleString('en')} actor ids; a larger group is chosen by criteria, an organisation subtree or a job`,
    );
    return undefined;
  }
  const keys: string[] = [];
  const first = new Map<string, number>();
  value.forEach((text, index) => {
    const path = `/people/actorIds/${index}`;
    if (typeof text !== 'string') return problem(path, `must be a string (<ifi_property>|<ifi_value>), not ${describe(text)}`);
    let key: string;
    try {
      key = parseActorId(text, `people.actorIds[${index}]`).key;
    } catch (error) {
      return problem(path, (error as Error).message);
    }
    const earlier = first.get(key);
    if (earlier !== undefined) return problem(path, `names the actor of index ${earlier} again`);
    first.set(key, index);
    keys.push(key);
  });
  return keys.length === value.length ? keys : undefined;
}

/**
 * The criteria (of the actor search's language, docs/actors.md) a dynamic selection stands for:
 * an organisation subtree is the people whose entry is the one named or lies below it; a job, the
 * people linked to it. The actor search gives them their meaning (the links of the tenant
 * settings), so the assignment follows whatever the search makes of a person's job and position.
 * Undefined for actor ids (static).
 */
export function selectionCriteria(people: PeopleSelection): Criteria | undefined {
  if ('actorIds' in people) return undefined;
  if ('organisationId' in people) {
    const value = people.organisationId;
    return {
      or: [
        { field: 'organisation.id', op: 'eq', value },
        { field: 'organisation.ancestors.id', op: 'eq', value },
      ],
    };
  }
  if ('jobId' in people) return { field: 'job.id', op: 'eq', value: people.jobId };
  const reading = readCriteria(people.criteria);
  // Stored criteria were read when they were written; the language only grows.
  if (!reading.ok) throw new Error(`Stored criteria no longer read: ${reading.path} ${reading.message}`);
  return reading.criteria;
}

/** The `status` filter of a people list: comma-separated statuses, each once at most. */
export function readStatusFilter(text: string | undefined): { ok: true; statuses?: AssignmentStatus[] } | { ok: false; message: string } {
  if (text === undefined) return { ok: true };
  const values = text.split(',').map((value) => value.trim());
  for (const value of values) {
    if (!(STATUSES as readonly string[]).includes(value)) {
      return { ok: false, message: `'status' must be a comma-separated list of ${STATUSES.join(', ')}; ${shown(value)} is none of them.` };
    }
  }
  return { ok: true, statuses: [...new Set(values)] as AssignmentStatus[] };
}
