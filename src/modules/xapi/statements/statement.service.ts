import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { Refused, WriteBatcher } from '../../../platform/database/write-batcher.js';
import { AppError } from '../../../platform/http/app-error.js';
import type { Principal } from '../../../kernel/principal.js';
import { parseAgent, parseAgentParameter } from '../../../kernel/agent.js';
import { canonicalFormat, completeStatement, idsFormat, indexStatement, sameStatement, type StatementFormat } from './statement-model.js';
import { parseTimestamp } from '../../../kernel/timestamp.js';
import { validateStatement } from './statement-validator.js';
import { isIri, isUuid, type JsonObject, type XapiVersion } from '../../../kernel/formats.js';
import { StatementErrors } from './statement.errors.js';
import {
  matchAttachments,
  NO_ATTACHMENTS,
  unsentAttachments,
  type AttachmentPart,
  type StatementAttachments,
} from './attachments/attachment.js';
import type { AttachmentStore } from './attachments/attachment.store.js';
import { insertUnsentAttachments } from './attachments/unsent-attachment.repository.js';
import { findRegisteredOutside } from '../../activities/index.js';
import { canonicalDefinitions, recordDefinitions } from '../activity-definitions/activity-definition.service.js';
import { recordAgents } from '../../actors/index.js';
import type { StatementProjection } from '../../../kernel/statement-projection.port.js';
import {
  findStatements,
  insertStatements,
  listStatements,
  markVoided,
  voidingCheckIds,
  type NewStatement,
  type Position,
  type KeyMatch,
  type StatementFilter,
  deleteTenantStatementKeys,
} from './statement.repository.js';
import type { StatementQuery } from './statement.schemas.js';
import type { TenantEraser } from '../../../kernel/tenant-eraser.port.js';
import { recordStatementTallies } from './statement-tally.service.js';
import { deleteTenantTallies } from './statement-tally.repository.js';

/** Who writes or reads, and in which dialect. */
/**
 * Where statements are stored: the database (or the caller's transaction), and what the other
 * modules keep from them, brought up to date in the same transaction (the port
 * `statementProjections`: completions' records).
 */
export interface StatementStore {
  sql: SqlClient;
  projections: readonly StatementProjection[];
}

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
 * their data stored in the same transaction (attachment.ts). Resolves to the ids in the order sent.
 */
export async function storeStatements(
  { sql, projections }: StatementStore,
  caller: StatementCaller,
  body: unknown,
  statementId?: string,
  attachments: StatementAttachments = NO_ATTACHMENTS,
  writer?: StatementWriter,
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
  prepared.forEach((item, index) => assertMayWrite(caller.principal, item, paths[index]));
  await attachments.store.stage?.(caller.tenantId, attachmentData);

  const write: StatementWrite = { caller, sent, ids, prepared, paths, attachmentData, store: attachments.store };
  if (writer && writesTogether(write)) await writer.submit(write);
  else {
    await sql.transaction(async (tx) => {
      const [outcome] = await writeStatements(tx, [write], projections);
      if (outcome instanceof Refused) throw outcome.error;
    });
  }
  return ids;
}

/** One request's statements, validated and completed, ready for the transaction that stores them. */
export interface StatementWrite {
  caller: StatementCaller;
  /** As sent (with a launch token's registration), to compare with a stored statement of the same id. */
  sent: JsonObject[];
  ids: string[];
  prepared: NewStatement[];
  paths: string[];
  attachmentData: AttachmentPart[];
  store: AttachmentStore;
}

/** The most statements a request may have for its write to share a transaction with others'. */
const MAX_STATEMENTS_TOGETHER = 10;

/**
 * Which requests share a transaction: those of one or a few statements without attachment data
 * (each request of many statements is its own batch already). A learner's voiding statement goes
 * alone: whether it may void depends on statements being stored before it, not merely sent.
 */
