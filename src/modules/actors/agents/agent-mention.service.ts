import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { AgentIdentifier } from '../../../kernel/agent.js';
import type { Json, JsonObject } from '../../../kernel/formats.js';
import { findAgent, upsertAgents } from './agent-mention.repository.js';

/** An agent or identified group as a statement names it (xAPI 2.0 Part 2 §2.4.2). */
export interface AgentMention {
  key: string;
  /** The IFI alone. */
  ifi: JsonObject;
  name?: string;
  /** Set for an identified group only. */
  objectType?: 'Group';
  /** An identified group's members as sent (IFI and name each); absent when it was sent without. */
  members?: JsonObject[];
  /** Set when named as the statement's authority (the credential that stored it), not as a person. */
  authority?: true;
}

/**
 * Records the agents and identified groups statements named, with any names given to them there.
 * A key named as a group in any of them is a group; its members are the last ones sent. An agent
 * named only as an authority is recorded as one (not listed among the people).
 */
export async function recordAgents(sql: SqlClient, tenantId: string, seen: readonly AgentMention[], updated: string): Promise<void> {
  const agents = new Map<
    string,
    { key: string; ifi: JsonObject; names: Set<string>; authorityOnly: boolean; objectType?: 'Group'; members?: JsonObject[] }
  >();
  for (const person of seen) {
    const entry = agents.get(person.key) ?? { key: person.key, ifi: person.ifi, names: new Set<string>(), authorityOnly: true };
    if (person.authority !== true) entry.authorityOnly = false;
    if (person.name !== undefined) entry.names.add(person.name);
    if (person.objectType === 'Group') entry.objectType = 'Group';
    if (person.members !== undefined) entry.members = person.members;
    agents.set(person.key, entry);
  }
  await upsertAgents(
    sql,
    tenantId,
    // In key order, so two batches upserting the same agents lock their rows in one order.
    [...agents.values()]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((entry) => ({
        key: entry.key,
        ifi: entry.ifi,
        names: [...entry.names],
        authorityOnly: entry.authorityOnly,
        objectType: entry.objectType ?? 'Agent',
        ...(entry.members !== undefined ? { members: entry.members } : {}),
      })),
    updated,
  );
}

/**
 * The Person object of `GET /xapi/agents` (xAPI 2.0 Part 3 §2.4): every property an array.
 * This LRS links no identities, so a Person has the one IFI asked about, and the names
 * statements gave it; an agent never seen still gets a Person with its IFI (2.4.s3.b3).
 */
export async function getPerson(sql: SqlClient, tenantId: string, agent: AgentIdentifier): Promise<JsonObject> {
  const seen = await findAgent(sql, tenantId, agent.key);
  const person: JsonObject = { objectType: 'Person' };
  if (seen && seen.names.length > 0) person.name = seen.names;
  person[agent.ifi] = [agent.agent[agent.ifi] as Json];
  return person;
}
