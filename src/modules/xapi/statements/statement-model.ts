import { findJsonProblem } from '../../../platform/json-guard.js';
import { parseAgent } from '../../../kernel/agent.js';
import { parseTimestamp } from '../../../kernel/timestamp.js';
import { VOIDED_VERB } from './statement-validator.js';
import type { Json, JsonObject } from '../../../kernel/formats.js';
import type { AgentMention } from '../../actors/index.js';

/**
 * Pure statement logic between validation and storage: completing a statement with what the
 * LRS assigns, deriving the columns it is filtered by, comparing two statements, and the
 * `ids` and `canonical` formats of GET. Statements here have passed `validateStatement`, which
 * bounds their nesting (MAX_JSON_DEPTH), so the recursion below is bounded too; `ids` and
 * `canonical` recurse only through the statement's own structure, never into extensions.
 */

export type StatementFormat = 'exact' | 'ids' | 'canonical';

export interface Assigned {
  id: string;
  /** ISO 8601 with milliseconds, UTC. */
  stored: string;
  authority: JsonObject;
  /** The version set when the statement has none: "1.0.0" for a 1.0.3 request, "2.0.0" for 2.0.0. */
  version: string;
}

/**
 * The statement as the LRS stores it (xAPI 2.0 Part 2 §2.4): its id, `stored`, `authority`
 * (always the credential's, 2.0 Part 2 §2.4.9), `version` when absent, `timestamp` = stored
 * when absent, and single context activities as arrays of one (2.0 Part 2 §2.4.6.2).
 */
export function completeStatement(sent: JsonObject, assigned: Assigned): JsonObject {
  const statement: JsonObject = { ...sent, id: assigned.id };
  statement.timestamp = sent.timestamp ?? assigned.stored;
  statement.stored = assigned.stored;
  statement.authority = assigned.authority;
  statement.version = sent.version ?? assigned.version;
  if (isObject(sent.context)) statement.context = withContextActivityArrays(sent.context);
  const object = sent.object as JsonObject;
  if (object.objectType === 'SubStatement' && isObject(object.context)) {
    statement.object = { ...object, context: withContextActivityArrays(object.context) };
  }
  return statement;
}

function withContextActivityArrays(context: JsonObject): JsonObject {
  if (!isObject(context.contextActivities)) return context;
  const activities = mapEntries(context.contextActivities, (value) => (Array.isArray(value) ? value : [value]));
  return { ...context, contextActivities: activities };
}

/**
 * A copy of `object` with each value passed through `map`. The keys are the sender's: built with
 * Object.fromEntries, which defines them, because assigning (`out[key] = …`) a `"__proto__"` key
 * would set the copy's prototype instead, dropping the key from what is compared or shown.
 */
const mapEntries = (object: JsonObject, map: (value: Json) => Json): JsonObject =>
  Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));

/** What a stored statement is found by: the columns and rows `statement.repository.ts` writes beside it. */
export interface StatementIndex {
  verbId: string;
  registration: string | null;
  /** The id in the StatementRef object, voiding or not. */
  objectStatementId: string | null;
  voiding: boolean;
  /** Agent key → true when the `agent` filter matches it, false when only `related_agents` does. */
  agents: Map<string, boolean>;
  /** The keys of the statement's own actor: the agent, or an identified group and its members. */
  actors: Set<string>;
  /** Activity id → true when it is the object, false when only `related_activities` matches it. */
  activities: Map<string, boolean>;
  /** Activity definitions the statement carries, in order: the last one wins as canonical. */
  definitions: Array<{ id: string; definition: JsonObject }>;
  /**
   * Every agent and identified group named, with the name it was given there, for the Agents
   * resource and the actor store; a group with `objectType` 'Group' and, when sent, its members.
   */
  people: Person[];
}

/** An agent or identified group a statement names. */
/** An agent or identified group a statement names (recorded by the actors module). */
export type Person = AgentMention;

