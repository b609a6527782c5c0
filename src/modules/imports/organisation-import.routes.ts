import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { ApiError, describedOnly } from '../../platform/http/common-schemas.js';
import { wholeTenantPrincipalOf } from '../../kernel/principal.js';
import { JobsImportBody, OrganisationImportBody } from '../organisation/organisation.schemas.js';
import { importJobs, importOrganisation } from './organisation-import.service.js';
import type { PeopleChanges } from '../actors/people-changes.js';

export interface OrganisationImportRoutesOptions {
  sql: SqlClient;
  /** Largest import body (bytes); larger ones get 413 (LEARNBASE_IMPORT_LIMIT_BYTES). */
  importLimitBytes: number;
  /** Told that everyone changed (what their attributes link to did), in the import's transaction. */
  peopleChanges: PeopleChanges;
}

const importErrors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 413: ApiError, 415: ApiError };

/** `PUT /api/import/organisation`, `PUT /api/import/jobs`. */
export const organisationImportRoutes: FastifyPluginAsyncTypebox<OrganisationImportRoutesOptions> = async (
  app,
  { sql, importLimitBytes, peopleChanges },
) => {
  app.put(
    '/api/import/organisation',
    {
      bodyLimit: importLimitBytes,
      // Read whole into memory: admitted under the imports budget (admission.ts).
      config: { admission: 'imports' },
      // The bodies are checked by organisation's org-unit-rules.ts / job-role-rules.ts, naming every bad entry.
      validatorCompiler: describedOnly,
      schema: {
        tags: ['imports'],
        operationId: 'PUT:import.organisation',
        summary: 'Replace the organisation structure (position hierarchy or flat location data)',
        description:
          'The whole array replaces the stored structure in one transaction. Refused as a whole (400 ' +
          '`imports.invalid_organisation`, every problem in `details.problems` with its 0-based index) when any entry is bad.',
        body: OrganisationImportBody,
        response: { 204: Type.Null({ description: 'Imported.' }), ...importErrors },
      },
    },
    async (request, reply) => {
      await importOrganisation(sql, wholeTenantPrincipalOf(request), request.body as unknown, peopleChanges);
      return reply.status(204).send(null);
    },
  );

  app.put(
    '/api/import/jobs',
    {
      bodyLimit: importLimitBytes,
      // Read whole into memory: admitted under the imports budget (admission.ts).
      config: { admission: 'imports' },
      // The bodies are checked by organisation's org-unit-rules.ts / job-role-rules.ts, naming every bad entry.
      validatorCompiler: describedOnly,
      schema: {
        tags: ['imports'],
        operationId: 'PUT:import.jobs',
        summary: 'Replace the job architecture',
        description:
          'The whole array replaces the stored jobs in one transaction. Refused as a whole (400 `imports.invalid_jobs`, ' +
          'every problem in `details.problems` with its 0-based index) when any entry is bad.',
        body: JobsImportBody,
        response: { 204: Type.Null({ description: 'Imported.' }), ...importErrors },
      },
    },
    async (request, reply) => {
      await importJobs(sql, wholeTenantPrincipalOf(request), request.body as unknown, peopleChanges);
      return reply.status(204).send(null);
    },
  );
};
