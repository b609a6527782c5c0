/**
 * The rules of writing one agent (`PUT /api/actors/agents`, interface 4.2 and 5.3) as pure
 * functions: what the body must be, and which stored actor it names. The service feeds them what
 * the store holds and writes what they decide. docs/actors.md, "Writing one agent", lists them.
 */
import { AppError, badRequest, conflict } from '../../../platform/http/app-error.js';
import { findJsonProblem } from '../../../platform/json-guard.js';
import { parseAgent, type AgentIdentifier } from '../../../kernel/agent.js';
import { lengthProblem, MAX_ACCOUNT_PART_BYTES } from '../../../kernel/limits.js';
import { ATTRIBUTES_PATH, isAttributesKey } from '../attributes/actor-attributes.js';
import type { Identifier } from '../actor-identifiers.repository.js';

/** A sent agent that passed the checks: what the write stores. */
export interface AgentWrite {
  /** The canonical key of the sent IFI (agent.ts). */
  key: string;
  /** The IFI property sent: `mbox`, `mbox_sha1sum`, `openid` or `account`. */
  ifiProperty: AgentIdentifier['ifi'];
  /** The sent IFI alone (`{mbox}`, `{account: {homePage, name}}`), as a new actor stores it. */
  ifi: Record<string, unknown>;
  /** Absent: the stored name stays. */
  name?: string;
  /** The attributes sent under the attributes key; absent: the stored attributes stay. */
  attributes?: Record<string, string>;
  /** Where the attributes were sent (`extensions["…/api/ext/agent/attributes"]`), for messages. */
  attributesPath?: string;
}

export type { Identifier } from '../actor-identifiers.repository.js';

const KNOWN_PROPERTIES = new Set(['objectType', 'name', 'mbox', 'mbox_sha1sum', 'openid', 'account', 'extensions']);
const IFIS = ['mbox', 'mbox_sha1sum', 'openid', 'account'] as const;
/** A name shown in a message is cut here, so a huge property name cannot make a huge answer. */
const SHOWN_LIMIT = 100;

const invalid = (message: string, property?: string) =>
  badRequest('actors.invalid_agent', message, property === undefined ? undefined : { property });
const shown = (text: string) => JSON.stringify(text.length > SHOWN_LIMIT ? `${text.slice(0, SHOWN_LIMIT)}…` : text);
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The body of `PUT /api/actors/agents`: an xAPI Agent (not a Group) with exactly one IFI of the
 * right form (agent.ts's rules, answered here as `actors.invalid_agent`), `name` a string,
 * `extensions` an object whose attributes key (`http(s)://{any host}/api/ext/agent/attributes`)
 * holds an object of string values. Other extension keys are ignored: the organisation and job
 * extensions GET /api/actors shows are derived, and an agent read there may be sent back as it is.
 * Throws 400 naming the first problem.
 */
export function parseAgentWrite(body: unknown): AgentWrite {
  if (!isPlainObject(body)) throw invalid('The body must be a JSON object: an xAPI Agent.');
  // First, before anything walks it: text PostgreSQL cannot store, or nesting too deep.
  const problem = findJsonProblem(body, "'agent'");
  if (problem) throw invalid(`${problem.path} ${problem.why}.`, problem.path);

  if (body.objectType !== undefined && body.objectType !== 'Agent') {
    throw invalid(
      `'agent'.objectType must be "Agent"${body.objectType === 'Group' ? ': groups are recorded from the statements that name them, not written here' : ''}.`,
      'objectType',
    );
  }
  for (const property of Object.keys(body)) {
    if (!KNOWN_PROPERTIES.has(property)) {
      throw invalid(
        `'agent' has the property ${shown(property)}, which an agent does not have (objectType, name, an identifier, extensions).`,
        property,
      );
    }
  }

  const sentIfis = IFIS.filter((ifi) => body[ifi] !== undefined);
  let identifier: AgentIdentifier;
  try {
    identifier = parseAgent(Object.fromEntries(sentIfis.map((ifi) => [ifi, body[ifi]])), 'agent');
  } catch (error) {
    // agent.ts answers in the xAPI resources' code; this route's problems are actors.invalid_agent,
    // named as this route names them (`account.name`, not `agent.account.name`).
    if (error instanceof AppError) {
      const named = typeof error.details?.property === 'string' ? error.details.property.replace(/^agent\./, '') : undefined;
      throw invalid(error.message, named ?? (sentIfis.length === 1 ? sentIfis[0] : undefined));
    }
    throw error;
  }

  if (body.name !== undefined && typeof body.name !== 'string') throw invalid("'agent'.name must be a string.", 'name');

  const write: AgentWrite = { key: identifier.key, ifiProperty: identifier.ifi, ifi: identifier.agent };
  if (body.name !== undefined) write.name = body.name as string;
  const attributes = attributesOf(body.extensions);
  if (attributes !== undefined) {
    write.attributes = attributes.attributes;
    write.attributesPath = attributes.path;
  }
  return write;
}

/** The attributes under the attributes key of `extensions`, checked, and their path; undefined when none were sent. */
function attributesOf(extensions: unknown): { attributes: Record<string, string>; path: string } | undefined {
  if (extensions === undefined) return undefined;
  if (!isPlainObject(extensions)) throw invalid("'agent'.extensions must be an object of extension keys to values.", 'extensions');
  const keys = Object.keys(extensions).filter(isAttributesKey);
  if (keys.length === 0) return undefined;
  if (keys.length > 1) {
    throw invalid(`'agent'.extensions has the attributes key twice (${keys.map(shown).join(', ')}); send it once.`, 'extensions');
  }
  const [key] = keys;
  const sent = extensions[key];
  const path = `extensions[${shown(key)}]`;
  if (!isPlainObject(sent)) throw invalid(`'agent'.${path} must be an object of attribute names to string values.`, path);
  // Copied into a null-prototype object: a name such as "__proto__" is an attribute like any other.
  const attributes: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(sent)) {
    if (name === '') throw invalid(`'agent'.${path} has an attribute with an empty name.`, path);
    if (typeof value !== 'string') throw invalid(`The value of attribute ${shown(name)} must be a string.`, `${path}[${shown(name)}]`);
    attributes[name] = value;
  }
  return { attributes: { ...attributes }, path };
}

