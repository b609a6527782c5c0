import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Principal } from '../../auth/principal.js';
import { parseAgent, parseAgentParameter } from '../agent.js';
import {
  canonicalFormat,
  completeStatement,
  idsFormat,
  indexStatement,
  sameStatement,
  type StatementFormat,
} from './statement-model.js';
import { parseTimestamp } from '../timestamp.js';
import { isIri, isUuid, validateStatement, type JsonObject, type XapiVersion } from './statement-validator.js';
import { StatementErrors } from './statements.errors.js';
import { matchAttachments, NO_ATTACHMENTS, type StatementAttachments } from './attachments.js';
import { canonicalDefinitions, recordDefinitions } from '../activities/activities.service.js';
import { recordAgents } from '../agents/agents.service.js';
import { recordCompletions } from '../../completions/completion.service.js';
import {
  findStatements,
  insertStatements,
  listStatements,
  markVoided,
  type NewStatement,
  type Position,
  type KeyMatch,
  type StatementFilter,
} from './statements.repository.js';
import type { StatementQuery } from './statements.schemas.js';

/** Who writes or reads, and in which dialect. */
export interface StatementCaller {
  tenantId: string;
  principal: Principal;
  version: XapiVersion;
  /** The server's own base URL (`http://host:port`): the homePage of API-key authorities. */
  baseUrl: string;
}

/** The most statements one page holds; `limit=0` and no limit mean this many. */
export const MAX_PAGE_SIZE = 100;

const SINGLE_PARAMETERS = new Set(['format', 'attachments']);

/**
 * The authority the LRS puts on statements stored with this credential (xAPI 2.0 Part 2
 * §2.4.9): an Agent whose account, at this server, is the credential's id: the API key, the
 * admin id, the learner credential's username, or the launch session's id.
 */
export function authorityOf(principal: Principal, baseUrl: string): JsonObject {
  return { objectType: 'Agent', account: { homePage: baseUrl, name: principal.id } };
}

/**
 * Stores statements all-or-nothing (xAPI 2.0 Part 3 §2.1.1, §2.1.2): validates each, gives
 * ids to those without, refuses a batch repeating an id, and in one transaction inserts the
 * new ones, answers 409 for an id already stored with a different statement (an identical one
 * is left alone), applies voiding and records activity definitions and agent names.
 * `statementId` is PUT's parameter. `attachments` are the parts of a multipart/mixed request:
 * matched to the statements' attachments (and signatures checked) before anything is stored,
 * their data stored in the same transaction (attachments.ts). Resolves to the ids in the order sent.
 */
