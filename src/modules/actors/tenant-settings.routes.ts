import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchema } from 'fastify';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { ApiError } from '../../platform/http/common-schemas.js';
import { tenantWidePrincipalOf, wholeTenantPrincipalOf } from '../../kernel/principal.js';
import { getTenantSettings, replaceTenantSettings } from './tenant-settings.service.js';
import { TenantSettingsBody, TenantSettingsResponse } from './tenant-settings.schemas.js';
import type { PeopleChanges } from './people-changes.js';

export interface TenantSettingsRoutesOptions {
  sql: SqlClient;
  /** `{tenant}.{baseDomain}`: the default accountHomePage is the tenant's own address. */
  baseDomain: string;
  /** Told of every change of the settings (they link people to the organisation and the jobs), in its transaction. */
  peopleChanges: PeopleChanges;
}

/**
 * Checks the body exactly as the schema says: the app's Ajv coerces types (`""` would pass as
 * null, `"email"` as `["email"]`), which would store a setting the client never sent. The errors
 * keep Ajv's shape, so the error handler names the field as for any schema failure.
 */
const exactValidator =
  ({ schema }: { schema: FastifySchema }) =>
  (data: unknown) =>
    Value.Check(schema as TSchema, data)
      ? true
      : {
          // An unknown key fails TypeBox's `additionalProperties: false` as a "false schema" at its own path.
          error: [...Value.Errors(schema as TSchema, data)].map((error) =>
            error.keyword === 'boolean' ? { ...error, message: 'is not a setting' } : error,
          ),
        };

/** `GET` and `PUT /api/settings`: the tenant's import and identity settings (tenant-wide principals). */
export const tenantSettingsRoutes: FastifyPluginAsyncTypebox<TenantSettingsRoutesOptions> = async (
  app,
  { sql, baseDomain, peopleChanges },
) => {
  app.get(
    '/api/settings',
    {
      schema: {
        tags: ['settings'],
        operationId: 'GET:settings',
        summary: 'Every setting of the tenant with its effective value',
        response: { 200: TenantSettingsResponse, 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request) => getTenantSettings(sql, tenantWidePrincipalOf(request).tenant, baseDomain),
  );

  app.put(
    '/api/settings',
    {
      validatorCompiler: exactValidator,
      schema: {
        tags: ['settings'],
        operationId: 'PUT:settings',
        summary: 'Replaces the tenant’s settings (keys left out take their defaults)',
        body: TenantSettingsBody,
        response: { 200: TenantSettingsResponse, 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError },
      },
    },
    async (request) => replaceTenantSettings(sql, wholeTenantPrincipalOf(request).tenant, request.body, baseDomain, peopleChanges),
  );
};
