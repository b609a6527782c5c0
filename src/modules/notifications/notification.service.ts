import type { SqlClient } from '../../platform/database/sql-client.js';
import { findActivityIdsByTagsAndAttributes, findRegisteredActivities } from '../activities/index.js';
import { TtlCache } from '../../platform/cache.js';
import {
  findActorsByKeys,
  listActorTexts,
  type ActorTexts,
  PersonAccessErrors,
  readableAgentKeyCondition,
  readableAmong,
  readsEveryone,
} from '../actors/index.js';
import { isTenantWide, type Principal } from '../../kernel/principal.js';
import { parseActorId } from '../../kernel/agent.js';
import { NotificationErrors, type NotificationProblem } from './notification.errors.js';
import { checkNotifications, compilePattern, parseInstant, parseTags } from './notification-rules.js';
import { findNotifications, insertNotifications, type NotificationFilter, type StoredNotification } from './notification.repository.js';
import { ATTRIBUTE_PARAMETER } from './notification.schemas.js';

/**
 * `POST /api/notifications`: checks every notification, looks its actor up in the actor store
 * and its activity in the registry, and stores them all in one statement, or none when anything
 * is wrong (400 naming each problem by index). The actor is answered as the store has it, the
 * activity with the registry's definition. A scoped credential (person-access.service.ts) makes
 * them only for people of its subtree: an actor it may not read, stored or not, is 404 for the
 * whole request, so that its answer never tells an outsider from a stranger.
 */
export async function makeNotifications(sql: SqlClient, principal: Principal, body: unknown): Promise<StoredNotification[]> {
  const tenantId = principal.tenant.id;
  const { drafts, problems } = checkNotifications(body);
  if (!readsEveryone(principal)) {
    const readable = await readableAmong(
      sql,
      principal,
      drafts.map((draft) => draft.agentKey),
    );
    const outside = drafts.find((draft) => !readable.has(draft.agentKey));
    if (outside) throw PersonAccessErrors.notFound(outside.agentKey);
  }
  const actors = await findActorsByKeys(
    sql,
    tenantId,
    drafts.map((draft) => draft.agentKey),
  );
  const activities = await findRegisteredActivities(
    sql,
    tenantId,
    drafts.map((draft) => draft.activityId),
  );
  const missing: NotificationProblem[] = [];
  for (const draft of drafts) {
    if (!actors.has(draft.agentKey))
      missing.push({ index: draft.index, field: 'actor', message: `no actor ${draft.agentKey} in the actor store` });
    if (!activities.has(draft.activityId))
      missing.push({ index: draft.index, field: 'activity', message: `no activity ${draft.activityId} in the registry` });
  }
  const all = [...problems, ...missing].sort((a, b) => a.index - b.index);
  if (all.length > 0) throw NotificationErrors.invalid(all);
  return insertNotifications(
    sql,
    tenantId,
    drafts.map((draft) => ({
      actorKey: draft.agentKey,
      actor: actors.get(draft.agentKey)?.agent ?? {},
      activity: { objectType: 'Activity', id: draft.activityId, definition: activities.get(draft.activityId)?.definition ?? {} },
      channel: draft.channel,
      object: draft.object,
    })),
  );
}

/**
 * The names and identifiers `query` is matched against. Those of all a tenant's actors are kept
 * for `ttlMs` (LEARNBASE_CACHE_TTL_MS, 5 s by default) per process: reading 10,000 actors costs
 * more than matching them, and a `query` that names no actor would read them on every request.
 * An actor created or renamed since is matched at the latest `ttlMs` later.
 */
export class ActorTextsSource {
  private readonly everyone: TtlCache<ActorTexts[]>;

  constructor(
    private readonly sql: SqlClient,
    ttlMs: number,
  ) {
    // Tenants, not actors: a large tenant's list can hold 100,000 entries.
    this.everyone = new TtlCache(ttlMs, { maxEntries: 100, name: 'actor_texts' });
  }

  async of(tenantId: string, agentKeys?: readonly string[]): Promise<ActorTexts[]> {
    if (agentKeys !== undefined) return listActorTexts(this.sql, tenantId, agentKeys);
    const known = this.everyone.get(tenantId);
    if (known) return known;
    const texts = await listActorTexts(this.sql, tenantId);
    this.everyone.set(tenantId, texts);
    return texts;
  }
}

/** The query of GET /api/notifications as Fastify parsed it (names with `:` and `!` included). */
export type NotificationQueryValues = Record<string, string | number | undefined> & { limit?: number; skip?: number };

/**
 * `GET /api/notifications`: a page of the tenant's notifications matching every parameter given,
 * newest first, and how many match in all. An actor credential or launch token sees only its own actor's (403 for another
 * `actorId`). The registry filters are evaluated against the registry now; `query` is run in
 * code, with RE2, over the names and identifiers of the tenant's actors (of the one actor, when
 * the request already names it; see ActorTextsSource), and the actors it matches narrow the SQL.
 */
export async function listNotifications(
  sql: SqlClient,
  principal: Principal,
  query: NotificationQueryValues,
  page: { limit: number; skip: number },
  actorTexts: ActorTextsSource,
): Promise<{ notifications: StoredNotification[]; total: number }> {
  const tenantId = principal.tenant.id;
  const none = { notifications: [], total: 0 };
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
  const filter: NotificationFilter = { activityId: text('activityId'), notActivityId: text('activityId!'), channel: text('channel') };

  const actorId = text('actorId');
  if (actorId !== undefined) filter.actorKey = parseActorId(actorId).key;
  if (principal.agentKey !== undefined) {
    if (filter.actorKey !== undefined && filter.actorKey !== principal.agentKey) throw NotificationErrors.forbidden();
    filter.actorKey = principal.agentKey;
  }
  // A scoped credential reads the notifications of its subtree's people only (person-access.service.ts).
  if (isTenantWide(principal)) filter.people = (column, bind) => readableAgentKeyCondition(principal, column, '$1', bind);
  const since = text('since');
  if (since !== undefined) filter.since = parseInstant('since', since);
  const until = text('until');
  if (until !== undefined) filter.until = parseInstant('until', until);
  if (filter.since && filter.until && filter.until < filter.since)
    throw NotificationErrors.invalidQuery('until', "'until' is before 'since': no notification could be in between.");

  // No prototype: an attribute named __proto__ is an attribute like any other.
  const attributes: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(query)) {
    const match = ATTRIBUTE_PARAMETER.exec(name);
    if (match && typeof value === 'string') attributes[match[1]] = value;
  }
  const tagsText = text('activity:tags');
  const tags = tagsText === undefined ? [] : parseTags(tagsText);
  const pattern = text('query');
  const matcher = pattern === undefined ? undefined : compilePattern(pattern);

  if (tags.length > 0 || Object.keys(attributes).length > 0) {
    filter.activityIds = await findActivityIdsByTagsAndAttributes(sql, tenantId, { tags, attributes });
    if (filter.activityIds.length === 0) return none;
  }
  if (matcher !== undefined) {
    const actors = await actorTexts.of(tenantId, filter.actorKey === undefined ? undefined : [filter.actorKey]);
    const matched = actors.filter((actor) => matcher(actor.names) || matcher(actor.identifiers)).map((actor) => actor.agentKey);
    if (matched.length === 0) return none;
    // Every actor matched: the condition would narrow nothing.
    if (matched.length < actors.length) filter.actorKeys = matched;
  }
  return findNotifications(sql, tenantId, filter, page);
}
