/**
 * The pure rules of skills gaps and recommendations (docs/learning.md): what a request's target
 * is, what a group body selects, and how a job's competencies and a person's evidence make a gap.
 */
import { textProblem } from '../../../platform/json-guard.js';
import { SkillsGapErrors } from './skills-gap.errors.js';
import { pointerToken } from '../../../platform/json-pointer.js';

/** The most evidence a competency of a gap lists (its newest). */
export const MAX_EVIDENCE = 10;
/** Recommendations one request lists by default, and at most. */
export const DEFAULT_RECOMMENDATIONS = 10;
export const MAX_RECOMMENDATIONS = 100;
/** Longest job or organisation entry id, as the imports allow (in characters). */
export const MAX_ID_LENGTH = 255;

/** What a person's gap is measured against. */
export type TargetAsked = { kind: 'current' } | { kind: 'next' } | { kind: 'job'; jobId: string };

/**
 * `target` and `jobId` of a request: `jobId` names the target itself (`target=current`, the
 * default, gives way to it); `target=next` with a `jobId` asks for two targets: 400.
 */
export function readTarget(query: { target?: 'current' | 'next'; jobId?: string }): TargetAsked {
  if (query.jobId !== undefined) {
    if (query.target === 'next') {
      throw SkillsGapErrors.invalidQuery(
        'jobId',
        "'jobId' names the target job itself: send it without target=next (the next position's job).",
      );
    }
    return { kind: 'job', jobId: query.jobId };
  }
  return { kind: query.target ?? 'current' };
}

/** Whom a group gap is about: a subtree of the organisation, the holders of a job, or actor search criteria (still unread). */
export type GroupSelection = { organisationId: string } | { jobId: string } | { criteria: unknown };

export interface GroupAsked {
  people: GroupSelection;
  /** One target job for everyone; absent: each person's current job. */
  jobId?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;

/** An id (of a job or an organisation entry): a string of 1 to 255 characters PostgreSQL can hold. */
function readId(value: unknown, path: string): string {
  if (typeof value !== 'string') throw SkillsGapErrors.invalidGroup(path, `must be a string, not ${describe(value)}`);
  const length = [...value].length;
  if (length === 0 || length > MAX_ID_LENGTH) throw SkillsGapErrors.invalidGroup(path, `must be 1 to ${MAX_ID_LENGTH} characters long`);
  const problem = textProblem(value);
  if (problem) throw SkillsGapErrors.invalidGroup(path, problem.why);
  return value;
}

const SELECTORS = ['organisationId', 'jobId', 'criteria'] as const;

/**
 * The body of POST /api/skills-gap/group: `{"people": {"organisationId"} | {"jobId"} |
 * {"criteria"}, "jobId"?}`, checked; the first problem answers 400 `learning.invalid_group` with
 * its JSON pointer. The criteria are left for the actor search to read.
 */
export function readGroupBody(body: unknown): GroupAsked {
  if (!isObject(body)) throw SkillsGapErrors.invalidGroup('', `must be an object {"people": …, "jobId"?: …}, not ${describe(body)}`);
  for (const key of Object.keys(body)) {
    if (key !== 'people' && key !== 'jobId')
      throw SkillsGapErrors.invalidGroup(`/${pointerToken(key)}`, 'is not a property of the body (people, jobId)');
  }
  const { people } = body;
  if (people === undefined) throw SkillsGapErrors.invalidGroup('/people', 'is required');
  if (!isObject(people)) throw SkillsGapErrors.invalidGroup('/people', `must be an object, not ${describe(people)}`);
  const keys = Object.keys(people);
  const unknown = keys.find((key) => !(SELECTORS as readonly string[]).includes(key));
  if (unknown !== undefined) {
    throw SkillsGapErrors.invalidGroup(`/people/${pointerToken(unknown)}`, `is not a way to choose people (${SELECTORS.join(', ')})`);
  }
  if (keys.length !== 1) throw SkillsGapErrors.invalidGroup('/people', `must hold exactly one of ${SELECTORS.join(', ')}`);
  const selection: GroupSelection =
    'organisationId' in people
      ? { organisationId: readId(people.organisationId, '/people/organisationId') }
      : 'jobId' in people
        ? { jobId: readId(people.jobId, '/people/jobId') }
        : { criteria: people.criteria };
  return body.jobId === undefined ? { people: selection } : { people: selection, jobId: readId(body.jobId, '/jobId') };
}

/** A completion that is evidence of a competency. */
export interface Evidence {
  activityId: string;
  /** The activity's definition name (a language map), when the registry entry has one. */
  name?: Record<string, string>;
  /** The registration of the completion record, when it has one. */
  registration?: string;
  /** When it counts from: the record's passedAt when the activity requires success, else its completedAt (ISO 8601, UTC). */
  at: string;
  /** The record's score (`result.score` of its latest statement that had one). */
  score?: Record<string, unknown>;
}

export interface GapCompetency {
  id: string;
  name: string;
  description: string;
  held: boolean;
  evidence: Evidence[];
}

/**
 * A job's competencies, in the job's order, each held or not with its evidence (newest first, at
 * most MAX_EVIDENCE; `evidence` holds what the person's records show, in that order already),
 * and the counts.
 */
export function gapOf(
  competencies: readonly { id: string; name: string; description: string }[],
  evidence: ReadonlyMap<string, readonly Evidence[]>,
): { competencies: GapCompetency[]; held: number; missing: number } {
  const shown = competencies.map(({ id, name, description }) => {
    const found = (evidence.get(id) ?? []).slice(0, MAX_EVIDENCE);
    return { id, name, description, held: found.length > 0, evidence: found };
  });
  const held = shown.filter((competency) => competency.held).length;
  return { competencies: shown, held, missing: shown.length - held };
}