function writesTogether(write: StatementWrite): boolean {
  return (
    write.prepared.length <= MAX_STATEMENTS_TOGETHER &&
    write.attachmentData.length === 0 &&
    (write.caller.principal.agentKey === undefined || !write.prepared.some((item) => item.index.voiding))
  );
}

/**
 * Where the POSTs and PUTs of one or a few statements go: the statement writes of concurrent
 * requests of one tenant share one transaction and one commit (platform/database/write-batcher.ts),
 * each decided in arrival order as if alone. One per process.
 */
export type StatementWriter = WriteBatcher<StatementWrite, void>;

export const statementWriter = ({ sql, projections }: StatementStore): StatementWriter =>
  new WriteBatcher<StatementWrite, void>({
    name: 'statements',
    write: (writes) => sql.transaction((tx) => writeStatements(tx, writes, projections)),
    groupOf: (write) => write.caller.tenantId,
    maxInFlight: 4,
    maxBatch: 50,
  });

/**
 * The write of one or more requests of one tenant, inside one transaction, in arrival order: a
 * request whose statement ids conflict with an earlier request's, or that a launch token or
 * learner may not store, is `Refused` (all of its statements left out); the others' new
 * statements are inserted together, then voiding, activity definitions, agents, the tallies,
 * attachments and last the projections (completion records, kept counts) are applied set-wise. An id stored already with another statement
 * throws (rolling back): alone, as the 409 it is; in a batch, so that each request is written
 * again alone and only the one conflicting is refused.
 */
async function writeStatements(
  tx: SqlClient,
  writes: readonly StatementWrite[],
  projections: readonly StatementProjection[],
): Promise<Array<undefined | Refused>> {
  const outcomes: Array<undefined | Refused> = writes.map(() => undefined);
  const { tenantId } = writes[0].caller;
  for (const [index, write] of writes.entries()) {
    try {
      await assertInLaunchScope(tx, write.caller, write.prepared, write.paths);
      await assertMayVoid(tx, write.caller, write.prepared, write.paths);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      outcomes[index] = new Refused(error);
    }
  }
  // The statements earlier requests of this batch store, which later ones compare with as if stored.
  const earlier = new Map<string, JsonObject>();
  const fresh = new Map<StatementWrite, NewStatement[]>();
  for (const [index, write] of writes.entries()) {
    if (outcomes[index] !== undefined) continue;
    const conflict = write.sent.findIndex((statement, i) => {
      const found = earlier.get(write.ids[i]);
      return found !== undefined && !sameStatement(statement, found);
    });
    if (conflict >= 0) {
      outcomes[index] = new Refused(StatementErrors.conflict(write.ids[conflict]));
      continue;
    }
    const news = write.prepared.filter((item) => !earlier.has(item.id));
    for (const item of news) earlier.set(item.id, item.statement);
    fresh.set(write, news);
  }
  // Inserted first, compared after: an id usually is new, and an insert that skips the ids
  // already stored spares reading them all first.
  const toInsert = [...fresh.values()].flat();
  const inserted = await insertStatements(tx, tenantId, toInsert);
  const taken = toInsert.filter((item) => !inserted.has(item.id));
  if (taken.length > 0) {
    const stored = new Map(
      (
        await findStatements(
          tx,
          tenantId,
          taken.map((item) => item.id),
        )
      ).map((row) => [row.id, row.statement]),
    );
    for (const [write, news] of fresh) {
      for (const item of news.filter((one) => !inserted.has(one.id))) {
        const found = stored.get(item.id);
        if (found && sameStatement(write.sent[write.ids.indexOf(item.id)], found)) continue;
        // Its request's other statements are inserted already: alone, the 409 rolls them back;
        // in a batch, each request is written again alone, so only this one is refused.
        throw writes.length === 1
          ? StatementErrors.conflict(item.id)
          : new Error(`statement ${item.id} conflicts: write each request alone`);
      }
    }
  }
  const insertedItems = toInsert.filter((item) => inserted.has(item.id));
  const voided = await markVoided(tx, tenantId, voidingCheckIds(insertedItems));
  const written = [...fresh].map(([write, news]) => ({ write, items: news.filter((item) => inserted.has(item.id)) }));
  await recordDefinitionsAndAgents(tx, tenantId, written);
  await recordStatementTallies(tx, tenantId, insertedItems, voided);
  for (const { write, items } of written) {
    if (write.attachmentData.length > 0) await write.store.put(tx, tenantId, write.attachmentData);
    if (write.caller.principal.agentKey === undefined) continue;
    const insertedIds = new Set(items.map((item) => item.id));
    const unsent = unsentAttachments(write.sent, write.ids, write.attachmentData).filter((item) => insertedIds.has(item.statementId));
    await insertUnsentAttachments(tx, tenantId, unsent);
  }
  // The projections last: the rows they lock per person (completion records, kept counts) are held
  // from there to the commit only, so that concurrent writes about the same people wait the least.
  for (const project of projections) await project(tx, tenantId, insertedItems, voided);
  return outcomes;
}

