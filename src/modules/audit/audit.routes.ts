import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { badRequest } from '../../platform/http/app-error.js';
import { ApiError } from '../../platform/http/common-schemas.js';
import { PageQuery, pageOf, sendPageHeaders } from '../../platform/http/paged-list.js';
import { tenantWidePrincipalOf } from '../../kernel/principal.js';
import type { PersonReach } from '../../kernel/person-reach.port.js';
import { parseActorId, parseAgentParameter } from '../../kernel/agent.js';
import { parseTimestamp } from '../../kernel/timestamp.js';
import { AUDIT_ACTIONS, listAuditEntries, type AuditFilter } from './audit.service.js';

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
        description: 'Only entries of this action, one of those GET /api/audit/actions lists (`actor.created`, `launch`, …); another: 400.',
        examples: ['actor.created'],
      }),
    ),
    since: Type.Optional(Type.String({ description: 'Only entries after this instant (ISO 8601 with a zone).' })),
    until: Type.Optional(
      Type.String({ description: 'Only entries at or before this instant (ISO 8601 with a zone); not before `since`.' }),
    ),
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

/** The page's response headers, one schema each (as @fastify/swagger reads a response's `headers`). */
const PageHeaders = {
  'X-Total-Count': Type.Integer({ description: 'How many entries the filters keep in all.' }),
  Link: Type.String({
    description:
      'When more follow this page: `<{next page}>; rel="next"` (the same filters with `skip` moved on), before any other link of the answer (an API key’s rel="deprecation").',
  }),
};

const AuditActionBody = Type.Object({
  action: Type.String({ examples: ['actor.created'] }),
  description: Type.String({ description: 'What records it, in a sentence.' }),
});

const KNOWN_ACTIONS = new Set<string>(AUDIT_ACTIONS.map((known) => known.action));

function instant(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = parseTimestamp(value, { requireZone: true });
  if (!parsed) throw badRequest('audit.invalid_query', `'${name}' must be an ISO 8601 timestamp with a zone.`, { parameter: name });
  return parsed;
}

/** The filters of a list's query, as its next page's link repeats them. */
const filtersOf = (query: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(query).filter(([name, value]) => name !== 'limit' && name !== 'skip' && typeof value === 'string'),
  ) as Record<string, string>;

/**
 * `GET /api/audit`: the audit log of actor writes, credentials and launches, newest first; for a
 * scoped credential, only the entries about people it may read (`people`), none about no one;
 * and `GET /api/audit/actions`, the actions it records.
 */
export const auditRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient; people: PersonReach }> = async (app, { sql, people }) => {
  app.get(
    '/api/audit',
    {
      schema: {
        tags: ['actors'],
        operationId: 'GET:audit',
        summary: 'The audit log: actor writes, credentials and launches, newest first',
        description:
          '`X-Total-Count` says how many entries the filters keep and, when more follow the page, `Link: <…>; rel="next"` where the next page is (docs/actors.md, "Audit").',
        querystring: AuditQuery,
        response: {
          200: { ...Type.Array(AuditEntryBody), headers: PageHeaders },
          400: ApiError,
          401: ApiError,
          403: ApiError,
          404: ApiError,
        },
      },
    },
    async (request, reply) => {
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
      if (filter.action !== undefined && !KNOWN_ACTIONS.has(filter.action)) {
        throw badRequest('audit.invalid_query', "'action' must be one of the actions GET /api/audit/actions lists.", {
          parameter: 'action',
        });
      }
      if (filter.since && filter.until && filter.until < filter.since) {
        throw badRequest('audit.invalid_query', "'until' is before 'since': no entry could be in between.", { parameter: 'until' });
      }
      const page = pageOf(query);
      const { entries, total } = await listAuditEntries(sql, principal.tenant.id, filter, page);
      sendPageHeaders(reply, { url: `${request.publicBaseUrl}/api/audit`, query: filtersOf(query), page, shown: entries.length, total });
      return entries.map((entry) => ({ ...entry, at: entry.at.toISOString() }));
    },
  );

  // The catalogue, not the distinct actions of the tenant's log: a filter can then name an action
  // that has not happened yet (its empty answer is the answer), and reading the list costs no scan
  // of a log that grows without bound (no index leads with the action).
  app.get(
    '/api/audit/actions',
    {
      schema: {
        tags: ['actors'],
        operationId: 'GET:audit.actions',
        summary: 'The actions the audit log records, sorted: the values GET /api/audit takes as `action`',
        description:
          'Every action the server can write, whether or not this tenant’s log holds one yet, each with what records it (docs/actors.md, "Audit").',
        response: { 200: Type.Array(AuditActionBody), 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request) => {
      tenantWidePrincipalOf(request);
      return [...AUDIT_ACTIONS].sort((a, b) => (a.action < b.action ? -1 : a.action > b.action ? 1 : 0));
    },
  );
};
