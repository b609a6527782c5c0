import { badRequest } from '../platform/http/app-error.js';
import { findJsonProblem, textProblem } from '../platform/json-guard.js';
import { lengthProblem, MAX_ACCOUNT_PART_BYTES, MAX_IFI_BYTES } from './limits.js';

/** An xAPI Agent (or Identified Group) reduced to its one inverse functional identifier. */
export interface AgentIdentifier {
  /** The IFI property: `mbox`, `mbox_sha1sum`, `openid` or `account`. */
  ifi: 'mbox' | 'mbox_sha1sum' | 'openid' | 'account';
  /**
   * The canonical text of the identifier, the same as the interface's `actorId` form
   * `<ifi_property>|<ifi_value>` (for account: `account|<homePage>|<name>`). Two agent
   * parameters that name the same person give the same key.
   */
  key: string;
  /** The agent as a JSON object with only its IFI (and objectType), for answers. */
  agent: Record<string, unknown>;
}

const IFIS = ['mbox', 'mbox_sha1sum', 'openid', 'account'] as const;
const MAILTO = /^mailto:[^@\s]+@[^@\s]+$/i;
const SHA1_HEX = /^[0-9a-f]{40}$/i;
const IRI = /^[a-z][a-z0-9+.-]*:\S+$/i;

/**
 * Validates an xAPI agent (xAPI 2.0 Part 2 §2.4.2.1 / 1.0.3 §4.1.2.1): an object with exactly
 * one inverse functional identifier of the right form, no longer than limits.ts allows (its key
 * is indexed wherever the agent is stored or filtered on). `parameter` names the query parameter
 * (or the statement property) in the error. Throws 400 naming the problem; a problem of the
 * identifier carries its path in `details.property` (`statement.actor.account.name`).
 */
export function parseAgent(value: unknown, parameter = 'agent'): AgentIdentifier {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('xapi.invalid_agent', `'${parameter}' must be a JSON object (an xAPI Agent).`);
  }
  const agent = value as Record<string, unknown>;
  if (agent.objectType !== undefined && agent.objectType !== 'Agent' && agent.objectType !== 'Group') {
    throw badRequest('xapi.invalid_agent', `'${parameter}'.objectType must be "Agent" or "Group".`);
  }
  const present = IFIS.filter((ifi) => agent[ifi] !== undefined);
  if (present.length !== 1) {
    throw badRequest(
      'xapi.invalid_agent',
      `'${parameter}' must have exactly one inverse functional identifier (mbox, mbox_sha1sum, openid or account); it has ${present.length}.`,
    );
  }
  const ifi = present[0];
  const raw = agent[ifi];
  // `member` names a member of the account (homePage, name) when the problem is that member's.
  const invalid = (why: string, member?: string) => {
    const path = `${ifi}${member === undefined ? '' : `.${member}`}`;
    return badRequest('xapi.invalid_agent', `'${parameter}'.${path} ${why}.`, { property: `${parameter}.${path}` });
  };
  // The key is stored and searched as text, which cannot hold U+0000 or a lone surrogate.
  const texts = typeof raw === 'object' && raw !== null ? Object.entries(raw) : [[undefined, raw]];
  for (const [member, text] of texts) {
    const problem = typeof text === 'string' ? textProblem(text) : undefined;
    if (problem) throw invalid(problem.why, member === 'homePage' || member === 'name' ? member : undefined);
  }
  const tooLong = (text: string, limit: number, member?: string) => {
    const problem = lengthProblem(text, limit);
    if (problem) throw invalid(problem, member);
  };
  const identity: Record<string, unknown> = agent.objectType ? { objectType: agent.objectType } : {};
  switch (ifi) {
    case 'mbox':
      if (typeof raw !== 'string' || !MAILTO.test(raw)) throw invalid('must be a "mailto:" IRI of an e-mail address');
      tooLong(raw, MAX_IFI_BYTES);
      return { ifi, key: `mbox|${raw}`, agent: { ...identity, mbox: raw } };
    case 'mbox_sha1sum':
      if (typeof raw !== 'string' || !SHA1_HEX.test(raw)) throw invalid('must be 40 hexadecimal digits (a SHA-1)');
      return { ifi, key: `mbox_sha1sum|${raw.toLowerCase()}`, agent: { ...identity, mbox_sha1sum: raw.toLowerCase() } };
    case 'openid':
      if (typeof raw !== 'string' || !IRI.test(raw)) throw invalid('must be an absolute URI');
      tooLong(raw, MAX_IFI_BYTES);
      return { ifi, key: `openid|${raw}`, agent: { ...identity, openid: raw } };
    case 'account': {
      const account = raw as Record<string, unknown>;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('must be an object with homePage and name');
      if (typeof account.homePage !== 'string' || !IRI.test(account.homePage)) throw invalid('must be an absolute IRL', 'homePage');
      if (typeof account.name !== 'string' || account.name === '') throw invalid('must be a non-empty string', 'name');
      tooLong(account.homePage, MAX_ACCOUNT_PART_BYTES, 'homePage');
      tooLong(account.name, MAX_ACCOUNT_PART_BYTES, 'name');
      return {
        ifi,
        key: `account|${account.homePage}|${account.name}`,
        agent: { ...identity, account: { homePage: account.homePage, name: account.name } },
      };
    }
  }
}

/**
 * Parses the `agent` query parameter: JSON text of an agent. Its JSON escapes can spell what
 * the query string itself cannot carry (`\u0000`, `\ud800`), so it passes the JSON guard first.
 */
export function parseAgentParameter(text: string, parameter = 'agent'): AgentIdentifier {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('xapi.invalid_agent', `'${parameter}' is not valid JSON.`);
  }
  const problem = findJsonProblem(value, `'${parameter}'`);
  if (problem) throw badRequest('xapi.invalid_agent', `${problem.path} ${problem.why}.`, { property: problem.path });
  return parseAgent(value, parameter);
}

/**
 * Parses an `actorId` (`<ifi_property>|<ifi_value>`; for account `account|<homePage>|<name>`,
 * the homePage ending at the first `|` after it).
 */
export function parseActorId(text: string, parameter = 'actorId'): AgentIdentifier {
  const bar = text.indexOf('|');
  const property = bar < 0 ? text : text.slice(0, bar);
  const rest = bar < 0 ? '' : text.slice(bar + 1);
  switch (property) {
    case 'mbox':
    case 'mbox_sha1sum':
    case 'openid':
      return parseAgent({ [property]: rest }, parameter);
    case 'account': {
      const split = rest.indexOf('|');
      if (split < 0) throw badRequest('xapi.invalid_agent', `'${parameter}' must read account|<homePage>|<name>.`);
      return parseAgent({ account: { homePage: rest.slice(0, split), name: rest.slice(split + 1) } }, parameter);
    }
    default:
      throw badRequest(
        'xapi.invalid_agent',
        `'${parameter}' must read <ifi_property>|<ifi_value> with mbox, mbox_sha1sum, openid or account as the property.`,
      );
  }
}