export async function storeStatements(
  sql: SqlClient,
  caller: StatementCaller,
  body: unknown,
  statementId?: string,
  attachments: StatementAttachments = NO_ATTACHMENTS,
): Promise<string[]> {
  if (statementId !== undefined && !isUuid(statementId)) throw StatementErrors.invalidParameter('statementId', 'must be a UUID');
  const batch = Array.isArray(body) ? body : [body];
  if (statementId !== undefined && Array.isArray(body)) {
    throw StatementErrors.invalidParameter('statementId', 'takes one statement in the body, not an array');
  }
  const paths = batch.map((_item, index) => (Array.isArray(body) ? `statements[${index}]` : 'statement'));
  batch.forEach((item, index) => validateStatement(item, paths[index], { version: caller.version }));
  const attachmentData = await matchAttachments(batch as JsonObject[], paths, attachments.parts);
  const sent = withLaunchRegistration(caller.principal, batch as JsonObject[]);

  const ids: string[] = [];
  const seen = new Set<string>();
  for (const statement of sent) {
    const given = typeof statement.id === 'string' ? statement.id.toLowerCase() : undefined;
    if (statementId !== undefined && given !== undefined && given !== statementId.toLowerCase()) {
      throw StatementErrors.idMismatch(given, statementId);
    }
    const id = given ?? statementId?.toLowerCase() ?? randomUUID();
    if (seen.has(id)) throw StatementErrors.duplicateIdInBatch(id);
    seen.add(id);
    ids.push(id);
  }

  const stored = new Date().toISOString();
  const authority = authorityOf(caller.principal, caller.baseUrl);
  const version = caller.version === '2.0.0' ? '2.0.0' : '1.0.0';
  const prepared: NewStatement[] = sent.map((statement, index) => {
    const complete = completeStatement(statement, { id: ids[index], stored, authority, version });
    return { id: ids[index], statement: complete, stored, index: indexStatement(complete) };
  });
  for (const item of prepared) assertMayWrite(caller.principal, item);

  await sql.transaction(async (tx) => {
    const existing = new Map((await findStatements(tx, caller.tenantId, ids)).map((row) => [row.id, row]));
    sent.forEach((statement, index) => {
      const found = existing.get(ids[index]);
      if (found && !sameStatement(statement, found.statement)) throw StatementErrors.conflict(ids[index]);
    });
    const fresh = prepared.filter((item) => !existing.has(item.id));
    const inserted = await insertStatements(tx, caller.tenantId, fresh);
    // A concurrent request stored one of these ids between the read and the insert: compare with it.
    const raced = fresh.filter((item) => !inserted.has(item.id));
    if (raced.length > 0) {
      const now = new Map((await findStatements(tx, caller.tenantId, raced.map((item) => item.id))).map((row) => [row.id, row]));
      for (const item of raced) {
        const found = now.get(item.id);
        if (!found || !sameStatement(sent[ids.indexOf(item.id)], found.statement)) throw StatementErrors.conflict(item.id);
      }
    }
    const insertedItems = prepared.filter((item) => inserted.has(item.id));
    const targets = insertedItems.flatMap((item) => (item.index.voiding && item.index.objectStatementId ? [item.index.objectStatementId] : []));
    const voided = await markVoided(tx, caller.tenantId, [...insertedItems.filter((item) => !item.index.voiding).map((item) => item.id), ...targets]);
    await recordDefinitionsAndAgents(tx, caller.tenantId, insertedItems, stored);
    await recordCompletions(tx, caller.tenantId, insertedItems, voided);
    await attachments.store.put(tx, caller.tenantId, attachmentData);
  });
  return ids;
}

async function recordDefinitionsAndAgents(sql: SqlClient, tenantId: string, items: NewStatement[], updated: string): Promise<void> {
  await recordDefinitions(sql, tenantId, items.flatMap((item) => item.index.definitions), updated);
  await recordAgents(sql, tenantId, items.flatMap((item) => item.index.people), updated);
}

/**
 * A launch token's statements belong to its registration: one without `context.registration`
 * gets it (content that does not send it still files its statements under the launch); one with
 * another is refused in assertMayWrite.
 */
function withLaunchRegistration(principal: Principal, statements: JsonObject[]): JsonObject[] {
  if (principal.registration === undefined) return statements;
  return statements.map((statement) => {
    const context = (statement.context ?? {}) as JsonObject;
    if (context.registration !== undefined) return statement;
    return { ...statement, context: { ...context, registration: principal.registration as string } };
  });
}

/** The agent keys of a statement's actor: the agent, or a group and its members. */
function actorKeys(statement: JsonObject): Set<string> {
  const actor = statement.actor as JsonObject;
  const members = Array.isArray(actor.member) ? actor.member : [];
  const keys = new Set<string>();
  for (const agent of [actor, ...members]) {
    if (typeof agent !== 'object' || agent === null || Array.isArray(agent)) continue;
    if (!['mbox', 'mbox_sha1sum', 'openid', 'account'].some((ifi) => (agent as JsonObject)[ifi] !== undefined)) continue;
    keys.add(parseAgent({ ...agent, objectType: undefined }).key);
  }
  return keys;
}

/** True when the statement's object, or one of its context activities, is this activity. */
function isAbout(statement: JsonObject, activityId: string): boolean {
  const object = statement.object as JsonObject;
  if ((object.objectType === undefined || object.objectType === 'Activity') && object.id === activityId) return true;
  const context = statement.context as JsonObject | undefined;
  const lists = context && typeof context.contextActivities === 'object' && context.contextActivities !== null ? Object.values(context.contextActivities) : [];
  return lists.some((list) => (Array.isArray(list) ? list : [list]).some((activity) => (activity as JsonObject | null)?.id === activityId));
}

