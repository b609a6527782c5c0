import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { ApiError, describedOnly } from '../../platform/http/common-schemas.js';
import { wholeTenantPrincipalOf } from '../../kernel/principal.js';
import { JobsImportBody, OrganisationImportBody } from '../organisation/index.js';
import { checkJobsReplacement, checkOrganisationReplacement, importJobs, importOrganisation } from './organisation-import.service.js';
import { verifyOfQuery } from './import-query-rules.js';
import type { PeopleChanges } from '../../kernel/people-changes.port.js';

export interface OrganisationImportRoutesOptions {
  sql: SqlClient;
  /** Largest import body (bytes); larger ones get 413 (LEARNBASE_IMPORT_LIMIT_BYTES). */
  importLimitBytes: number;
  /** Told that everyone changed (what their attributes link to did), in the import's transaction. */
  peopleChanges: PeopleChanges;
}

const Ids = (description: string) => Type.Array(Type.String(), { maxItems: 10, description });

const CheckFields = {
  verify: Type.Literal(true),
  entries: Type.Integer({ description: 'Entries sent.' }),
  added: Type.Integer({ description: 'Ids the stored structure does not hold yet.' }),
  removed: Type.Integer({ description: 'Stored ids the array leaves out.' }),
  changed: Type.Integer({ description: 'Ids both hold, with another parentId or other attributes.' }),
  unchanged: Type.Integer({ description: 'Ids both hold, as stored.' }),
  people: Type.Object(
    {
      linked: Type.Integer({ description: 'Active people the new structure would link.' }),
      unlinked: Type.Integer({ description: 'Active people linked now whom it would unlink.' }),
    },
    { description: 'The tenant’s active people, by the setting that links them (docs/imports.md, "Checking a replacement first").' },
  ),
};

const PersonShown = Type.Object({
  agentKey: Type.String({ description: 'The actor id (canonical IFI key).', examples: ['account|https://hr.example.com|E1001'] }),
  name: Type.Optional(Type.String()),
});

const CheckExamples = {
  added: Ids('The first ids added, in the array’s order.'),
  removed: Ids('The first ids removed, in the stored order.'),
  changed: Ids('The first ids changed, in the array’s order.'),
  unlinked: Type.Array(PersonShown, { maxItems: 10, description: 'The first people unlinked, in actor-id order.' }),
};

const OrganisationCheck = Type.Object(
  { ...CheckFields, examples: Type.Object(CheckExamples) },
  {
    description:
      '`?verify=true`: what the replacement would change and whom it would unlink, nothing stored but its line in the history. ' +
      'people: active people whose `organisationAttribute` value names an entry of the new structure (linked), or names a stored entry it ' +
      'drops (unlinked: they would lose their position).',
  },
);

const JobsCheck = Type.Object(
  {
    ...CheckFields,
    changed: Type.Integer({ description: 'Ids both hold, with another name, other competencies or other attributes.' }),
    competencies: Type.Object({
      added: Type.Integer({ description: 'Competencies new to the catalogue (matched on the name, without case).' }),
    }),
    examples: Type.Object({ ...CheckExamples, competencies: Ids('The first competencies new to the catalogue, in the jobs’ order.') }),
  },
  {
    description:
      '`?verify=true`: as for the organisation, people by their current job (their `jobAttribute` value, else their position’s ' +
      '`positionJobAttribute`): linked would have a job, unlinked have one now and would have none.',
  },
);

const VerifyQuery = Type.Object({
  verify: Type.Optional(
    Type.Boolean({
      description:
        '`true`: check only, answer 200 with what would change; nothing is stored but a line in the history. Any value but true or false is 400.',
    }),
  ),
});

const importErrors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 413: ApiError, 415: ApiError };

/** `PUT /api/import/organisation`, `PUT /api/import/jobs`, each also checked only with `?verify=true`. */
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
          '`imports.invalid_organisation`, every problem in `details.problems` with its 0-based index) when any entry is bad. ' +
          'With `?verify=true`, checked the same way and answered 200 with what would change, nothing replaced.',
        querystring: VerifyQuery,
        body: OrganisationImportBody,
        response: { 200: OrganisationCheck, 204: Type.Null({ description: 'Imported.' }), ...importErrors },
      },
    },
    async (request, reply) => {
      const principal = wholeTenantPrincipalOf(request);
      if (verifyOfQuery(request.query)) return reply.status(200).send(await checkOrganisationReplacement(sql, principal, request.body));
      await importOrganisation(sql, principal, request.body as unknown, peopleChanges);
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
          'every problem in `details.problems` with its 0-based index) when any entry is bad. ' +
          'With `?verify=true`, checked the same way and answered 200 with what would change, nothing replaced.',
        querystring: VerifyQuery,
        body: JobsImportBody,
        response: { 200: JobsCheck, 204: Type.Null({ description: 'Imported.' }), ...importErrors },
      },
    },
    async (request, reply) => {
      const principal = wholeTenantPrincipalOf(request);
      if (verifyOfQuery(request.query)) return reply.status(200).send(await checkJobsReplacement(sql, principal, request.body));
      await importJobs(sql, principal, request.body as unknown, peopleChanges);
      return reply.status(204).send(null);
    },
  );
};
