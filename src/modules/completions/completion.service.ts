import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Principal } from '../../kernel/principal.js';
import type { InsertedStatement } from '../../kernel/statement-projection.port.js';
import { CompletionErrors } from './completion.errors.js';
import type { CompletionQuery } from './completion.schemas.js';
import { parseActorId, parseAgentParameter } from '../../kernel/agent.js';
import { requireReadable } from '../actors/index.js';
import {
  STATUS_ORDER,
  foldFacts,
  applyFact,
  keyText,
  parentLinks,
  statementCompletion,
  type CompletionFact,
  type CompletionKey,
  type CompletionRecord,
  type CompletionStatus,
} from './completion-rules.js';
import {
  deleteRecords,
  findChildActivities,
  findRecords,
  findStatementBodies,
  listRecords,
  lockRecords,
  mergeRecords,
  recordParentLinks,
  upsertRecords,
} from './completion.repository.js';

type Json = Record<string, unknown>;
type Keyed = CompletionKey & { actor: Json };

/**
 * The (agent key, activity id) pairs whose records recordCompletions may change for the same
 * statements, each once: those of the new statements that count, and of the statements the
 * voiding ones among them void (read back: only a batch with a voiding statement reads anything).
 * For what another module keeps from the records (learning's kept counts), called after
 * recordCompletions in the same transaction.
 */
export async function recordsTouchedBy(
  tx: SqlClient,
  tenantId: string,
  inserted: readonly InsertedStatement[],
): Promise<Array<{ agentKey: string; activityId: string }>> {
  const pairs = new Map<string, { agentKey: string; activityId: string }>();
  const add = (statement: Json) => {
    for (const key of statementCompletion(statement)?.keys ?? []) {
      pairs.set(`${key.agentKey}\n${key.activityId}`, { agentKey: key.agentKey, activityId: key.activityId });
    }
  };
  for (const item of inserted) if (!item.index.voiding) add(item.statement);
  const targetIds = inserted.flatMap((item) =>
    item.index.voiding && item.index.objectStatementId ? [item.index.objectStatementId.toLowerCase()] : [],
  );
  if (targetIds.length > 0) for (const row of await findStatementBodies(tx, tenantId, targetIds)) add(row.statement);
  return [...pairs.values()];
}

/**
 * Brings the completion records up to date with statements just inserted, in the transaction
 * that inserted them (after voiding was applied): each new, non-voided statement is folded into
 * the records of its actor and activity (and registration); each statement a voiding statement
 * voided is taken out of the records it made, which are refolded from their remaining statements
 * (and deleted when none remain). Records the statements' `contextActivities.parent` links.
 */