/**
 * Records the statements' activity definitions and the people they name. A learner credential
 * or launch token speaks only for its own agent: the other people its statements name (an
 * instructor, a team, an Agent object) are neither created nor changed by them, so it can never
 * turn someone into a Group or give them names.
 */
async function recordDefinitionsAndAgents(
  sql: SqlClient,
  tenantId: string,
  written: ReadonlyArray<{ write: StatementWrite; items: readonly NewStatement[] }>,
): Promise<void> {
  const items = written.flatMap(({ items }) => items);
  if (items.length === 0) return;
  // The requests of a batch were stored within moments of each other: the latest time stands for all.
  const updated = items.reduce((latest, item) => (item.stored > latest ? item.stored : latest), items[0].stored);
  await recordDefinitions(
    sql,
    tenantId,
    items.flatMap((item) => item.index.definitions),
    updated,
  );
  const people = written.flatMap(({ write, items }) => {
    const own = write.caller.principal.agentKey;
    return items
      .flatMap((item) => item.index.people)
      .filter((person) => own === undefined || (person.key === own && person.objectType === undefined));
  });
  await recordAgents(sql, tenantId, people, updated);
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

/**
 * The key of a statement's actor when it is an Agent (not a Group) with an identifier, else undefined.
 * The statement was validated, so an Agent's identifier parses.
 */
function agentActorKey(statement: JsonObject): string | undefined {
  const actor = statement.actor as JsonObject;
  if (actor.objectType !== undefined && actor.objectType !== 'Agent') return undefined;
  return parseAgent({ ...actor, objectType: undefined }).key;
}

/** The id of the statement's object when it is an Activity. */
function objectActivityId(statement: JsonObject): string | undefined {
  const object = statement.object as JsonObject;
  return (object.objectType === undefined || object.objectType === 'Activity') && typeof object.id === 'string' ? object.id : undefined;
}

/** True when the statement's object, or one of its context activities, is this activity. */
function isAbout(statement: JsonObject, activityId: string): boolean {
  if (objectActivityId(statement) === activityId) return true;
  const context = statement.context as JsonObject | undefined;
  const lists =
    context && typeof context.contextActivities === 'object' && context.contextActivities !== null
      ? Object.values(context.contextActivities)
      : [];
  return lists.some((list) => (Array.isArray(list) ? list : [list]).some((activity) => (activity as JsonObject | null)?.id === activityId));
}

/**
 * Actor credentials and launch tokens write only statements whose actor is exactly their own
 * agent: never a Group, identified or anonymous, even one listing them as a member, since a
 * group's identifier and its other members are other people, whose records and kind a learner
 * must not set (docs/xapi-statements.md, "What a learner credential may store"). A launch token
 * writes only about its own activity (the object or a context activity) in its own registration.
 * Admins and API keys write anything in their tenant.
 */
function assertMayWrite(principal: Principal, item: NewStatement, path: string): void {
  if (principal.agentKey === undefined) return;
  if (agentActorKey(item.statement) !== principal.agentKey) {
    throw StatementErrors.forbidden(
      `${path}.actor must be this credential's own agent (an Agent with its identifier, not a Group): a learner credential or launch token stores statements about its learner only.`,
      { path: `${path}.actor` },
    );
  }
  if (principal.activityId !== undefined && !isAbout(item.statement, principal.activityId)) {
    throw StatementErrors.forbidden(
      `This launch token may only store statements about its own activity ${principal.activityId} (as the object or a context activity).`,
      { path: `${path}.object` },
    );
  }
  if (principal.registration !== undefined && item.index.registration !== principal.registration) {
    throw StatementErrors.forbidden(`This launch token may only store statements of its own registration ${principal.registration}.`, {
      path: `${path}.context.registration`,
    });
  }
}

/**
 * A launch token's statement whose object is another activity than its own (content reporting
 * on a question or a page, with the launched activity as a context activity) is refused when
 * that object is in the activities registry outside the launched activity's subtree: otherwise
 * the token of one course could record "passed" for any other course, and make its completion
 * record. Activities below the launched one in the registry, and activities the registry does
 * not hold (the content's own parts), are the content's to report on.
 */
async function assertInLaunchScope(
  sql: SqlClient,
  caller: StatementCaller,
  prepared: readonly NewStatement[],
  paths: readonly string[],
): Promise<void> {
  const root = caller.principal.activityId;
  if (root === undefined) return;
  const objects = prepared.map((item) => objectActivityId(item.statement));
  const others = [...new Set(objects.filter((id): id is string => id !== undefined && id !== root))];
  const outside = new Set(await findRegisteredOutside(sql, caller.tenantId, others, root));
  const index = objects.findIndex((id) => id !== undefined && outside.has(id));
  if (index >= 0) {
    throw StatementErrors.forbidden(
      `This launch token may not store statements about ${objects[index]}: it is a registered activity outside ${root}, the activity the token was launched for.`,
      { path: `${paths[index]}.object.id` },
    );
  }
}

/**
 * A learner credential or launch token voids only statements it may read itself (its own
 * agent's; a launch token's, of its activity and registration) that are stored already or come
 * in the same batch. A voiding statement naming an id not stored yet would void whatever
 * statement later arrives with that id, someone else's too, so it is refused as well.
 */
async function assertMayVoid(
  sql: SqlClient,
  caller: StatementCaller,
  prepared: readonly NewStatement[],
  paths: readonly string[],
): Promise<void> {
  if (caller.principal.agentKey === undefined) return;
  const voiding = prepared.flatMap((item, index) =>
    item.index.voiding && item.index.objectStatementId ? [{ target: item.index.objectStatementId, index }] : [],
  );
  if (voiding.length === 0) return;
  const inBatch = new Map(prepared.map((item) => [item.id, item.statement]));
  const stored = new Map(
    (
      await findStatements(
        sql,
        caller.tenantId,
        voiding.map(({ target }) => target),
      )
    ).map((row) => [row.id, row.statement]),
  );
  for (const { target, index } of voiding) {
    const statement = inBatch.get(target) ?? stored.get(target);
    if (statement === undefined || !mayRead(caller.principal, statement)) {
      throw StatementErrors.forbidden(
        `${paths[index]} voids ${target}, which is not a stored statement of this credential's own: a learner credential or launch token voids only its own statements.`,
        { path: `${paths[index]}.object.id` },
      );
    }
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
      : (
          await format(
            sql,
            caller.tenantId,
            page.map((row) => JSON.parse(row.json) as JsonObject),
            options,
          )
        ).map((statement) => JSON.stringify(statement));
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

/** The statements' part of deleting a tenant (TenancyService.delete runs it in its transaction). */
export const eraseTenantStatements: TenantEraser = async (tx, tenantId) => {
  await deleteTenantStatementKeys(tx, tenantId);
  await deleteTenantTallies(tx, tenantId);
};
