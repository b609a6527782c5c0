import { parseAgent } from '../../kernel/agent.js';
import { parseTimestamp } from '../../kernel/timestamp.js';

/**
 * How statements make completion records (docs/completions.md). Pure: no database, no clock.
 * A record's fields are each an order-free combination of its statements (the best status, the
 * highest progress, the earliest and latest timestamps, the earliest completing and passing
 * timestamps, the score of the latest scored statement), so folding statements one batch at a
 * time and refolding all of them after a voiding give the same record.
 */

type Json = Record<string, unknown>;

export type CompletionStatus = 'in-progress' | 'completed' | 'failed' | 'passed';

/** Worst to best: a record never moves to a status earlier in this list. */
export const STATUS_ORDER: readonly CompletionStatus[] = ['in-progress', 'completed', 'failed', 'passed'];

const ADL = 'http://adlnet.gov/expapi/verbs/';
const VERB_STATUS: Record<string, CompletionStatus> = {
  [`${ADL}launched`]: 'in-progress',
  [`${ADL}initialized`]: 'in-progress',
  [`${ADL}attempted`]: 'in-progress',
  [`${ADL}progressed`]: 'in-progress',
  [`${ADL}completed`]: 'completed',
  [`${ADL}passed`]: 'passed',
  [`${ADL}failed`]: 'failed',
};

/** `result.extensions` keys read as a progress percentage (0-100), first match wins. */
export const PROGRESS_EXTENSIONS: readonly string[] = [
  'https://w3id.org/xapi/cmi5/result/extensions/progress',
  'http://id.tincanapi.com/extension/progress',
];

/** Which record a statement counts for: one per agent of its actor (a group and its members). */
export interface CompletionKey {
  agentKey: string;
  activityId: string;
  /** '' when the statement has no `context.registration`. */
  registration: string;
}

/** What one statement says about its records. */
export interface CompletionFact {
  statementId: string;
  /** The statement's `timestamp`, as an ISO instant in UTC. */
  at: string;
  status?: CompletionStatus;
  /** Verb `completed` or `passed`, or `result.completion` or `result.success` true (a completed, failed attempt completes). */
  completes: boolean;
  /** Verb `passed`, or `result.success` true. */
  passes: boolean;
  progress?: number;
  score?: Json;
}

export interface CompletionRecord extends CompletionKey {
  /** The agent with only its identifier. */
  actor: Json;
  status: CompletionStatus;
  progress?: number;
  score?: Json;
  scoreAt?: string;
  firstAt: string;
  lastAt: string;
  /** The earliest `at` of the statements that complete; absent when none does. */
  completedAt?: string;
  /** The earliest `at` of the statements that pass; absent when none does. */
  passedAt?: string;
  statementIds: string[];
}