export function indexStatement(statement: JsonObject): StatementIndex {
  const object = statement.object as JsonObject;
  const verb = statement.verb as JsonObject;
  const context = statement.context as JsonObject | undefined;
  const index: StatementIndex = {
    verbId: verb.id as string,
    registration: typeof context?.registration === 'string' ? context.registration.toLowerCase() : null,
    objectStatementId: object.objectType === 'StatementRef' ? (object.id as string).toLowerCase() : null,
    voiding: verb.id === VOIDED_VERB,
    agents: new Map(),
    actors: new Set(),
    activities: new Map(),
    definitions: [],
    people: [],
  };
  const personOf = (agent: JsonObject): Person => {
    const { key, agent: ifi } = parseAgent({ ...agent, objectType: undefined });
    return { key, ifi: ifi as JsonObject, ...(typeof agent.name === 'string' ? { name: agent.name } : {}) };
  };
  const addAgent = (value: Json | undefined, direct: boolean) => {
    if (!isObject(value)) return;
    const members = (Array.isArray(value.member) ? value.member : []).filter(
      (member): member is JsonObject => isObject(member) && hasIfi(member),
    );
    const people = members.map(personOf);
    if (hasIfi(value)) {
      const person = personOf(value);
      // An identified group is an actor of its own (interface 2.6), stored with its members.
      if (value.objectType === 'Group') {
        person.objectType = 'Group';
        if (Array.isArray(value.member))
          person.members = people.map((member) => ({ ...(member.name !== undefined ? { name: member.name } : {}), ...member.ifi }));
      }
      people.unshift(person);
    }
    for (const person of people) {
      index.agents.set(person.key, direct || index.agents.get(person.key) === true);
      index.people.push(person);
    }
  };
  const addActivity = (value: Json | undefined, direct: boolean) => {
    if (!isObject(value) || typeof value.id !== 'string') return;
    index.activities.set(value.id, direct || index.activities.get(value.id) === true);
    if (isObject(value.definition)) index.definitions.push({ id: value.id, definition: value.definition });
  };
  const addContext = (value: Json | undefined) => {
    if (!isObject(value)) return;
    addAgent(value.instructor, false);
    addAgent(value.team, false);
    if (isObject(value.contextActivities)) {
      for (const list of Object.values(value.contextActivities)) {
        for (const activity of Array.isArray(list) ? list : [list]) addActivity(activity, false);
      }
    }
  };

  addAgent(statement.actor, true);
  index.actors = new Set(index.agents.keys());
  addObject(object, true);
  addContext(context);
  const named = index.people.length;
  addAgent(statement.authority, false);
  for (const person of index.people.slice(named)) person.authority = true;

  function addObject(value: JsonObject, direct: boolean): void {
    switch (value.objectType) {
      case undefined:
      case 'Activity':
        return addActivity(value, direct);
      case 'Agent':
      case 'Group':
        return addAgent(value, direct);
      case 'SubStatement':
        addAgent(value.actor, false);
        addObject(value.object as JsonObject, false);
        addContext(value.context);
        return;
    }
  }
  return index;
}

const hasIfi = (agent: JsonObject) => ['mbox', 'mbox_sha1sum', 'openid', 'account'].some((key) => agent[key] !== undefined);

/**
 * True when two statements are the same statement by the comparison rules of xAPI 2.0 Part 2
 * §2.3.1: what the LRS assigns (id, authority, stored, version, and a timestamp left out) is
 * ignored, as are Activity definitions, Verb displays, attachments, the order of a Group's
 * members, the serialization of timestamps and duration digits beyond 0.01 s; everything else
 * must match.
 */
export function sameStatement(sent: JsonObject, stored: JsonObject): boolean {
  // Stored before the depth limit existed, and deeper than a sent statement may be: not the
  // same (a conflict), and not walked by the recursion below.
  if (findJsonProblem(stored, 'stored', { strings: false })) return false;
  const a = comparable(sent, sent.timestamp === undefined);
  const b = comparable(stored, sent.timestamp === undefined);
  return canonicalJson(a) === canonicalJson(b);
}

