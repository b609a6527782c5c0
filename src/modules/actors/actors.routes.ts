import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { ApiError, PageQuery, pageOf } from '../../platform/http/common-schemas.js';
import { tenantWidePrincipalOf } from '../auth/auth.plugin.js';
import { listActors } from './actor.service.js';

export interface ActorsRoutesOptions {
  sql: SqlClient;
  /** The service domain of the extension keys, `http://{baseDomain}/api/ext/agent/…`. */
  baseDomain: string;
}

const ActorsQuery = PageQuery('actors');

const Agent = Type.Object(
  {
    objectType: Type.Literal('Agent'),
    name: Type.Optional(Type.String()),
    mbox: Type.Optional(Type.String()),
    mbox_sha1sum: Type.Optional(Type.String()),
    openid: Type.Optional(Type.String()),
    account: Type.Optional(Type.Object({ homePage: Type.String(), name: Type.String() })),
    extensions: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { description: 'An actor (interface 2.6); docs/imports.md, "Actors", describes the extensions.' },
);

/** `GET /api/actors`: every actor of the tenant, imported or named by statements. */
export const actorsRoutes: FastifyPluginAsyncTypebox<ActorsRoutesOptions> = async (app, { sql, baseDomain }) => {
  app.get(
    '/api/actors',
    {
      schema: {
        tags: ['actors'],
        summary: 'The tenant’s actors, in a stable order, with their attributes and links',
        querystring: ActorsQuery,
        response: { 200: Type.Array(Agent), 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      const agents = await listActors(sql, principal.tenant, pageOf(request.query), baseDomain);
      return agents as Static<typeof Agent>[];
    },
  );
};