/**
 * Actor credentials and launch tokens write only statements whose actor is their own agent (or a
 * group with it as a member); a launch token, only about its own activity (the object or a
 * context activity) and in its own registration. Admins and API keys write anything in their tenant.
 */
function assertMayWrite(principal: Principal, item: NewStatement): void {
  if (principal.agentKey === undefined) return;
  if (!actorKeys(item.statement).has(principal.agentKey)) {
    throw StatementErrors.forbidden('This credential may only store statements whose actor is its own agent (or a group with it as a member).');
  }
  if (principal.activityId !== undefined && !isAbout(item.statement, principal.activityId)) {
    throw StatementErrors.forbidden(
      `This launch token may only store statements about its own activity ${principal.activityId} (as the object or a context activity).`,
    );
  }
  if (principal.registration !== undefined && item.index.registration !== principal.registration) {
    throw StatementErrors.forbidden(`This launch token may only store statements of its own registration ${principal.registration}.`);
  }
}

export interface SingleStatement {
  statement: JsonObject;
  stored: Date;
}

/** A page of the StatementResult as JSON text, and the `more` link in it. */
export interface StatementResultText {
  json: string;
  more: string;
}

export interface ReadOptions {
  format: StatementFormat;
  acceptLanguage?: string;
}

/**
 * GET by statementId or voidedStatementId (xAPI 2.0 Part 3 §2.1.3, §2.1.4): a voided statement
 * is found only by voidedStatementId, any other only by statementId.
 */
export async function getStatement(
  sql: SqlClient,
  caller: StatementCaller,
  id: string,
  voided: boolean,
  options: ReadOptions,
): Promise<SingleStatement> {
  if (!isUuid(id)) throw StatementErrors.invalidParameter(voided ? 'voidedStatementId' : 'statementId', 'must be a UUID');
  const [found] = await findStatements(sql, caller.tenantId, [id.toLowerCase()]);
  if (!found || found.voided !== voided) throw voided ? StatementErrors.voidedNotFound(id) : StatementErrors.notFound(id);
  // What a learner credential or a launch token may not list is not there for it either.
  if (!mayRead(caller.principal, found.statement)) throw voided ? StatementErrors.voidedNotFound(id) : StatementErrors.notFound(id);
  const [statement] = await format(sql, caller.tenantId, [found.statement], options);
  return { statement, stored: found.stored };
}

/**
 * The list permissions of toFilter for one statement: its own actor (or actor group's member) is
 * the caller's agent, and for a launch token it names the token's activity anywhere an activity
 * filter with related_activities looks and carries its registration.
 */
function mayRead(principal: Principal, statement: JsonObject): boolean {
  if (principal.agentKey === undefined) return true;
  const index = indexStatement(statement);
  if (!index.actors.has(principal.agentKey)) return false;
  if (principal.activityId !== undefined && !index.activities.has(principal.activityId)) return false;
  return principal.registration === undefined || index.registration === principal.registration;
}

/** The query parameters other than format and attachments, which a single-statement GET refuses. */
export function filterParameters(query: Record<string, unknown>): string[] {
  return Object.keys(query).filter((key) => query[key] !== undefined && !SINGLE_PARAMETERS.has(key));
}

/**
 * GET without statementId: one page of the StatementResult (as JSON text: with format=exact the
 * stored statements are answered without being parsed), and the `more` link to the next.
 */
export async function listStatementPage(
  sql: SqlClient,
  caller: StatementCaller,
  query: StatementQuery,
  options: ReadOptions,
): Promise<StatementResultText> {
  const filter = toFilter(query, caller.principal);
  const rows = await listStatements(sql, caller.tenantId, filter);
  const page = rows.slice(0, filter.limit);
  const more = rows.length > filter.limit ? moreLink(query, page[page.length - 1].position) : '';
  const statements =
    options.format === 'exact'
      ? page.map((row) => row.json)
      : (await format(sql, caller.tenantId, page.map((row) => JSON.parse(row.json) as JsonObject), options)).map((statement) =>
          JSON.stringify(statement),
        );
  return { json: `{"statements":[${statements.join(',')}],"more":${JSON.stringify(more)}}`, more };
}

