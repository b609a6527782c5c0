import type { SqlClient } from '../../../platform/database/sql-client.js';

/** An HR webhook endpoint as an admin or operator lists it (never its secret). */
export interface HrWebhookListing {
  id: string;
  createdAt: Date;
  revokedAt?: Date;
}

interface HrWebhookRow {
  id: string;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

const toListing = (row: HrWebhookRow): HrWebhookListing => ({
  id: row.id,
  createdAt: new Date(row.created_at),
  ...(row.revoked_at ? { revokedAt: new Date(row.revoked_at) } : {}),
});

/** `secret` as stored: sealed (stored-secret.service.ts). */
export async function insertHrWebhook(sql: SqlClient, tenantId: string, id: string, secret: string): Promise<HrWebhookListing> {
  const { rows } = await sql.query<HrWebhookRow>(
    'INSERT INTO hr_webhooks (tenant_id, id, secret) VALUES ($1, $2, $3) RETURNING id, created_at, revoked_at',
    [tenantId, id, secret],
  );
  return toListing(rows[0]);
}

/** The signing secret of an endpoint that is not revoked as stored (stored-secret.service.ts opens it), or undefined. */
export async function findActiveHrWebhookSecret(sql: SqlClient, tenantId: string, id: string): Promise<string | undefined> {
  const { rows } = await sql.query<{ secret: string }>(
    'SELECT secret FROM hr_webhooks WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL',
    [tenantId, id],
  );
  return rows[0]?.secret;
}

export async function listHrWebhookRows(sql: SqlClient, tenantId: string): Promise<HrWebhookListing[]> {
  const { rows } = await sql.query<HrWebhookRow>(
    'SELECT id, created_at, revoked_at FROM hr_webhooks WHERE tenant_id = $1 ORDER BY created_at, id',
    [tenantId],
  );
  return rows.map(toListing);
}

export async function revokeHrWebhookRow(sql: SqlClient, tenantId: string, id: string): Promise<HrWebhookListing | undefined> {
  const { rows } = await sql.query<HrWebhookRow>(
    `UPDATE hr_webhooks SET revoked_at = coalesce(revoked_at, now()) WHERE tenant_id = $1 AND id = $2
     RETURNING id, created_at, revoked_at`,
    [tenantId, id],
  );
  return rows[0] && toListing(rows[0]);
}

/** Stores a verified message; false when the endpoint already has one with this id (nothing stored). */
export async function insertHrMessage(
  sql: SqlClient,
  message: { tenantId: string; webhookId: string; messageId: string; payload: unknown },
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `INSERT INTO hr_webhook_messages (tenant_id, webhook_id, message_id, payload) VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT (tenant_id, webhook_id, message_id) DO NOTHING`,
    [message.tenantId, message.webhookId, message.messageId, JSON.stringify(message.payload)],
  );
  return rowCount === 1;
}

/** A message waiting to be applied, and how far it got. */
export interface PendingHrMessage {
  tenantId: string;
  webhookId: string;
  messageId: string;
  payload: unknown;
  /** How many of its events the pieces applied so far applied (0: none yet). */
  appliedEvents: number;
  /** What those events did, in order. */
  outcomes: unknown[];
}

/**
 * The oldest message not yet applied of some tenant whose oldest one no other transaction holds,
 * locked for the caller's transaction (`tx`): a tenant's messages are applied one at a time, in the
 * order they were received, whatever the number of processes applying them. Of the tenants waiting,
 * the one whose turn is oldest goes first (its message's last piece, or its receipt): a batch
 * applied in pieces lets other tenants' messages in between its pieces.
 */
