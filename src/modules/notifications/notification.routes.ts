import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { ApiError, describedOnly } from '../../platform/http/common-schemas.js';
import { pageOf, sendPageHeaders } from '../../platform/http/paged-list.js';
import { principalOf, tenantWidePrincipalOf } from '../../kernel/principal.js';
import type { StoredNotification } from './notification.repository.js';
import { Notification, NotificationBody, NotificationQuery } from './notification.schemas.js';
import { ActorTextsSource, listNotifications, makeNotifications, type NotificationQueryValues } from './notification.service.js';

/** The page's response headers, one schema each (as @fastify/swagger reads a response's `headers`). */
const PageHeaders = {
  'X-Total-Count': Type.Integer({ description: 'How many notifications match the parameters in all.' }),
  Link: Type.String({
    description:
      'When more follow this page: `<{next page}>; rel="next"` (the same parameters with `skip` moved on), before any other link of the answer (an API key’s rel="deprecation").',
  }),
};

const answer = (notification: StoredNotification) => ({ ...notification, timestamp: notification.timestamp.toISOString() });

/** `GET|POST /api/notifications`: reading notifications (interface 4.6) and making them (docs/notifications.md). */
export const notificationRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient; cacheTtlMs: number }> = async (app, { sql, cacheTtlMs }) => {
  const actorTexts = new ActorTextsSource(sql, cacheTtlMs);

  app.get(
    '/api/notifications',
    {
      schema: {
        tags: ['notifications'],
        operationId: 'GET:notifications',
        summary: 'Notifications matching every parameter given, newest first; an actor credential sees only its own',
        description:
          '`X-Total-Count` says how many notifications match and, when more follow the page, `Link: <…>; rel="next"` where the next page is (docs/notifications.md).',
        querystring: NotificationQuery,
        response: {
          200: { ...Type.Array(Notification), headers: PageHeaders },
          400: ApiError,
          401: ApiError,
          403: ApiError,
          404: ApiError,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const query = request.query as NotificationQueryValues;
      const page = pageOf(query);
      const { notifications, total } = await listNotifications(sql, principal, query, page, actorTexts);
      // The next page repeats the parameters as sent (names with `:` and `!` included), `limit` and `skip` moved on.
      const filters = Object.fromEntries(
        Object.entries(query).filter(([name, value]) => name !== 'limit' && name !== 'skip' && typeof value === 'string'),
      ) as Record<string, string>;
      sendPageHeaders(reply, {
        url: `${request.publicBaseUrl}/api/notifications`,
        query: filters,
        page,
        shown: notifications.length,
        total,
      });
      return notifications.map(answer);
    },
  );

  app.post(
    '/api/notifications',
    {
      // The rules (notification-rules.ts) check the body and name each problem by index.
      validatorCompiler: describedOnly,
      schema: {
        tags: ['notifications'],
        operationId: 'POST:notifications',
        summary: 'Makes one notification or an array of them (all or none); answers what was stored',
        body: NotificationBody,
        response: {
          201: Type.Union([Notification, Type.Array(Notification)], {
            description: 'What was stored: one notification for one, an array for an array.',
          }),
          400: ApiError,
          401: ApiError,
          403: ApiError,
          404: ApiError,
          415: ApiError,
        },
      },
    },
    async (request, reply) => {
      const principal = tenantWidePrincipalOf(request);
      const stored = await makeNotifications(sql, principal, request.body);
      return reply.status(201).send(Array.isArray(request.body) ? stored.map(answer) : answer(stored[0]));
    },
  );
};