export async function recordCompletions(
  tx: SqlClient,
  tenantId: string,
  inserted: readonly InsertedStatement[],
  /** The statements (lower-case ids) the write just marked voided: markVoided's answer. */
  voided: ReadonlySet<string>,
): Promise<void> {
  await recordParentLinks(
    tx,
    tenantId,
    inserted.flatMap((item) => (item.index.voiding ? [] : parentLinks(item.statement))),
  );

  const made = inserted.flatMap((item) => {
    const completion = item.index.voiding ? undefined : statementCompletion(item.statement);
    return completion && completion.keys.length > 0 ? [completion] : [];
  });
  // A statement whose voiding statement came first is stored voided already: it counts for nothing.
  const live = made.filter((completion) => !voided.has(completion.fact.statementId));

  const targetIds = inserted.flatMap((item) =>
    item.index.voiding && item.index.objectStatementId ? [item.index.objectStatementId.toLowerCase()] : [],
  );
  const targets = (await findStatementBodies(tx, tenantId, targetIds)).flatMap((row) => {
    const completion = row.voided ? statementCompletion(row.statement) : undefined;
    return completion ? [completion] : [];
  });
  if (live.length === 0 && targets.length === 0) return;

  // Only new statements: fold them per record here and into the stored records in one write,
  // which takes the records' locks itself.
  if (targets.length === 0) {
    const deltas = new Map<string, CompletionRecord>();
    for (const completion of live) {
      for (const key of completion.keys) deltas.set(keyText(key), applyFact(deltas.get(keyText(key)), key, completion.fact));
    }
    await mergeRecords(tx, tenantId, [...deltas.values()]);
    return;
  }

  const keys = new Map<string, Keyed>();
  for (const completion of [...live, ...targets]) for (const key of completion.keys) keys.set(keyText(key), key);
  await lockRecords(tx, tenantId, [...keys.keys()]);

  const records = new Map<string, CompletionRecord | undefined>(
    (await findRecords(tx, tenantId, [...keys.values()])).map((record) => [keyText(record), record]),
  );
  const touched = new Set<string>();

  // Voided statements out: refold each record they were in from the statements left.
  const removed = new Map<string, Set<string>>();
  for (const target of targets) {
    for (const key of target.keys) {
      const text = keyText(key);
      if (!records.get(text)?.statementIds.includes(target.fact.statementId)) continue;
      removed.set(text, (removed.get(text) ?? new Set()).add(target.fact.statementId));
    }
  }
  for (const [text, ids] of removed) {
    const record = records.get(text) as CompletionRecord;
    const remaining = record.statementIds.filter((id) => !ids.has(id));
    const facts: CompletionFact[] = (await findStatementBodies(tx, tenantId, remaining)).flatMap((row) => {
      const completion = row.voided ? undefined : statementCompletion(row.statement);
      return completion ? [completion.fact] : [];
    });
    facts.sort((a, b) => remaining.indexOf(a.statementId) - remaining.indexOf(b.statementId));
    records.set(text, foldFacts(keys.get(text) as Keyed, facts));
    touched.add(text);
  }

  // New statements in.
  for (const completion of live) {
    for (const key of completion.keys) {
      const text = keyText(key);
      records.set(text, applyFact(records.get(text), key, completion.fact));
      touched.add(text);
    }
  }

  const kept: CompletionRecord[] = [];
  const gone: CompletionKey[] = [];
  for (const text of touched) {
    const record = records.get(text);
    if (record) kept.push(record);
    else gone.push(keys.get(text) as Keyed);
  }
  await deleteRecords(tx, tenantId, gone);
  await upsertRecords(tx, tenantId, kept);
}

export interface CompletionView {
  actor: Json;
  activityId: string;
  registration?: string;
  status: CompletionStatus;
  progress?: number;
  score?: Json;
  firstAt: string;
  lastAt: string;
  completedAt?: string;
  passedAt?: string;
  statementIds: string[];
  children?: CompletionView[];
}

/** How deep `expand=hierarchy` walks below the activity asked for. */
export const MAX_HIERARCHY_DEPTH = 20;

const invalid = CompletionErrors.invalidQuery;

function parseStatuses(text: string | undefined): CompletionStatus[] | undefined {
  if (text === undefined) return undefined;
  const values = text.split(',').map((value) => value.trim());
  for (const value of values) {
    if (!STATUS_ORDER.includes(value as CompletionStatus)) {
      throw invalid('status', `'status' must be a comma-separated list of ${STATUS_ORDER.join(', ')}; "${value}" is none of them.`);
    }
  }
  return values as CompletionStatus[];
}

function view(record: CompletionRecord): CompletionView {
  const out: CompletionView = {
    actor: record.actor,
    activityId: record.activityId,
    status: record.status,
    firstAt: record.firstAt,
    lastAt: record.lastAt,
    statementIds: record.statementIds,
  };
  if (record.registration !== '') out.registration = record.registration;
  if (record.progress !== undefined) out.progress = record.progress;
  if (record.score !== undefined) out.score = record.score;
  if (record.completedAt !== undefined) out.completedAt = record.completedAt;
  if (record.passedAt !== undefined) out.passedAt = record.passedAt;
  return out;
}

/**
 * The actor whose records are asked for: the one `agent` or `actorId` names, else the current
 * actor (interface 4.2, "for the current actor"), which only a principal that is an actor (a
 * learner credential, a launch token) has: an API key or an admin must name one.
 */
