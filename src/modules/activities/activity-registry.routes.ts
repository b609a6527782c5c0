import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import type { ActivitiesChanged } from '../../kernel/activities-changed.port.js';
import { ApiError, describedOnly } from '../../platform/http/common-schemas.js';
import { pageOf, sendPageHeaders } from '../../platform/http/paged-list.js';
import { tenantWidePrincipalOf, wholeTenantPrincipalOf } from '../../kernel/principal.js';
import { RegistryEntry, RegistryItemQuery, RegistryListQuery, RegistryPutBody, RegistryPutResponse } from './activity-registry.schemas.js';
import {
  listRegisteredActivities,
  readRegisteredActivity,
  registerActivities,
  type RegisteredActivity,
} from './activity-registry.service.js';

export interface ActivityRegistryRoutesOptions {
  sql: SqlClient;
  /** What hears of the entries a write stores, in its transaction (the port activitiesChanged). */
  activitiesChanges: readonly ActivitiesChanged[];
  /** Largest PUT body (bytes); larger ones get 413 (LEARNBASE_IMPORT_LIMIT_BYTES, as the imports). */
  importLimitBytes: number;
}

const readErrors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError };

/** The page's response headers, one schema each (as @fastify/swagger reads a response's `headers`). */
const PageHeaders = {
  'X-Total-Count': Type.Integer({ description: 'How many entries match the filters in all.' }),
  Link: Type.String({
    description:
      'When more follow this page: `<{next page}>; rel="next"` (the same filters with `skip` moved on), before any other link of the answer (an API key’s rel="deprecation").',
  }),
};

const toBody = (entry: RegisteredActivity): RegistryEntry => {
  const { updated, ...fields } = entry;
  return { ...fields, updated: updated.toISOString() };
};

/** `PUT /api/activities`, `GET /api/activities`, `GET /api/activities/item`: the activities registry (docs/activities.md). */
export const activityRegistryRoutes: FastifyPluginAsyncTypebox<ActivityRegistryRoutesOptions> = async (
  app,
  { sql, importLimitBytes, activitiesChanges },
) => {
  app.put(
    '/api/activities',
    {
      bodyLimit: importLimitBytes,
      // As large as an import and read whole into memory: admitted under the imports budget (admission.ts).
      config: { admission: 'imports' },
      // activity-registry-rules.ts checks the body itself, naming every bad entry.
      validatorCompiler: describedOnly,
      schema: {
        tags: ['activities'],
        operationId: 'PUT:activities',
        summary: 'Insert or replace registry entries',
        description:
          'Each entry replaces the stored one with its id; entries the body does not name stay. One transaction: refused as a ' +
          'whole (400 `activities.invalid`, every problem in `details.problems` as `{index, id?, field, message}`) when any entry is bad.',
        body: RegistryPutBody,
        response: { 200: RegistryPutResponse, ...readErrors, 413: ApiError, 415: ApiError },
      },
    },
    async (request) => {
      const principal = wholeTenantPrincipalOf(request);
      return { stored: await registerActivities(sql, principal.tenant.id, request.body as unknown, activitiesChanges) };
    },
  );

  app.get(
    '/api/activities',
    {
      schema: {
        tags: ['activities'],
        operationId: 'GET:activities',
        summary: 'Registry entries in id order, by tag, parent or text',
        description:
          '`q` matches the id and the names and descriptions, case-insensitively. `X-Total-Count` says how many entries match and, when more follow the page, ' +
          '`Link: <…>; rel="next"` where the next page is (docs/activities.md).',
        querystring: RegistryListQuery,
        response: { 200: { ...Type.Array(RegistryEntry), headers: PageHeaders }, ...readErrors },
      },
    },
    async (request, reply) => {
      const principal = tenantWidePrincipalOf(request);
      const { tag, parentId, q } = request.query;
      const page = pageOf(request.query);
      const { activities, total } = await listRegisteredActivities(sql, principal.tenant.id, { tag, parentId, q }, page);
      const filters = Object.fromEntries(
        Object.entries({ tag, parentId, q }).filter((entry): entry is [string, string] => entry[1] !== undefined),
      );
      sendPageHeaders(reply, { url: `${request.publicBaseUrl}/api/activities`, query: filters, page, shown: activities.length, total });
      return activities.map(toBody);
    },
  );

  app.get(
    '/api/activities/item',
    {
      schema: {
        tags: ['activities'],
        operationId: 'GET:activities.item',
        summary: 'One registry entry',
        querystring: RegistryItemQuery,
        response: { 200: RegistryEntry, ...readErrors },
      },
    },
    async (request) => toBody(await readRegisteredActivity(sql, tenantWidePrincipalOf(request).tenant.id, request.query.activityId)),
  );
};
