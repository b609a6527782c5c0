import type { SqlClient } from '../../platform/database/sql-client.js';
import { isTenantWide, type Principal } from '../../kernel/principal.js';
import { parseActorId, parseAgentParameter } from '../../kernel/agent.js';
import { SkillsGapErrors } from './skills-gap.errors.js';

/** How a request names the person it is about: `agent` (an xAPI agent as JSON) or `actorId`, or neither. */
export interface PersonParameters {
  agent?: string;
  actorId?: string;
}

/**
 * The agent key of the person a request asks about, once the principal may read them
 * (mayReadPerson): the one `agent` or `actorId` names, else the principal's own actor (a learner
 * credential's). A launch token is refused before anything is read: it stands for one activity,
 * not for the learner's whole record.
 */
export async function personAsked(sql: SqlClient, principal: Principal, query: PersonParameters): Promise<string> {
  if (principal.kind === 'launch') {
    throw SkillsGapErrors.forbidden(
      'A launch token reads its own activity only; skills gaps and recommendations need the learner credential or an admin.',
    );
  }
  if (query.agent !== undefined && query.actorId !== undefined) {
    throw SkillsGapErrors.invalidQuery(
      'actorId',
      "Send at most one of 'agent' (an xAPI agent as JSON) and 'actorId' (<ifi_property>|<ifi_value>), not both.",
    );
  }
  const agentKey =
    query.agent !== undefined
      ? parseAgentParameter(query.agent).key
      : query.actorId !== undefined
        ? parseActorId(query.actorId).key
        : principal.agentKey;
  if (agentKey === undefined) {
    throw SkillsGapErrors.invalidQuery(
      'agent',
      "An API key or an admin has no actor of its own: name the person with 'agent' (an xAPI agent as JSON) or 'actorId' (<ifi_property>|<ifi_value>).",
    );
  }
  await mayReadPerson(sql, principal, agentKey);
  return agentKey;
}

/**
 * The one place that says whether a principal may read a person's learning data (skills gap,
 * recommendations): a tenant-wide principal (an admin, an API key) anyone of its tenant; a
 * learner credential its own actor only. Refused: 403, before the person is looked up, so the
 * answer tells nothing of who exists. Managers (issue 28, item 5: the holder of a position reads
 * the holders of the positions below it) come in here, which is why it may read the database.
 */
export async function mayReadPerson(_sql: SqlClient, principal: Principal, agentKey: string): Promise<void> {
  if (isTenantWide(principal)) return;
  if (principal.kind === 'actor' && principal.agentKey === agentKey) return;
  throw SkillsGapErrors.forbidden('This credential may only read the skills gap and recommendations of its own actor.');
}
