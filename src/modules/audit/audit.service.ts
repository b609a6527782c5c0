import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Page } from '../../platform/database/sql-filters.js';
import { badRequest } from '../../platform/http/app-error.js';
import { textProblem } from '../../platform/json-guard.js';
import type { Principal } from '../../kernel/principal.js';
import { findAuditEntries, insertAuditEntries, insertAuditEntry } from './audit.repository.js';

/**
 * What the audit log records. Stable names, listed in docs/actors.md ("Audit"):
 * `actor.created`, `actor.updated` (PUT /api/actors/agents, SCIM), `actor.deactivated`,
 * `actor.reactivated` (SCIM, HR webhooks, a sync import: docs/identity.md), `scim_token.created`, `scim_token.revoked`,
 * `hr_webhook.created`, `hr_webhook.revoked`, `sso_connection.created|updated|deleted`, `credential.created`,
 * `credential.revoked` (/api/auth/basic), `launch` (GET /api/activities/launch); and in
 * docs/operations.md ("Lifecycle over HTTP"): `api_key.created`, `api_key.revoked`,
 * `oauth_client.created`, `oauth_client.deleted`, `oauth_client.secret_rotated`, `admin.created`,
 * `admin.scope_changed`, `admin.deleted` (/api/admins, the command line, single sign-on) and
 * `admin.tokens_revoked` (a connection's admins rule changed: docs/identity.md).
 */
export type AuditAction =
  | 'actor.created'
  | 'actor.updated'
  | 'actor.deactivated'
  | 'actor.reactivated'
  | 'scim_token.created'
  | 'scim_token.revoked'
  | 'hr_webhook.created'
  | 'hr_webhook.revoked'
  | 'sso_connection.created'
  | 'sso_connection.updated'
  | 'sso_connection.deleted'
  | 'sso_connection.refreshed'
  | 'admin.created'
  | 'admin.scope_changed'
  | 'admin.deleted'
  | 'admin.tokens_revoked'
  | 'credential.created'
  | 'credential.revoked'
  | 'launch'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'oauth_client.created'
  | 'oauth_client.deleted'
  | 'oauth_client.secret_rotated';

/** One entry of GET /api/audit. */
export interface AuditEntry {
  id: string;
  at: Date;
  action: string;
  /** The actor the entry is about, as `actorId` (`<ifi_property>|<ifi_value>`) and as its IFI. */
  actorId?: string;
  actor?: Record<string, unknown>;
  /** The `svc-account-source` header of the request, when sent. */
  source?: string;
  /** Who did it: the principal's kind and credential id. */
  principal: { kind: string; id: string };
  details: Record<string, unknown>;
}

export interface NewAuditEntry {
  action: AuditAction;
  principal: Principal;
  actor?: { key: string; agent: Record<string, unknown> };
  /** The raw `svc-account-source` header: see sourceOfHeader. */
  source?: string;
  details?: Record<string, unknown>;
}

export interface AuditFilter {
  actorId?: string;
  source?: string;
  action?: string;
  since?: Date;
  until?: Date;
  /**
   * Only entries about the people this condition on the agent-key `column` keeps (a scoped
   * credential's, kernel/person-reach.ts; entries about no one never pass it); undefined: all.
   */
  people?: (column: string, bind: (value: unknown) => string) => string | undefined;
}

/** Longest `svc-account-source` kept: the header is free text for a person, not a payload. */
export const SOURCE_LIMIT = 200;

/**
 * The `svc-account-source` header (interface 4.2) as the log keeps it: trimmed, empty as absent.
 * Longer than SOURCE_LIMIT, several values, or text PostgreSQL cannot store: 400 naming it.
 */
export function sourceOfHeader(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header))
    throw badRequest('audit.invalid_source', 'Send the svc-account-source header once.', { header: 'svc-account-source' });
  const source = header.trim();
  if (source === '') return undefined;
  if (source.length > SOURCE_LIMIT) {
    throw badRequest('audit.invalid_source', `The svc-account-source header must be at most ${SOURCE_LIMIT} characters.`, {
      header: 'svc-account-source',
    });
  }
  const problem = textProblem(source);
  if (problem) throw badRequest('audit.invalid_source', `The svc-account-source header ${problem.why}.`, { header: 'svc-account-source' });
  return source;
}

/**
 * Records one change. Call it with the transaction client of the change itself, so the entry
 * exists exactly when the change was stored.
 */
export async function recordAudit(sql: SqlClient, entry: NewAuditEntry): Promise<void> {
  await insertAuditEntry(sql, entry.principal.tenant.id, auditEntryOf(entry));
}

const auditEntryOf = (entry: NewAuditEntry): Omit<AuditEntry, 'at'> => ({
  id: randomUUID(),
  action: entry.action,
  ...(entry.actor ? { actorId: entry.actor.key, actor: entry.actor.agent } : {}),
  ...(entry.source === undefined ? {} : { source: entry.source }),
  principal: { kind: entry.principal.kind, id: entry.principal.id },
  details: entry.details ?? {},
});

/**
 * Records many changes at once (a sync import deactivating people), in the order given, set-based:
 * as recordAudit, with the transaction client of the changes.
 */
export async function recordAudits(sql: SqlClient, entries: readonly NewAuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await insertAuditEntries(sql, entries[0].principal.tenant.id, entries.map(auditEntryOf));
}

export function listAuditEntries(sql: SqlClient, tenantId: string, filter: AuditFilter, page: Page): Promise<AuditEntry[]> {
  return findAuditEntries(sql, tenantId, filter, page);
}