/**
 * The values of the tenant's unique attributes an agent's attributes hold, in the settings'
 * order; empty values identify nobody (as in the user import). A unique value is indexed
 * (actor_identifiers) and may name an account, so it is held to an account name's length
 * (limits.ts): a longer one is a 400 naming it (`path` is where the attributes were sent).
 */
export function identifiersOf(
  attributes: Readonly<Record<string, string>> | undefined,
  uniqueAttributes: readonly string[],
  path = 'attributes',
): Identifier[] {
  if (!attributes) return [];
  return uniqueAttributes.flatMap((attribute) => {
    const value = Object.hasOwn(attributes, attribute) ? attributes[attribute] : '';
    const problem = value ? lengthProblem(value, MAX_ACCOUNT_PART_BYTES) : undefined;
    if (problem) {
      const property = `${path}[${shown(attribute)}]`;
      throw invalid(`The value of the unique attribute ${shown(attribute)} ${problem}.`, property);
    }
    return value ? [{ attribute, value }] : [];
  });
}

/** What the store holds that a sent agent meets. */
export interface StoredMatches {
  /** The actor stored under the sent IFI's key, if any. */
  byKey?: { objectType: 'Agent' | 'Group' };
  /** The holders of the sent unique values. */
  holders: ReadonlyArray<Identifier & { agentKey: string }>;
}

export type Resolution =
  | { action: 'create'; key: string }
  /** `matchedBy`: the IFI property (`mbox`, …), or `attributes.<name>` for a unique attribute. */
  | { action: 'update'; key: string; matchedBy: string };

/**
 * Which actor a sent agent writes: the one stored under its IFI's key; failing that, the one
 * holding one of its unique values; failing that, a new one under its IFI. Everything that names
 * an actor must name the same one: an IFI naming one actor and a unique value another, or two
 * values naming two actors, is a 409 naming both, and nothing is written.
 */
export function resolveAgentWrite(write: AgentWrite, identifiers: readonly Identifier[], stored: StoredMatches): Resolution {
  const matches: Array<{ key: string; by: string; what: string }> = [];
  if (stored.byKey) {
    if (stored.byKey.objectType === 'Group') {
      throw conflict(
        'actors.not_an_agent',
        `The ${write.ifiProperty} sent identifies a group a statement named; this path writes agents.`,
        {
          actorId: write.key,
        },
      );
    }
    matches.push({ key: write.key, by: write.ifiProperty, what: `the identifier (${write.ifiProperty})` });
  }
  for (const identifier of identifiers) {
    const holder = stored.holders.find((held) => held.attribute === identifier.attribute && held.value === identifier.value);
    if (holder)
      matches.push({
        key: holder.agentKey,
        by: `attributes.${identifier.attribute}`,
        what: `the attribute ${shown(identifier.attribute)}`,
      });
  }
  const distinct = matches.filter((match, index) => matches.findIndex((other) => other.key === match.key) === index);
  if (distinct.length > 1) {
    const [first, second] = distinct;
    throw conflict(
      'actors.ambiguous_match',
      `${first.what[0].toUpperCase()}${first.what.slice(1)} matches one actor and ${second.what} another; an agent may match one actor only. Nothing was changed.`,
      { matches: distinct.map((match) => ({ matchedBy: match.by, actorId: match.key })) },
    );
  }
  if (distinct.length === 1) return { action: 'update', key: distinct[0].key, matchedBy: distinct[0].by };
  return { action: 'create', key: write.key };
}

/** What another module says of a person it writes (identity's channels), typed: no wire format to build. */
export interface PersonFields {
  /** The person's one identifier, as an xAPI Agent holds it (`{account: {homePage, name}}`, `{mbox}`…). */
  ifi: Record<string, unknown>;
  /** Undefined: the stored name stays. */
  name?: string;
  /** The person's whole attributes after the write; undefined: the stored ones stay. */
  attributes?: Readonly<Record<string, string>>;
}

/**
 * A person another module writes, checked as an Agent sent to `PUT /api/actors/agents` is (the
 * identifier's form, text PostgreSQL cannot store, attribute names): the same rules and the same
 * 400s, without the caller building the Agent's JSON and its attributes extension key, which are
 * this module's wire format.
 */
export function personWriteOf(person: PersonFields): AgentWrite {
  return parseAgentWrite({
    objectType: 'Agent',
    ...person.ifi,
    ...(person.name === undefined ? {} : { name: person.name }),
    ...(person.attributes === undefined ? {} : { extensions: { [`http://localhost${ATTRIBUTES_PATH}`]: person.attributes } }),
  });
}
