import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ApiError, describedOnly } from '../../../platform/http/common-schemas.js';
import { principalOf, tenantWidePrincipalOf } from '../../../kernel/principal.js';
import { RecommendationQuery, RecommendationResponse } from './recommendation.schemas.js';
import { recommendations } from './recommendation.service.js';
import { GapQuery, GapResponse, GroupBody, GroupResponse } from './skills-gap.schemas.js';
import { groupGap, personGap } from './skills-gap.service.js';

export interface SkillsGapRoutesOptions {
  sql: SqlClient;
  /** The tenants' base domain (the default account homePage of the settings). */
  baseDomain: string;
}

const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 409: ApiError };

/** `GET /api/skills-gap`, `POST /api/skills-gap/group`, `GET /api/recommendations` (docs/learning.md). */
export const skillsGapRoutes: FastifyPluginAsyncTypebox<SkillsGapRoutesOptions> = async (app, { sql, baseDomain }) => {
  app.get(
    '/api/skills-gap',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:skills_gap',
        summary: 'A person’s skills gap for their current job, the next position’s job, or any job',
        description:
          'Each competency the target job requires, held (with the completions that are evidence of it) or missing. ' +
          'A learner credential reads its own actor only.',
        querystring: GapQuery,
        response: { 200: GapResponse, ...errors },
      },
    },
    async (request) => personGap(sql, principalOf(request), request.query, baseDomain),
  );

  app.post(
    '/api/skills-gap/group',
    {
      // The body is read by skills-gap-rules.ts (and the criteria by the actor search), which
      // name the bad part by its JSON pointer; the schema stays on the route for /openapi.json.
      validatorCompiler: describedOnly,
      schema: {
        tags: ['learning'],
        operationId: 'POST:skills_gap.group',
        summary: 'The skills gap of a group: per competency, how many hold it and how many lack it',
        description:
          'The people of an organisation subtree, of a job, or that actor search criteria select; their current jobs or one jobId as the target.',
        body: GroupBody,
        response: { 200: GroupResponse, ...errors, 413: ApiError, 415: ApiError },
      },
    },
    async (request) => {
      return groupGap(sql, tenantWidePrincipalOf(request), request.body as unknown, baseDomain);
    },
  );

  app.get(
    '/api/recommendations',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:recommendations',
        summary: 'Activities that close a person’s skills gap, ranked, each with the competencies it covers',
        description:
          'Registered activities developing a competency the person misses for the target job, not completed by them; ' +
          'ranked by competencies covered, then by how many people of their current job completed each, then by id.',
        querystring: RecommendationQuery,
        response: { 200: RecommendationResponse, ...errors },
      },
    },
    async (request) => recommendations(sql, principalOf(request), request.query, baseDomain),
  );
};
