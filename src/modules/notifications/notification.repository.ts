import type { SqlClient } from '../../platform/database/sql-client.js';
import { countWhere, SqlFilter, type Page } from '../../platform/database/sql-filters.js';

/** A notification as stored and answered (interface 2.7). */
export interface StoredNotification {
  id: string;
  timestamp: Date;
  actor: Record<string, unknown>;
  activity: { objectType: 'Activity'; id: string; definition: Record<string, unknown> };
  channel: string;
  object: Record<string, unknown>;
}

/** A notification to insert: its actor and activity as they will be answered. */
export interface NewNotification {
  actorKey: string;
  actor: Record<string, unknown>;
  activity: StoredNotification['activity'];
  channel: string;
  object: Record<string, unknown>;
}

/** What a list is narrowed to; every condition given must hold. */
export interface NotificationFilter {
  actorKey?: string;
  /** Any of these actors (a `query`'s matches). */
  actorKeys?: readonly string[];
  activityId?: string;
  notActivityId?: string;
  /** Any of these activities (the registry's matches of `activity:tags` and `activity:attribute:*`). */
  activityIds?: readonly string[];
  channel?: string;
  /** Only later timestamps. */
  since?: Date;
  /** Only this timestamp or earlier ones. */
  until?: Date;
  /** Only the people this condition on the agent-key `column` keeps (a scoped credential's: person-access.service.ts); undefined: everyone. */
  people?: (column: string, bind: (value: unknown) => string) => string | undefined;
}

interface NotificationRow {
  id: string;
  timestamp: Date;
  actor: Record<string, unknown>;
  activity: StoredNotification['activity'];
  channel: string;
  object: Record<string, unknown>;
}

const toNotification = (row: NotificationRow): StoredNotification => ({
  id: row.id,
  timestamp: new Date(row.timestamp),
  actor: row.actor,
  activity: row.activity,
  channel: row.channel,
  object: row.object,
});

/**
 * Inserts the notifications in one statement (all or none), in their order: one timestamp for
 * all (the transaction's, to the millisecond), `seq` rising in array order. Answers them in that
 * order.
 */
export async function insertNotifications(
  sql: SqlClient,
  tenantId: string,
  notifications: readonly NewNotification[],
): Promise<StoredNotification[]> {
  const rows = notifications.map((notification, ord) => ({
    ord,
    actor_key: notification.actorKey,
    actor: notification.actor,
    activity_id: notification.activity.id,
    activity: notification.activity,
    channel: notification.channel,
    object: notification.object,
  }));
  const { rows: stored } = await sql.query<NotificationRow & { seq: string }>(
    `INSERT INTO notifications (tenant_id, timestamp, actor_key, actor, activity_id, activity, channel, object)
     SELECT $1, date_trunc('milliseconds', now()), r.actor_key, r.actor, r.activity_id, r.activity, r.channel, r.object
       FROM jsonb_to_recordset($2::jsonb)
         AS r(ord integer, actor_key text, actor jsonb, activity_id text, activity jsonb, channel text, object jsonb)
      ORDER BY r.ord
     RETURNING id, seq, timestamp, actor, activity, channel, object`,
    [tenantId, JSON.stringify(rows)],
  );
  return stored.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq))).map(toNotification);
}

/** The conditions of `filter` on the tenant's notifications, as the list and its count read them. */
function notificationWhere(tenantId: string, filter: NotificationFilter): SqlFilter {
  const where = new SqlFilter([tenantId], 'tenant_id = $1')
    .andIf(filter.actorKey, (p) => `actor_key = ${p}`)
    .andIf(filter.actorKeys, (p) => `actor_key = ANY(${p}::text[])`)
    .andIf(filter.activityId, (p) => `activity_id = ${p}`)
    .andIf(filter.notActivityId, (p) => `activity_id <> ${p}`)
    .andIf(filter.activityIds, (p) => `activity_id = ANY(${p}::text[])`)
    .andIf(filter.channel, (p) => `channel = ${p}`)
    .andIf(filter.since, (p) => `timestamp > ${p}`)
    .andIf(filter.until, (p) => `timestamp <= ${p}`);
  const people = filter.people?.('actor_key', (value) => where.bind(value));
  if (people !== undefined) where.and(people);
  return where;
}

/**
 * A page of the tenant's notifications matching `filter`, newest first ((timestamp, seq)
 * descending: a total order, so pages neither overlap nor skip), and how many match in all. Each
 * equality filter has an index in that order (0017_notifications.sql); the count reads every
 * matching entry of that index.
 */
export async function findNotifications(
  sql: SqlClient,
  tenantId: string,
  filter: NotificationFilter,
  page: Page,
): Promise<{ notifications: StoredNotification[]; total: number }> {
  const where = notificationWhere(tenantId, filter);
  const total = await countWhere(sql, 'notifications', where);
  const { rows } = await sql.query<NotificationRow>(
    `SELECT id, timestamp, actor, activity, channel, object FROM notifications
      ${where.clause}
      ${where.paged('timestamp DESC, seq DESC', page)}`,
    where.values,
  );
  return { notifications: rows.map(toNotification), total };
}