function comparable(statement: JsonObject, ignoreTimestamp: boolean): Json {
  const { id: _id, authority: _authority, stored: _stored, version: _version, attachments: _attachments, ...rest } = statement;
  if (ignoreTimestamp) delete rest.timestamp;
  return normalise(rest, '');
}

function normalise(value: Json, key: string): Json {
  if (Array.isArray(value)) {
    const items = value.map((item) => normalise(item, ''));
    return key === 'member' ? items.sort((x, y) => canonicalJson(x).localeCompare(canonicalJson(y))) : items;
  }
  if (!isObject(value)) {
    if (key === 'timestamp' && typeof value === 'string') return parseTimestamp(value)?.toISOString() ?? value;
    // 2.0 Part 2 §4.6: precision beyond 0.01 s is not part of a duration's comparison.
    if (key === 'duration' && typeof value === 'string') return value.replace(/([.,]\d{2})\d+S$/, '$1S');
    return value;
  }
  const out: JsonObject = Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => name !== 'definition' && name !== 'display' && name !== 'attachments')
      .map(([name, child]) => [name, normalise(child, name)]),
  );
  // A single context activity and an array of one are the same (2.0 Part 2 §2.4.6.2).
  if (isObject(out.contextActivities))
    out.contextActivities = mapEntries(out.contextActivities, (list) => (Array.isArray(list) ? list : [list]));
  if (out.objectType === 'Activity') delete out.objectType;
  if (out.objectType === 'Agent' && key !== 'object') delete out.objectType;
  return out;
}

/** JSON text with object keys sorted: equal for equal values whatever the key order. */
export function canonicalJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * `format=ids` (xAPI 2.0 Part 3 §2.1.3): Agents and identified Groups reduced to their IFI,
 * anonymous Groups to their members' IFIs, Activities to their id, Verbs to their id.
 */
export function idsFormat(statement: JsonObject): JsonObject {
  return reduce(statement, (value, role) => {
    switch (role) {
      case 'actor':
        return actorIds(value);
      case 'verb':
        return { id: value.id };
      case 'activity':
        // objectType defaults to Activity, so the id alone identifies it.
        return { id: value.id };
    }
  });
}

function actorIds(actor: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (actor.objectType !== undefined) out.objectType = actor.objectType;
  for (const key of ['mbox', 'mbox_sha1sum', 'openid', 'account']) if (actor[key] !== undefined) out[key] = actor[key];
  if (!hasIfi(actor) && Array.isArray(actor.member)) out.member = actor.member.map((member) => actorIds(member as JsonObject));
  return out;
}

/**
 * `format=canonical` (xAPI 2.0 Part 3 §2.1.3.s4): each Activity gets the LRS's canonical
 * definition, and every language map in Activities and Verbs keeps one language, chosen by
 * the Accept-Language header for each map on its own.
 */
export function canonicalFormat(
  statement: JsonObject,
  definitions: ReadonlyMap<string, JsonObject>,
  acceptLanguage: string | undefined,
): JsonObject {
  const preferences = parseAcceptLanguage(acceptLanguage);
  return reduce(statement, (value, role) => {
    switch (role) {
      case 'actor':
        return value;
      case 'verb':
        return isObject(value.display) ? { ...value, display: pickLanguage(value.display, preferences) } : value;
      case 'activity': {
        const definition = definitions.get(value.id as string) ?? (value.definition as JsonObject | undefined);
        return definition === undefined ? value : { ...value, definition: definitionInOneLanguage(definition, preferences) };
      }
    }
  });
}

