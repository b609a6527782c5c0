/**
 * Who may read whom (docs/learning.md, "Scoped administration and managers"): the one place that
 * decides which people a principal reaches, for every route that reads or writes people.
 *
 * - An admin or an API key without a scope, and the command line: everyone (no condition at all).
 * - An admin or an API key limited to an organisation entry (`Principal.scope`): the people whose
 *   position (the tenant's `organisationAttribute`) is that entry or an entry below it. A scope
 *   whose entry a later import dropped reaches nobody, as does any scope while the tenant has no
 *   `organisationAttribute`: it fails closed.
 * - A learner credential (`actor`): itself and its reports, the people whose position lies
 *   strictly below its own, at any depth. A person in the same position is a peer, not a report.
 * - A launch token: itself.
 *
 * The rule is SQL text embedded in the statement that reads the people (set-based, one round
 * trip), over `actors` (its `agent_key` and `position_id`), this module's table, and the
 * organisation's subtree fragment; values are bound through the caller's `bind`.
 */
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { SqlFilter } from '../../../platform/database/sql-filters.js';
import { AppError, badRequest } from '../../../platform/http/app-error.js';
import { parseActorId, parseAgentParameter } from '../../../kernel/agent.js';
import { isTenantWide, type Principal } from '../../../kernel/principal.js';
import type { PersonReach } from '../../../kernel/person-reach.port.js';
import { organisationStructure, organisationSubtreeIdsSql, subtreeOf } from '../../organisation/index.js';
import { positionAmongSql } from '../actor-position.js';

/** Binds a value as the statement's next placeholder and answers it (`SqlValues.bind`, which SqlFilter extends). */
export type Bind = (value: unknown) => string;

/** 404 for a person the principal may not read: the same answer as for a person who does not exist. */
export const PersonAccessErrors = {
  notFound: (agentKey: string) =>
    new AppError('actors.not_found', 404, 'No actor with this identifier is within this credential’s reach.', {
      details: { actorId: agentKey },
    }),
};

/** How a route names one person in its query: `agent` (an xAPI agent as JSON) or `actorId` (`<ifi_property>|<ifi_value>`). */
export interface PersonQuery {
  agent?: string;
  actorId?: string;
}

const invalidQuery = (parameter: string, message: string) => badRequest('actors.invalid_query', message, { parameter });

/**
 * The agent key the query names, or undefined when it names nobody. Both `agent` and `actorId` is
 * 400 `actors.invalid_query` (`details.parameter` `actorId`); a malformed one 400 `xapi.invalid_agent`.
 */
export function agentKeyNamed(query: PersonQuery): string | undefined {
  if (query.agent !== undefined && query.actorId !== undefined) {
    throw invalidQuery(
      'actorId',
      "Send at most one of 'agent' (an xAPI agent as JSON) and 'actorId' (<ifi_property>|<ifi_value>), not both.",
    );
  }
  if (query.agent !== undefined) return parseAgentParameter(query.agent).key;
  if (query.actorId !== undefined) return parseActorId(query.actorId).key;
  return undefined;
}

/** agentKeyNamed for a route about one person, which names nobody by default: naming nobody is 400 `actors.invalid_query` too. */
export function agentKeyRequired(query: PersonQuery): string {
  const named = agentKeyNamed(query);
  if (named === undefined) {
    throw invalidQuery('agent', "Name the person with 'agent' (an xAPI agent as JSON) or 'actorId' (<ifi_property>|<ifi_value>).");
  }
  return named;
}

/** True for a principal that reaches every person of its tenant: the rule adds no condition. */
export const readsEveryone = (principal: Principal): boolean => isTenantWide(principal) && principal.scope === undefined;

/** SQL: the actor `alias` holds a position in the subtree of the entry `entry` (an SQL expression: a placeholder). */
const placedWithin = (alias: string, tenant: string, entry: string) =>
  positionAmongSql(alias, organisationSubtreeIdsSql(tenant, entry, true));

/**
 * SQL: a condition over an `actors` row (`alias`: its `agent_key` and `position_id`) that holds for
 * the actors `principal` may read, its values bound with `bind`; undefined when it reads everyone
 * (no condition: the statement stays as it was).
 */
export function readableActorCondition(principal: Principal, alias: string, tenant: string, bind: Bind): string | undefined {
  if (readsEveryone(principal)) return undefined;
  if (principal.scope !== undefined) return placedWithin(alias, tenant, bind(principal.scope.organisationId));
  if (principal.agentKey === undefined) return 'false';
  const self = bind(principal.agentKey);
  if (principal.kind !== 'actor') return `${alias}.agent_key = ${self}`;
  return `(${alias}.agent_key = ${self} OR ${directReportCondition(alias, tenant, self)})`;
}

