import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ApiError, describedOnly } from '../../../platform/http/common-schemas.js';
import { tenantWidePrincipalOf } from '../../../kernel/principal.js';
import { describeAttributes } from '../attributes/actor-attribute-catalogue.service.js';
import { AttributeCatalogue, SearchBody, SearchQuery, SearchResponse } from './actor-search.schemas.js';
import { searchActors } from './actor-search.service.js';

export interface ActorsSearchRoutesOptions {
  sql: SqlClient;
  /** The tenants' base domain (the default account homePage of the settings). */
  baseDomain: string;
  /** The host of the extension keys, `http://{serviceDomain}/api/ext/agent/…`; default baseDomain. */
  serviceDomain?: string;
}

const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError };

/** `POST /api/actors/search` and `GET /api/actors/attributes` (docs/actors.md). */
export const actorsSearchRoutes: FastifyPluginAsyncTypebox<ActorsSearchRoutesOptions> = async (app, { sql, baseDomain, serviceDomain }) => {
  const domains = { baseDomain, serviceDomain: serviceDomain ?? baseDomain };
  app.post(
    '/api/actors/search',
    {
      // The criteria are read by actor-search-compiler.ts, which names the bad node by its JSON
      // pointer (actors.invalid_criteria); the schemas stay on the route for /openapi.json.
      validatorCompiler: describedOnly,
      schema: {
        tags: ['actors'],
        operationId: 'POST:actors.search',
        summary: 'The tenant’s actors that nested criteria match, a page at a time',
        description:
          'Agents and groups, unless the criteria restrict `objectType`. Fields, operators and bounds: docs/actors.md, ' +
          '"Searching actors". A bad node answers 400 `actors.invalid_criteria` with `details.path`, its JSON pointer.',
        querystring: SearchQuery,
        body: SearchBody,
        response: { 200: SearchResponse, ...errors, 415: ApiError },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      const found = await searchActors(sql, principal, request.body as unknown, request.query as Record<string, unknown>, domains);
      return found as Static<typeof SearchResponse>;
    },
  );

  app.get(
    '/api/actors/attributes',
    {
      schema: {
        tags: ['actors'],
        operationId: 'GET:actors.attributes',
        summary: 'Every attribute name on the tenant’s actors, how many carry it, and a JSON Schema of its values',
        response: { 200: AttributeCatalogue, ...errors },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      return { attributes: await describeAttributes(sql, principal) };
    },
  );
};
