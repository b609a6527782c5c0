import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../platform/database/sql-client.js';
import type { Page } from '../../platform/database/sql-filters.js';
import { badRequest } from '../../platform/http/app-error.js';
import { textProblem } from '../../platform/json-guard.js';
import type { Principal } from '../../kernel/principal.js';
import { findAuditEntries, insertAuditEntries, insertAuditEntry } from './audit.repository.js';

/**
 * What the audit log records: every action the server writes, with what writes it, sorted by
 * name. `GET /api/audit/actions` answers this list (docs/actors.md, "Audit"); the type below is
 * made from it, so an action the code records is one the list names.
 */
export const AUDIT_ACTIONS = [
  {
    action: 'actor.created',
    description: 'A person was created: PUT /api/actors/agents, the user import, SCIM, an HR webhook or single sign-on.',
  },
  { action: 'actor.deactivated', description: 'A person was deactivated: SCIM, an HR webhook, a sync import or PATCH /api/actors/item.' },
  { action: 'actor.reactivated', description: 'A person was reactivated: SCIM, an HR webhook or PATCH /api/actors/item.' },
  {
    action: 'actor.updated',
    description: 'A person was changed: PUT /api/actors/agents, the user import, SCIM, an HR webhook or single sign-on.',
  },
  { action: 'admin.created', description: 'An admin was made: POST /api/admins, learnbase admin create, or single sign-on.' },
  {
    action: 'admin.deleted',
    description:
      'An admin was deleted: DELETE /api/admins/{id}, learnbase admin delete, or single sign-on ending one it made (details.reason).',
  },
  {
    action: 'admin.scope_changed',
    description: 'An admin was given another organisation scope: PATCH /api/admins/{id}, learnbase admin set-scope, or single sign-on.',
  },
  {
    action: 'admin.tokens_revoked',
    description: 'The tokens of the admins a connection made were revoked: its admins rule, e-mail trust or provider changed.',
  },
  { action: 'api_key.created', description: 'An API key was issued.' },
  { action: 'api_key.revoked', description: 'An API key was revoked.' },
  { action: 'credential.created', description: 'A learner credential was created: POST /api/auth/basic.' },
  { action: 'credential.revoked', description: 'A learner credential was revoked: DELETE /api/auth/basic/{username}.' },
  { action: 'hr_webhook.created', description: 'An HR webhook endpoint was created.' },
  { action: 'hr_webhook.revoked', description: 'An HR webhook endpoint was revoked.' },
  { action: 'launch', description: 'An activity was launched: GET /api/activities/launch.' },
  { action: 'oauth_client.created', description: 'An OAuth client was created.' },
  { action: 'oauth_client.deleted', description: 'An OAuth client was deleted.' },
  { action: 'oauth_client.secret_rotated', description: 'An OAuth client was given a new secret.' },
  { action: 'scim_token.created', description: 'A SCIM token was issued.' },
  { action: 'scim_token.revoked', description: 'A SCIM token was revoked.' },
  { action: 'sso_connection.created', description: 'A single sign-on connection was created: PUT /api/sso/connections/{name}.' },
  { action: 'sso_connection.deleted', description: 'A single sign-on connection was deleted, with the admins it made.' },
  {
    action: 'sso_connection.refreshed',
    description: 'Reading a SAML connection’s metadata URL again changed its entry point or certificates.',
  },
  { action: 'sso_connection.updated', description: 'A single sign-on connection was replaced: PUT /api/sso/connections/{name}.' },
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number]['action'];

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
   * credential's, kernel/person-reach.port.ts; entries about no one never pass it); undefined: all.
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

/** `GET /api/audit`: a page of the entries `filter` keeps, newest first, and how many it keeps in all. */
export function listAuditEntries(
  sql: SqlClient,
  tenantId: string,
  filter: AuditFilter,
  page: Page,
): Promise<{ entries: AuditEntry[]; total: number }> {
  return findAuditEntries(sql, tenantId, filter, page);
}