function actorAsked(principal: Principal, query: CompletionQuery): string {
  if (query.agent !== undefined && query.actorId !== undefined) {
    throw invalid('actorId', "Send at most one of 'agent' (an xAPI agent as JSON) and 'actorId' (<ifi_property>|<ifi_value>), not both.");
  }
  if (query.agent !== undefined) return parseAgentParameter(query.agent).key;
  if (query.actorId !== undefined) return parseActorId(query.actorId).key;
  if (principal.agentKey !== undefined) return principal.agentKey;
  throw invalid(
    'agent',
    "An API key or an admin has no actor of its own: name the actor with 'agent' (an xAPI agent as JSON) or 'actorId' (<ifi_property>|<ifi_value>).",
  );
}

/**
 * One actor's completion records (GET /api/actors/completions): the actor `actorAsked` names, if
 * the principal may read them (person-access.service.ts: a scoped credential its subtree's
 * people, a learner credential itself and its reports, a launch token itself), else 404.
 * `expand=hierarchy` with `activityId` gives each record the records of the activities below it
 * (registry `parentId` and statements' `contextActivities.parent`), recursively, in `children`.
 */
export async function listCompletions(sql: SqlClient, principal: Principal, query: CompletionQuery): Promise<CompletionView[]> {
  if (query.expand !== undefined && query.expand !== 'hierarchy') throw invalid('expand', `'expand' takes only the value "hierarchy".`);
  const agentKey = actorAsked(principal, query);
  const statuses = parseStatuses(query.status);
  await requireReadable(sql, principal, agentKey);
  const tenantId = principal.tenant.id;

  if (query.expand !== 'hierarchy' || query.activityId === undefined) {
    const records = await listRecords(sql, tenantId, {
      agentKey,
      activityIds: query.activityId === undefined ? undefined : [query.activityId],
      statuses,
    });
    return records.map(view);
  }

  // The activities below activityId, each reached once (statements' links may form a cycle).
  const childrenOf = new Map<string, string[]>();
  const reached = new Set([query.activityId]);
  let level = [query.activityId];
  for (let depth = 0; depth < MAX_HIERARCHY_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const link of await findChildActivities(sql, tenantId, level)) {
      if (reached.has(link.activityId)) continue;
      reached.add(link.activityId);
      childrenOf.set(link.parentId, [...(childrenOf.get(link.parentId) ?? []), link.activityId]);
      next.push(link.activityId);
    }
    level = next;
  }
  const all = await listRecords(sql, tenantId, { agentKey, activityIds: [...reached] });
  const withChildren = (record: CompletionRecord): CompletionView => ({
    ...view(record),
    children: (childrenOf.get(record.activityId) ?? []).flatMap((child) =>
      all.filter((candidate) => candidate.activityId === child && candidate.registration === record.registration).map(withChildren),
    ),
  });
  return all
    .filter((record) => record.activityId === query.activityId && (statuses === undefined || statuses.includes(record.status)))
    .map(withChildren);
}

/**
 * SQL of the tenant's completion records where `matching` holds (all of them without it), for a
 * statement of another module: skills gaps and recommendations join them with the activities
 * developing competencies, reports count them. One row per record (actor, activity, registration).
 * Columns: `agent_key`, `activity_id`, `registration` ('' for none), `status`, `first_at`,
 * `completed_at`, `passed_at` (timestamptz, NULL until a statement completed or passed), `score`
 * (jsonb `result.score` or NULL), `scaled` (its `scaled` as numeric, NULL when it has none),
 * `score_at` (when that score was given). `matching` is a condition over `r` (those columns,
 * `r.`-prefixed); values bound by the caller. The primary key (tenant_id, agent_key, activity_id,
 * registration) serves a condition on `r.agent_key`, completion_records' (tenant_id, activity_id)
 * index one on `r.activity_id`.
 */
export const completionRecordsSql = (tenantParameter: string, matching = 'true'): string =>
  `SELECT r.agent_key, r.activity_id, r.registration, r.status, r.first_at, r.completed_at, r.passed_at, r.score,
          CASE WHEN jsonb_typeof(r.score -> 'scaled') = 'number' THEN (r.score ->> 'scaled')::numeric END AS scaled, r.score_at
     FROM completion_records r WHERE r.tenant_id = ${tenantParameter} AND ${matching}`;
