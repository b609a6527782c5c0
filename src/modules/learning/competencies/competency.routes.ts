import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ApiError } from '../../../platform/http/common-schemas.js';
import { exactValidator } from '../../../platform/http/exact-validator.js';
import { pageOf, sendPageHeaders } from '../../../platform/http/paged-list.js';
import { tenantWidePrincipalOf, wholeTenantPrincipalOf } from '../../../kernel/principal.js';
import {
  CasePackageBody,
  CasePackageQuery,
  CasePackageResponse,
  CompetencyItemQuery,
  CompetencyItemResponse,
  CompetencyListQuery,
  CompetencyListResponse,
  CompetencyPutBody,
  CompetencyPutResponse,
} from './competency.schemas.js';
import { type CasePackage, competencyCatalogue, competencyWithUses, importCaseFramework } from './competency-catalogue.service.js';
import { itemTypesOf } from './competency-framework-rules.js';
import { storeCompetencies } from '../../organisation/index.js';

const errors = { 400: ApiError, 401: ApiError, 403: ApiError };

/** `GET /api/competencies`, `GET /api/competencies/item`, `PUT /api/competencies`, `PUT /api/competencies/case`: the competency catalogue (docs/learning.md). */
export const competencyRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient }> = async (app, { sql }) => {
  app.get(
    '/api/competencies',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:competencies',
        summary: 'The competency catalogue, in name order',
        description:
          'Every competency the job architecture names or an admin added, with how many jobs require it and activities develop it.',
        querystring: CompetencyListQuery,
        response: { 200: CompetencyListResponse, ...errors },
      },
    },
    async (request, reply) => {
      const tenantId = tenantWidePrincipalOf(request).tenant.id;
      const page = pageOf(request.query);
      const answer = await competencyCatalogue(sql, tenantId, { q: request.query.q, ...page });
      sendPageHeaders(reply, {
        url: '/api/competencies',
        query: request.query.q === undefined ? {} : { q: request.query.q },
        page,
        shown: answer.competencies.length,
        total: answer.total,
      });
      return answer;
    },
  );

  app.get(
    '/api/competencies/item',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:competencies.item',
        summary: 'One competency, with the jobs requiring it and the activities developing it',
        querystring: CompetencyItemQuery,
        response: { 200: CompetencyItemResponse, ...errors, 404: ApiError },
      },
    },
    async (request) => competencyWithUses(sql, tenantWidePrincipalOf(request).tenant.id, request.query.id),
  );

  app.put(
    '/api/competencies',
    {
      schema: {
        tags: ['learning'],
        operationId: 'PUT:competencies',
        summary: 'Add competencies to the catalogue, or update their spelling and description',
        description:
          'Names match the catalogue case-insensitively: a known name updates that competency in place (its id stays), a new one is added. ' +
          'All or nothing: any bad entry refuses the request (400 `competencies.invalid`, every problem in `details.problems`).',
        body: CompetencyPutBody,
        response: { 200: CompetencyPutResponse, ...errors, 413: ApiError, 415: ApiError },
      },
    },
    async (request) => ({ competencies: await storeCompetencies(sql, wholeTenantPrincipalOf(request).tenant.id, request.body) }),
  );

  app.put(
    '/api/competencies/case',
    {
      // Checked as sent: a framework's field of the wrong type (`"fullStatement": 7`) is a broken
      // export to refuse, not to coerce into the competency "7".
      validatorCompiler: exactValidator(),
      schema: {
        tags: ['learning'],
        operationId: 'PUT:competencies.case',
        summary: 'Import a competency framework in 1EdTech CASE JSON (a CFPackage) into the catalogue',
        description:
          'Each CFItem becomes a competency: named by its humanCodingScheme (when it has one) and its abbreviatedStatement (else its fullStatement), ' +
          'described by its fullStatement, matched and stored as PUT /api/competencies does. All or nothing: any bad item refuses the request ' +
          '(400 `competencies.invalid`, `index` counting the CFItems from 0).',
        querystring: CasePackageQuery,
        body: CasePackageBody,
        response: { 200: CasePackageResponse, ...errors, 413: ApiError, 415: ApiError },
      },
    },
    async (request) =>
      importCaseFramework(
        sql,
        wholeTenantPrincipalOf(request).tenant.id,
        request.body as CasePackage,
        itemTypesOf(request.query.itemTypes),
      ),
  );
};
