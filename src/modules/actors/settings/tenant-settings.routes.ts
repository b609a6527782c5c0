import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ApiError } from '../../../platform/http/common-schemas.js';
import { exactValidator } from '../../../platform/http/exact-validator.js';
import { tenantWidePrincipalOf, wholeTenantPrincipalOf } from '../../../kernel/principal.js';
import { getTenantSettings, replaceTenantSettings } from './tenant-settings.service.js';
import { TenantSettingsBody, TenantSettingsResponse } from './tenant-settings.schemas.js';
import type { PeopleChanges } from '../../../kernel/people-changes.port.js';

export interface TenantSettingsRoutesOptions {
  sql: SqlClient;
  /** `{tenant}.{baseDomain}`: the default accountHomePage is the tenant's own address. */
  baseDomain: string;
  /** Told of every change of the settings (they link people to the organisation and the jobs), in its transaction. */
  peopleChanges: PeopleChanges;
}

/**
 * The body checked exactly as the schema says (exact-validator.ts): coerced, `""` would pass as
 * null and `"email"` as `["email"]`, storing a setting the client never sent. An unknown key fails
 * TypeBox's `additionalProperties: false` as a "false schema" at its own path: named as such.
 */
const settingsValidator = exactValidator({
  explain: (error) => (error.keyword === 'boolean' ? { ...error, message: 'is not a setting' } : error),
});

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
      validatorCompiler: settingsValidator,
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