export interface StatementCompletion {
  keys: Array<CompletionKey & { actor: Json }>;
  fact: CompletionFact;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const rank = (status: CompletionStatus) => STATUS_ORDER.indexOf(status);

/** The better of two statuses (the later in STATUS_ORDER). */
export function betterStatus(a: CompletionStatus, b: CompletionStatus): CompletionStatus {
  return rank(b) > rank(a) ? b : a;
}

function progressOf(result: Json): number | undefined {
  if (!isObject(result.extensions)) return undefined;
  for (const key of PROGRESS_EXTENSIONS) {
    const value = result.extensions[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100) return value;
  }
  return undefined;
}

/** The statuses a statement's verb and result give; the best one counts. */
function statusOf(verbId: string, result: Json, progress: number | undefined): CompletionStatus | undefined {
  const found: CompletionStatus[] = [];
  const byVerb = VERB_STATUS[verbId];
  if (byVerb) found.push(byVerb);
  if (progress !== undefined) found.push('in-progress');
  if (result.completion === true) found.push('completed');
  if (result.success === true) found.push('passed');
  if (result.success === false) found.push('failed');
  return found.length === 0 ? undefined : found.reduce(betterStatus);
}

/**
 * Whether a statement completes and whether it passes the activity, whatever its best status:
 * `completed` with `result.success: false` is `failed`, and still completes. Migration 0024
 * writes the same rule in SQL to fill the records stored before it.
 */
function outcomeOf(verbId: string, result: Json): { completes: boolean; passes: boolean } {
  const passes = verbId === `${ADL}passed` || result.success === true;
  return { completes: passes || verbId === `${ADL}completed` || result.completion === true, passes };
}

function agentsOf(actor: Json): Array<{ key: string; agent: Json }> {
  const members = Array.isArray(actor.member) ? actor.member : [];
  const found = new Map<string, Json>();
  for (const candidate of [actor, ...members]) {
    if (!isObject(candidate)) continue;
    if (!['mbox', 'mbox_sha1sum', 'openid', 'account'].some((ifi) => candidate[ifi] !== undefined)) continue;
    try {
      const parsed = parseAgent({ ...candidate, objectType: undefined });
      found.set(parsed.key, parsed.agent);
    } catch {
      // An identifier the agent parameter's rules refuse cannot be asked for either: no record.
    }
  }
  return [...found].map(([key, agent]) => ({ key, agent }));
}

/**
 * The records a stored statement counts for and what it says, or undefined when it says
 * nothing about completion: its object is not an Activity, it is a voiding statement, or
 * neither its verb nor its result maps to a status.
 */
export function statementCompletion(statement: Json): StatementCompletion | undefined {
  const object = statement.object;
  if (!isObject(object) || (object.objectType !== undefined && object.objectType !== 'Activity') || typeof object.id !== 'string')
    return undefined;
  const verbId = isObject(statement.verb) && typeof statement.verb.id === 'string' ? statement.verb.id : '';
  const result = isObject(statement.result) ? statement.result : {};
  const progress = progressOf(result);
  const status = statusOf(verbId, result, progress);
  // The stored statement always has a timestamp (the LRS sets one); `stored` is the fallback.
  const at = parseTimestamp(statement.timestamp) ?? parseTimestamp(statement.stored);
  if (status === undefined || typeof statement.id !== 'string' || at === undefined) return undefined;
  const context = isObject(statement.context) ? statement.context : {};
  const registration = typeof context.registration === 'string' ? context.registration.toLowerCase() : '';
  const activityId = object.id;
  const keys = isObject(statement.actor)
    ? agentsOf(statement.actor).map(({ key, agent }) => ({ agentKey: key, activityId, registration, actor: agent }))
    : [];
  const fact: CompletionFact = { statementId: statement.id.toLowerCase(), at: at.toISOString(), status, ...outcomeOf(verbId, result) };
  if (progress !== undefined) fact.progress = progress;
  if (isObject(result.score)) fact.score = result.score;
  return { keys, fact };
}

/** The (activity, parent) links of a statement's `context.contextActivities.parent`, its object an Activity. */
export function parentLinks(statement: Json): Array<{ activityId: string; parentId: string }> {
  const object = statement.object;
  if (!isObject(object) || (object.objectType !== undefined && object.objectType !== 'Activity') || typeof object.id !== 'string')
    return [];
  const context = isObject(statement.context) ? statement.context : {};
  const parents = isObject(context.contextActivities) ? context.contextActivities.parent : undefined;
  const list = Array.isArray(parents) ? parents : parents === undefined ? [] : [parents];
  const activityId = object.id;
  return list.flatMap((parent) =>
    isObject(parent) && typeof parent.id === 'string' && parent.id !== activityId ? [{ activityId, parentId: parent.id }] : [],
  );
}

/** The earlier of two `at`s (ISO instants in UTC, compared as text as firstAt's are); `a` may be absent. */
const earlier = (a: string | undefined, b: string): string => (a === undefined || b < a ? b : a);

/** A record with one more statement folded in; `record` undefined starts a new one. */
export function applyFact(
  record: CompletionRecord | undefined,
  key: CompletionKey & { actor: Json },
  fact: CompletionFact,
): CompletionRecord {
  const status = fact.status ?? 'in-progress';
  if (record === undefined) {
    const fresh: CompletionRecord = { ...key, status, firstAt: fact.at, lastAt: fact.at, statementIds: [fact.statementId] };
    if (fact.progress !== undefined) fresh.progress = fact.progress;
    if (fact.score !== undefined) Object.assign(fresh, { score: fact.score, scoreAt: fact.at });
    if (fact.completes) fresh.completedAt = fact.at;
    if (fact.passes) fresh.passedAt = fact.at;
    return fresh;
  }
  if (record.statementIds.includes(fact.statementId)) return record;
  const next: CompletionRecord = {
    ...record,
    status: betterStatus(record.status, status),
    firstAt: fact.at < record.firstAt ? fact.at : record.firstAt,
    lastAt: fact.at > record.lastAt ? fact.at : record.lastAt,
    statementIds: [...record.statementIds, fact.statementId],
  };
  if (fact.progress !== undefined && (record.progress === undefined || fact.progress > record.progress)) next.progress = fact.progress;
  if (fact.score !== undefined && (record.scoreAt === undefined || fact.at >= record.scoreAt))
    Object.assign(next, { score: fact.score, scoreAt: fact.at });
  if (fact.completes) next.completedAt = earlier(record.completedAt, fact.at);
  if (fact.passes) next.passedAt = earlier(record.passedAt, fact.at);
  return next;
}

/** The record these statements make for one key, or undefined when there are none. */
export function foldFacts(key: CompletionKey & { actor: Json }, facts: readonly CompletionFact[]): CompletionRecord | undefined {
  return facts.reduce<CompletionRecord | undefined>((record, fact) => applyFact(record, key, fact), undefined);
}

/** The text of a key, for maps. */
export const keyText = (key: CompletionKey): string => JSON.stringify([key.agentKey, key.activityId, key.registration]);