/** How many statements carry a value of this kind, roughly, from fewest: the walk starts at the first. */
const WALK_ORDER: Record<KeyMatch['kind'], number> = { r: 0, a: 1, g: 2, v: 3 };

/**
 * The filters of a list, and what the caller may read: an actor credential only statements whose
 * actor is its agent (or a group with it as a member); a launch token also only statements about
 * its activity (the object, a context activity or a SubStatement's) in its registration. The
 * same filters shape the `more` pages, which carry the query but are read by the same caller.
 */
function toFilter(query: StatementQuery, principal: Principal): StatementFilter {
  const filter: StatementFilter = {
    matches: [],
    ascending: query.ascending ?? false,
    limit: query.limit === undefined || query.limit === 0 ? MAX_PAGE_SIZE : Math.min(query.limit, MAX_PAGE_SIZE),
  };
  const related = (flag: boolean | undefined) => (flag === true ? 2 : 1);
  if (query.agent !== undefined) {
    filter.matches.push({ kind: 'g', key: parseAgentParameter(query.agent, 'agent').key, reach: related(query.related_agents) });
  }
  if (query.verb !== undefined) {
    if (!isIri(query.verb)) throw StatementErrors.invalidParameter('verb', 'must be an IRI');
    filter.matches.push({ kind: 'v', key: query.verb, reach: 1 });
  }
  if (query.activity !== undefined) {
    if (!isIri(query.activity)) throw StatementErrors.invalidParameter('activity', 'must be an IRI');
    filter.matches.push({ kind: 'a', key: query.activity, reach: related(query.related_activities) });
  }
  if (query.registration !== undefined) {
    if (!isUuid(query.registration)) throw StatementErrors.invalidParameter('registration', 'must be a UUID');
    filter.matches.push({ kind: 'r', key: query.registration.toLowerCase(), reach: 1 });
  }
  if (principal.agentKey !== undefined) filter.matches.push({ kind: 'g', key: principal.agentKey, reach: 0 });
  if (principal.activityId !== undefined) filter.matches.push({ kind: 'a', key: principal.activityId, reach: 2 });
  if (principal.registration !== undefined) filter.matches.push({ kind: 'r', key: principal.registration, reach: 1 });
  filter.matches.sort((a, b) => WALK_ORDER[a.kind] - WALK_ORDER[b.kind] || a.reach - b.reach);
  for (const key of ['since', 'until'] as const) {
    const value = query[key];
    if (value === undefined) continue;
    const instant = parseTimestamp(value);
    if (!instant) throw StatementErrors.invalidParameter(key, 'must be an ISO 8601 timestamp');
    filter[key] = instant.toISOString();
  }
  if (query.cursor !== undefined) filter.after = parseCursor(query.cursor);
  return filter;
}

/**
 * The `more` IRL (xAPI 2.0 Part 2 §2.5): the same query with a cursor after the last statement
 * of this page. A relative IRL on this server, so any API process can answer it.
 */
function moreLink(query: StatementQuery, last: Position): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || key === 'cursor') continue;
    params.set(key, String(value));
  }
  params.set('cursor', Buffer.from(JSON.stringify([last.stored, last.seq])).toString('base64url'));
  return `/xapi/statements?${params.toString()}`;
}

function parseCursor(cursor: string): Position {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(decoded) && decoded.length === 2) {
      const [stored, seq] = decoded;
      if (typeof seq === 'string' && /^\d{1,19}$/.test(seq) && parseTimestamp(stored)) return { stored: stored as string, seq };
    }
  } catch {
    // falls through to the error below
  }
  throw StatementErrors.invalidCursor();
}

async function format(sql: SqlClient, tenantId: string, statements: JsonObject[], options: ReadOptions): Promise<JsonObject[]> {
  switch (options.format) {
    case 'exact':
      return statements;
    case 'ids':
      return statements.map(idsFormat);
    case 'canonical': {
      const ids = new Set<string>();
      for (const statement of statements) for (const id of indexStatement(statement).activities.keys()) ids.add(id);
      const definitions = await canonicalDefinitions(sql, tenantId, [...ids]);
      return statements.map((statement) => canonicalFormat(statement, definitions, options.acceptLanguage));
    }
  }
}

