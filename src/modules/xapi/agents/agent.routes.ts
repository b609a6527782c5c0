import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { badRequest } from '../../../platform/http/app-error.js';
import { ApiError } from '../../../platform/http/common-schemas.js';
import { principalOf } from '../../../kernel/principal.js';
import { parseAgentParameter } from '../../../kernel/agent.js';
import { getPerson } from '../../actors/index.js';

const AgentsQuery = Type.Object(
  {
    agent: Type.String({
      description: 'JSON of an Agent (not a Group) with one inverse functional identifier.',
      examples: ['{"mbox":"mailto:learner@example.com"}'],
    }),
  },
  { additionalProperties: false },
);

const Person = Type.Object(
  {
    objectType: Type.Literal('Person'),
    name: Type.Optional(Type.Array(Type.String())),
    mbox: Type.Optional(Type.Array(Type.String())),
    mbox_sha1sum: Type.Optional(Type.Array(Type.String())),
    openid: Type.Optional(Type.Array(Type.String())),
    account: Type.Optional(Type.Array(Type.Object({ homePage: Type.String(), name: Type.String() }))),
  },
  { description: 'What the LRS knows of the person behind an Agent (xAPI 2.0 Part 3 §2.4).' },
);

/** `GET /xapi/agents` (xAPI 2.0 Part 3 §2.4), the Agents Resource. */
export const agentsRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient }> = async (app, { sql }) => {
  app.get(
    '/xapi/agents',
    {
      schema: {
        tags: ['xapi'],
        operationId: 'GET:xapi.agents',
        summary: 'The Person object combining what statements said about an Agent',
        querystring: AgentsQuery,
        response: { 200: Person, 400: ApiError, 401: ApiError, 403: ApiError },
      },
    },
    async (request) => {
      const agent = parseAgentParameter(request.query.agent, 'agent');
      if (agent.agent.objectType === 'Group') throw badRequest('xapi.invalid_agent', "'agent' must be an Agent, not a Group.");
      return getPerson(sql, principalOf(request).tenant.id, agent) as Promise<Static<typeof Person>>;
    },
  );
};