function definitionInOneLanguage(definition: JsonObject, preferences: LanguagePreference[]): JsonObject {
  const out: JsonObject = { ...definition };
  for (const key of ['name', 'description']) {
    if (isObject(out[key])) out[key] = pickLanguage(out[key] as JsonObject, preferences);
  }
  for (const list of ['choices', 'scale', 'source', 'target', 'steps']) {
    if (!Array.isArray(out[list])) continue;
    out[list] = (out[list] as Json[]).map((component) =>
      isObject(component) && isObject(component.description)
        ? { ...component, description: pickLanguage(component.description, preferences) }
        : component,
    );
  }
  return out;
}

interface LanguagePreference {
  tag: string;
  q: number;
}

/** The Accept-Language header (RFC 9110 §12.5.4) as tags by falling preference, q=0 left out. */
export function parseAcceptLanguage(header: string | undefined): LanguagePreference[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, order) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([\d.]+)\s*$/i.exec(param)?.[1]).find((value) => value !== undefined);
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), order };
    })
    .filter((item) => item.tag !== '' && item.q > 0 && !Number.isNaN(item.q))
    .sort((x, y) => y.q - x.q || x.order - y.order)
    .map(({ tag, q }) => ({ tag, q }));
}

/**
 * One entry of a language map: the first preference that matches exactly, or by prefix
 * (RFC 4647 lookup: "en" takes "en-US"), "*" takes any; without a match, the map's first entry.
 */
export function pickLanguage(map: JsonObject, preferences: LanguagePreference[]): JsonObject {
  const tags = Object.keys(map);
  if (tags.length <= 1) return map;
  for (const { tag } of preferences) {
    const match =
      tag === '*'
        ? tags[0]
        : (tags.find((candidate) => candidate.toLowerCase() === tag) ??
          tags.find((candidate) => candidate.toLowerCase().startsWith(`${tag}-`)) ??
          tags.find((candidate) => tag.startsWith(`${candidate.toLowerCase()}-`)));
    if (match !== undefined) return { [match]: map[match] };
  }
  return { [tags[0]]: map[tags[0]] };
}

type Role = 'actor' | 'verb' | 'activity';

/** Rebuilds a statement, passing every Agent/Group, Verb and Activity in it through `map`. */
function reduce(statement: JsonObject, map: (value: JsonObject, role: Role) => JsonObject): JsonObject {
  const actor = (value: Json | undefined) => (isObject(value) ? map(value, 'actor') : value);
  const activity = (value: Json | undefined) => (isObject(value) ? map(value, 'activity') : value);
  const object = (value: JsonObject): JsonObject => {
    switch (value.objectType) {
      case undefined:
      case 'Activity':
        return map(value, 'activity');
      case 'Agent':
      case 'Group':
        return map(value, 'actor');
      case 'SubStatement':
        return body(value);
      default:
        return value;
    }
  };
  const context = (value: JsonObject): JsonObject => {
    const out: JsonObject = { ...value };
    if (value.instructor !== undefined) out.instructor = actor(value.instructor) as Json;
    if (value.team !== undefined) out.team = actor(value.team) as Json;
    if (isObject(value.contextActivities)) {
      out.contextActivities = mapEntries(value.contextActivities, (list) =>
        Array.isArray(list) ? list.map((item) => activity(item) as Json) : (activity(list) as Json),
      );
    }
    if (Array.isArray(value.contextAgents)) {
      out.contextAgents = value.contextAgents.map((entry) => (isObject(entry) ? { ...entry, agent: actor(entry.agent) as Json } : entry));
    }
    if (Array.isArray(value.contextGroups)) {
      out.contextGroups = value.contextGroups.map((entry) => (isObject(entry) ? { ...entry, group: actor(entry.group) as Json } : entry));
    }
    return out;
  };
  const body = (value: JsonObject): JsonObject => {
    const out: JsonObject = { ...value };
    out.actor = actor(value.actor) as Json;
    if (isObject(value.verb)) out.verb = map(value.verb, 'verb');
    if (isObject(value.object)) out.object = object(value.object);
    if (isObject(value.context)) out.context = context(value.context);
    if (value.authority !== undefined) out.authority = actor(value.authority) as Json;
    return out;
  };
  return body(statement);
}

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