export async function claimPendingHrMessage(tx: SqlClient): Promise<PendingHrMessage | undefined> {
  const { rows } = await tx.query<{
    tenant_id: string;
    webhook_id: string;
    message_id: string;
    payload: unknown;
    applied_events: number;
    result: { events?: unknown[] } | null;
  }>(
    `SELECT m.tenant_id, m.webhook_id, m.message_id, m.payload, m.applied_events, m.result FROM hr_webhook_messages m
      WHERE m.applied_at IS NULL
        AND m.seq = (SELECT min(o.seq) FROM hr_webhook_messages o WHERE o.tenant_id = m.tenant_id AND o.applied_at IS NULL)
      ORDER BY coalesce(m.progressed_at, m.received_at), m.seq
      LIMIT 1
      FOR UPDATE SKIP LOCKED`,
  );
  const row = rows[0];
  return (
    row && {
      tenantId: row.tenant_id,
      webhookId: row.webhook_id,
      messageId: row.message_id,
      payload: row.payload,
      appliedEvents: row.applied_events,
      outcomes: row.result?.events ?? [],
    }
  );
}

/**
 * Records a piece of a message applied, in the piece's transaction: how many of its events are
 * applied now, what they did (`events`, all of them so far) and, once the last one is, that the
 * message is applied.
 */
export async function recordHrProgress(
  tx: SqlClient,
  message: Pick<PendingHrMessage, 'tenantId' | 'webhookId' | 'messageId'>,
  progress: { appliedEvents: number; events: unknown[]; finished: boolean },
): Promise<void> {
  await tx.query(
    `UPDATE hr_webhook_messages
        SET applied_events = $4, result = $5::jsonb, progressed_at = now(), applied_at = CASE WHEN $6::boolean THEN now() END
      WHERE tenant_id = $1 AND webhook_id = $2 AND message_id = $3`,
    [
      message.tenantId,
      message.webhookId,
      message.messageId,
      progress.appliedEvents,
      JSON.stringify({ events: progress.events }),
      progress.finished,
    ],
  );
}

/** Marks a message applied (or refused for good), with what it did. */
export async function markHrMessage(
  sql: SqlClient,
  message: Pick<PendingHrMessage, 'tenantId' | 'webhookId' | 'messageId'>,
  result: unknown,
): Promise<void> {
  await sql.query(
    `UPDATE hr_webhook_messages SET applied_at = now(), result = $4::jsonb
      WHERE tenant_id = $1 AND webhook_id = $2 AND message_id = $3`,
    [message.tenantId, message.webhookId, message.messageId, JSON.stringify(result)],
  );
}

/** A message as GET /api/hr-webhooks/messages lists it. */
export interface HrMessageListing {
  webhookId: string;
  messageId: string;
  receivedAt: Date;
  appliedAt?: Date;
  result?: unknown;
}

/** The tenant's messages, newest first, at most `limit`. */
export async function listHrMessages(sql: SqlClient, tenantId: string, limit: number): Promise<HrMessageListing[]> {
  const { rows } = await sql.query<{
    webhook_id: string;
    message_id: string;
    received_at: Date | string;
    applied_at: Date | string | null;
    result: unknown;
  }>(
    `SELECT webhook_id, message_id, received_at, applied_at, result FROM hr_webhook_messages
      WHERE tenant_id = $1 ORDER BY seq DESC LIMIT $2`,
    [tenantId, limit],
  );
  return rows.map((row) => ({
    webhookId: row.webhook_id,
    messageId: row.message_id,
    receivedAt: new Date(row.received_at),
    ...(row.applied_at ? { appliedAt: new Date(row.applied_at) } : {}),
    ...(row.result === null ? {} : { result: row.result }),
  }));
}

/** How long an applied message is kept: in the list, and as the id a retry of it is known by (senders retry for days). */
export const HR_MESSAGE_RETENTION_DAYS = 30;

/**
 * Deletes the messages applied (or refused for good) more than HR_MESSAGE_RETENTION_DAYS ago, at
 * most `limit` at a time; answers how many. A message still waiting is never deleted.
 */
export async function purgeAppliedHrMessages(sql: SqlClient, limit = 10_000): Promise<number> {
  const { rowCount } = await sql.query(
    `DELETE FROM hr_webhook_messages
      WHERE (tenant_id, webhook_id, message_id) IN (
        SELECT tenant_id, webhook_id, message_id FROM hr_webhook_messages
         WHERE applied_at < now() - make_interval(days => $1) LIMIT $2)`,
    [HR_MESSAGE_RETENTION_DAYS, limit],
  );
  return rowCount ?? 0;
}
