/**
 * What an HR system's webhook message says (docs/identity.md, "HR webhooks"), read and checked:
 * pure, no database. A message is one event or a batch of them:
 *
 *   {"type": "person.joined" | "person.moved" | "person.updated", "data": {"name": "…", "attributes": {…}}}
 *   {"type": "person.left", "data": {"attributes": {…the values that identify them…}}}
 *   {"type": "people.batch", "data": {"events": [ …up to 1,000 of the above… ]}}
 *
 * Every problem is named with its JSON pointer; a message with any problem is refused whole.
 */
import { AppError } from '../../../platform/http/app-error.js';
import { textProblem } from '../../../platform/json-guard.js';
import { pointerToken } from '../../../platform/json-pointer.js';

export const PERSON_EVENTS = ['person.joined', 'person.moved', 'person.updated', 'person.left'] as const;
export type PersonEventType = (typeof PERSON_EVENTS)[number];
export const BATCH_EVENT = 'people.batch';
/** The most events a batch holds. */
export const MAX_BATCH_EVENTS = 1000;

/** One event, checked. */
export type HrEvent =
  | {
      /** joined, moved, updated: the person written (created when nobody matches); joined also makes them active again. */
      type: Exclude<PersonEventType, 'person.left'>;
      name?: string;
      /** The attributes sent: each replaces the stored value, `null` removes it; those not sent stay. */
      attributes: Record<string, string | null>;
    }
  | {
      /** left: the person the values identify is deactivated. */
      type: 'person.left';
      attributes: Record<string, string>;
    };

export interface EventProblem {
  path: string;
  message: string;
}

export const HrEventErrors = {
  invalid: (problems: EventProblem[]) =>
    new AppError(
      'identity.invalid_event',
      400,
      `${problems.length === 1 ? '1 problem' : `${problems.length} problems`} in the message (listed in details.problems, each with its JSON pointer); nothing was stored: ${problems
        .slice(0, 3)
        .map((problem) => `${problem.path || '/'} ${problem.message}`)
        .join('; ')}.`,
      { details: { problems: problems.slice(0, 100) } },
    ),
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const pointer = (path: string, key: string) => `${path}/${pointerToken(key)}`;

/** The events of a message, in order; 400 `identity.invalid_event` naming every problem (up to 100). */
export function parseHrMessage(body: unknown): HrEvent[] {
  const problems: EventProblem[] = [];
  const events = readMessage(body, '', problems, true);
  if (problems.length > 0) throw HrEventErrors.invalid(problems);
  return events;
}

function readMessage(message: unknown, path: string, problems: EventProblem[], batchAllowed: boolean): HrEvent[] {
  if (!isObject(message)) {
    problems.push({ path, message: 'must be an object {"type", "data"}' });
    return [];
  }
  for (const key of Object.keys(message)) {
    if (!['type', 'data', 'timestamp'].includes(key)) problems.push({ path: pointer(path, key), message: 'is not a property of an event' });
  }
  const { type, data } = message;
  const types = batchAllowed ? [...PERSON_EVENTS, BATCH_EVENT] : [...PERSON_EVENTS];
  if (typeof type !== 'string' || !types.includes(type as PersonEventType)) {
    problems.push({ path: `${path}/type`, message: `must be one of ${types.join(', ')}` });
    return [];
  }
  if (!isObject(data)) {
    problems.push({ path: `${path}/data`, message: 'must be an object' });
    return [];
  }
  if (type === BATCH_EVENT) return readBatch(data, `${path}/data`, problems);
  return readPersonEvent(type as PersonEventType, data, `${path}/data`, problems);
}

function readBatch(data: Record<string, unknown>, path: string, problems: EventProblem[]): HrEvent[] {
  const { events } = data;
  if (!Array.isArray(events) || events.length === 0 || events.length > MAX_BATCH_EVENTS) {
    problems.push({ path: `${path}/events`, message: `must be an array of 1 to ${MAX_BATCH_EVENTS} events` });
    return [];
  }
  return events.flatMap((event, index) => readMessage(event, `${path}/events/${index}`, problems, false));
}

function readPersonEvent(type: PersonEventType, data: Record<string, unknown>, path: string, problems: EventProblem[]): HrEvent[] {
  for (const key of Object.keys(data)) {
    if (!['name', 'attributes'].includes(key)) problems.push({ path: pointer(path, key), message: 'is not a property of a person' });
  }
  const before = problems.length;
  const name = data.name;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '')) {
    problems.push({ path: `${path}/name`, message: 'must be a non-empty string' });
  } else if (typeof name === 'string' && textProblem(name)) {
    problems.push({ path: `${path}/name`, message: textProblem(name)!.why });
  }
  if (type === 'person.joined' && name === undefined) problems.push({ path: `${path}/name`, message: 'is required for a joiner' });
  const attributes = data.attributes;
  if (!isObject(attributes)) {
    problems.push({ path: `${path}/attributes`, message: 'must be an object of attribute names to strings' });
    return [];
  }
  const read: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(attributes)) {
    const at = pointer(`${path}/attributes`, key);
    const keyProblem = key === '' ? 'must not be an empty attribute name' : textProblem(key)?.why;
    if (keyProblem) problems.push({ path: at, message: keyProblem });
    else if (value === null && type !== 'person.left') read[key] = null;
    else if (typeof value !== 'string')
      problems.push({ path: at, message: type === 'person.left' ? 'must be a string' : 'must be a string, or null to remove it' });
    else if (textProblem(value)) problems.push({ path: at, message: textProblem(value)!.why });
    else read[key] = value;
  }
  if (type === 'person.left' && Object.keys(attributes).length === 0) {
    problems.push({ path: `${path}/attributes`, message: 'must hold the values that identify the leaver' });
  }
  if (problems.length > before) return [];
  if (type === 'person.left') return [{ type, attributes: read as Record<string, string> }];
  return [{ type, ...(typeof name === 'string' ? { name } : {}), attributes: read }];
}
