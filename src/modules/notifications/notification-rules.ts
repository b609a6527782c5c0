import { RE2JS } from 're2js';
import { findJsonProblem, textProblem } from '../../platform/json-guard.js';
import { parseAgent } from '../../kernel/agent.js';
import { parseTimestamp } from '../../kernel/timestamp.js';
import { NotificationErrors, type NotificationProblem } from './notification.errors.js';

/** Notifications one POST may make; more: 400 `notifications.too_many`. */
export const MAX_NOTIFICATIONS_PER_REQUEST = 1000;
/** Longest channel name. */
export const MAX_CHANNEL_LENGTH = 200;
/** Longest `query` pattern. */
export const MAX_PATTERN_LENGTH = 256;

/** A notification of a POST, checked: what is left to look up in the actor store and the registry. */
export interface NotificationDraft {
  index: number;
  agentKey: string;
  activityId: string;
  channel: string;
  object: Record<string, unknown>;
}

const FIELDS = new Set(['actor', 'activity', 'channel', 'object']);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks a POST body (one notification or an array of them) and names every problem by index.
 * The actor and the activity are checked for form here, for existence by the caller.
 */
export function checkNotifications(body: unknown): { drafts: NotificationDraft[]; problems: NotificationProblem[] } {
  const items = Array.isArray(body) ? body : [body];
  if (items.length > MAX_NOTIFICATIONS_PER_REQUEST) throw NotificationErrors.tooMany(items.length, MAX_NOTIFICATIONS_PER_REQUEST);
  if (items.length === 0)
    return { drafts: [], problems: [{ index: 0, field: '', message: 'the array is empty: send at least one notification' }] };
  const drafts: NotificationDraft[] = [];
  const problems: NotificationProblem[] = [];
  items.forEach((item, index) => {
    const problem = (field: string, message: string) => problems.push({ index, field, message });
    if (!isObject(item)) return problem('', 'must be a JSON object with actor, activity, channel and object');
    const before = problems.length;
    for (const key of Object.keys(item)) {
      if (!FIELDS.has(key))
        problem(key, key === 'id' || key === 'timestamp' ? 'is set by the server' : 'is not a property of a notification');
    }
    let agentKey = '';
    try {
      agentKey = parseAgent(item.actor, 'actor').key;
    } catch (error) {
      problem('actor', (error as Error).message);
    }
    const activity = item.activity;
    if (!isObject(activity) || typeof activity.id !== 'string' || activity.id === '') {
      problem('activity', 'must be an object with the id (a non-empty string) of an activity of the registry');
    } else if (activity.objectType !== undefined && activity.objectType !== 'Activity') {
      problem('activity', 'objectType must be "Activity" when given');
    } else if (Object.keys(activity).some((key) => key !== 'id' && key !== 'objectType')) {
      problem('activity', 'takes only id (and objectType): the definition comes from the registry');
    } else if (textProblem(activity.id)) {
      problem('activity', `id ${textProblem(activity.id)?.why}`);
    }
    const channel = item.channel;
    if (typeof channel !== 'string' || channel === '' || channel.length > MAX_CHANNEL_LENGTH) {
      problem('channel', `must be a string of 1 to ${MAX_CHANNEL_LENGTH} characters`);
    } else if (textProblem(channel)) {
      problem('channel', textProblem(channel)?.why ?? '');
    }
    const object = item.object;
    if (!isObject(object)) {
      problem('object', 'must be a JSON object');
    } else {
      const found = findJsonProblem(object, 'object');
      if (found) problem('object', `${found.path} ${found.why}`);
    }
    if (problems.length > before) return;
    drafts.push({
      index,
      agentKey,
      activityId: (activity as { id: string }).id,
      channel: channel as string,
      object: object as Record<string, unknown>,
    });
  });
  return { drafts, problems };
}

/** `activity:tags`: comma-separated, blanks around a tag ignored; at least one tag. */
export function parseTags(text: string): string[] {
  const tags = text
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  if (tags.length === 0)
    throw NotificationErrors.invalidQuery('activity:tags', "'activity:tags' must name at least one tag (comma-separated).");
  return [...new Set(tags)];
}

/** `since` or `until`: an ISO 8601 date-time with a zone. */
export function parseInstant(parameter: 'since' | 'until', text: string): Date {
  const instant = parseTimestamp(text, { requireZone: true });
  if (!instant)
    throw NotificationErrors.invalidQuery(
      parameter,
      `'${parameter}' must be an ISO 8601 date-time with a zone, such as 2026-01-31T12:00:00.000Z.`,
    );
  return instant;
}

/** A compiled `query`: true when any of the texts matches somewhere. */
export type TextMatcher = (texts: readonly string[]) => boolean;

/**
 * Compiles `query` with RE2 (re2js): matching takes time linear in the text whatever the
 * pattern, so `(a+)+$` cannot stall the server as it would a backtracking engine. What RE2
 * cannot run in linear time (backreferences, lookaround) it refuses, as it does a malformed
 * pattern: both answer 400, as does a pattern longer than {@link MAX_PATTERN_LENGTH}.
 */
export function compilePattern(pattern: string): TextMatcher {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw NotificationErrors.invalidQuery('query', `'query' is longer than the ${MAX_PATTERN_LENGTH} characters a pattern may have.`);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    throw NotificationErrors.invalidQuery(
      'query',
      `'query' is not a regular expression this server runs (RE2 syntax; no backreferences or lookaround): ${(error as Error).message}`,
    );
  }
  return (texts) => texts.some((text) => compiled.test(text));
}
