import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { badRequest } from '../../platform/http/app-error.js';
import { ApiError } from '../../platform/http/common-schemas.js';
import { PageQuery, pageOf } from '../../platform/http/paged-list.js';
import { tenantWidePrincipalOf } from '../../kernel/principal.js';
import type { PersonReach } from '../../kernel/person-reach.js';
import { parseActorId, parseAgentParameter } from '../../kernel/agent.js';
import { parseTimestamp } from '../../kernel/timestamp.js';
import { listAuditEntries, type AuditFilter } from './audit.service.js';

const AuditQuery = PageQuery(
  'entries',
  {
    agent: Type.Optional(Type.String({ description: 'Only entries about this actor: an xAPI agent as JSON (or use actorId).' })),
    actorId: Type.Optional(
      Type.String({
        description: 'Only entries about this actor, as `<ifi_property>|<ifi_value>` (account: `account|<homePage>|<name>`).',
      }),
    ),
    source: Type.Optional(Type.String({ description: 'Only entries whose `svc-account-source` header was exactly this.' })),
    action: Type.Optional(
      Type.String({
        description:
          'One action: `actor.created`, `actor.updated`, `actor.deactivated`, `actor.reactivated`, `scim_token.created`, `scim_token.revoked`, ' +
          '`hr_webhook.created`, `hr_webhook.revoked`, `sso_connection.created`, `sso_connection.updated`, `sso_connection.deleted`, `sso_connection.refreshed`, ' +
          '`admin.created`, `admin.scope_changed`, `admin.deleted`, `admin.tokens_revoked`, `credential.created`, `credential.revoked`, `launch`, `api_key.created`, `api_key.revoked`, ' +
          '`oauth_client.created`, `oauth_client.deleted` or `oauth_client.secret_rotated` (docs/actors.md).',
      }),
    ),
    since: Type.Optional(Type.String({ description: 'Only entries after this instant (ISO 8601 with a zone).' })),
    until: Type.Optional(Type.String({ description: 'Only entries at or before this instant (ISO 8601 with a zone).' })),
  },
  { additionalProperties: false },
);

const AuditEntryBody = Type.Object({
  id: Type.String({ format: 'uuid' }),
  at: Type.String({ format: 'date-time' }),
  action: Type.String(),
  actorId: Type.Optional(Type.String({ description: 'The actor the entry is about, as `<ifi_property>|<ifi_value>`.' })),
  actor: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The same actor as an xAPI agent (its identifier).' })),
  source: Type.Optional(Type.String({ description: 'The `svc-account-source` header of the request.' })),
  principal: Type.Object({
    kind: Type.String(),
    id: Type.String({ description: 'The admin id, the API key or the actor credential’s username.' }),
  }),
  details: Type.Object({}, { additionalProperties: true }),
});

function instant(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = parseTimestamp(value, { requireZone: true });
  if (!parsed) throw badRequest('audit.invalid_query', `'${name}' must be an ISO 8601 timestamp with a zone.`, { parameter: name });
  return parsed;
}

/**
 * `GET /api/audit`: the audit log of actor writes, credentials and launches, newest first; for a
 * scoped credential, only the entries about people it may read (`people`), none about no one.
 */
export const auditRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient; people: PersonReach }> = async (app, { sql, people }) => {
  app.get(
    '/api/audit',
    {
      schema: {
        tags: ['actors'],
        operationId: 'GET:audit',
        summary: 'The audit log: actor writes, credentials and launches, newest first',
        querystring: AuditQuery,
        response: { 200: Type.Array(AuditEntryBody), 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      const query = request.query;
      if (query.agent !== undefined && query.actorId !== undefined) {
        throw badRequest('audit.invalid_query', "Send 'agent' or 'actorId', not both.", { parameter: 'actorId' });
      }
      const filter: AuditFilter = {
        actorId:
          query.agent !== undefined
            ? parseAgentParameter(query.agent).key
            : query.actorId !== undefined
              ? parseActorId(query.actorId).key
              : undefined,
        source: query.source,
        action: query.action,
        since: instant(query.since, 'since'),
        until: instant(query.until, 'until'),
        people: (column, bind) => people.agentKeyCondition(principal, column, '$1', bind),
      };
      const entries = await listAuditEntries(sql, principal.tenant.id, filter, pageOf(query));
      return entries.map((entry) => ({ ...entry, at: entry.at.toISOString() }));
    },
  );
};