/**
 * SQL: the actor `alias` is a report of the person stored under the agent key `manager` (a
 * placeholder): its position lies strictly below the manager's, at any depth. False for everyone
 * when the manager has no position, or one the structure does not hold.
 */
export function directReportCondition(alias: string, tenant: string, manager: string): string {
  const position = `(SELECT m.position_id FROM actors m WHERE m.tenant_id = ${tenant} AND m.agent_key = ${manager})`;
  return positionAmongSql(alias, organisationSubtreeIdsSql(tenant, position, false));
}

/**
 * SQL: a condition on `column` (an agent key, of a table of another module: notifications, the
 * audit log) that holds for the people `principal` may read; NULL never does. Undefined when it
 * reads everyone. The keys are one uncorrelated SELECT over `actors`, run once per statement.
 */
export function readableAgentKeyCondition(principal: Principal, column: string, tenant: string, bind: Bind): string | undefined {
  const condition = readableActorCondition(principal, 'reached', tenant, bind);
  if (condition === undefined) return undefined;
  return `${column} IN (SELECT reached.agent_key FROM actors reached WHERE reached.tenant_id = ${tenant} AND ${condition})`;
}

/** The rule as the kernel's PersonReach, for the modules below actors that list rows about people (the audit log). */
export const personReach: PersonReach = { agentKeyCondition: readableAgentKeyCondition };

/** Whether `principal` may read the person stored under `agentKey` (one primary-key read, none for a principal that reads everyone or itself). */
export async function mayRead(sql: SqlClient, principal: Principal, agentKey: string): Promise<boolean> {
  if (readsEveryone(principal) || (principal.agentKey !== undefined && principal.agentKey === agentKey)) return true;
  return (await readableAmong(sql, principal, [agentKey])).has(agentKey);
}

/** Which of `agentKeys` name people `principal` may read: stored ones it reaches (all of them, stored or not, for a principal that reads everyone). */
export async function readableAmong(sql: SqlClient, principal: Principal, agentKeys: readonly string[]): Promise<Set<string>> {
  const keys = [...new Set(agentKeys)];
  if (readsEveryone(principal) || keys.length === 0) return new Set(keys);
  const where = new SqlFilter([principal.tenant.id, keys], 'a.tenant_id = $1', 'a.agent_key = ANY($2::text[])');
  where.and(readableActorCondition(principal, 'a', '$1', (value) => where.bind(value)) as string);
  const { rows } = await sql.query<{ agent_key: string }>(`SELECT a.agent_key FROM actors a ${where.clause}`, where.values);
  return new Set(rows.map((row) => row.agent_key));
}

/** Throws 404 `actors.not_found` unless `principal` may read the person under `agentKey`. */
export async function requireReadable(sql: SqlClient, principal: Principal, agentKey: string): Promise<void> {
  if (!(await mayRead(sql, principal, agentKey))) throw PersonAccessErrors.notFound(agentKey);
}

/**
 * The organisation entries a scoped principal may place people in: its entry and every entry below
 * it (none when the entry no longer exists); undefined for a principal without a scope.
 */
export async function scopeEntryIds(sql: SqlClient, principal: Principal): Promise<ReadonlySet<string> | undefined> {
  if (principal.scope === undefined) return undefined;
  const structure = await organisationStructure(sql, principal.tenant.id);
  return new Set(subtreeOf(structure, principal.scope.organisationId).map((entry) => entry.id));
}

/**
 * SQL: a condition on `column` (an organisation entry id, of another module's table: an
 * assignment's scope) that holds for the entries of a scoped principal's subtree, its entry
 * included; NULL never does. Undefined for a principal without a scope. The subtree is walked once
 * per statement.
 */
export function scopeEntryCondition(principal: Principal, column: string, tenant: string, bind: Bind): string | undefined {
  if (principal.scope === undefined) return undefined;
  return `COALESCE(${column} IN (${organisationSubtreeIdsSql(tenant, bind(principal.scope.organisationId), true)}), false)`;
}

/**
 * SQL: a condition on `column` (an agent key, of another module's table) that holds for the people
 * placed in the organisation entry `entry` (an SQL expression: a placeholder) or below it, the
 * people a credential scoped to that entry reaches. For a scope stored with what it narrows (an
 * assignment's), honoured whoever refreshes it: one primary-key probe of `actors` per key, the
 * subtree walked once per statement, so a refresh of a few people stays a few probes.
 */
export function placedWithinCondition(column: string, tenant: string, entry: string): string {
  return `EXISTS (SELECT 1 FROM actors placed WHERE placed.tenant_id = ${tenant} AND placed.agent_key = ${column}
             AND ${placedWithin('placed', tenant, entry)})`;
}
