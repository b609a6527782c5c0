import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ApiError } from '../../../platform/http/common-schemas.js';
import { exactValidator } from '../../../platform/http/exact-validator.js';
import { pageOf, sendPageHeaders } from '../../../platform/http/paged-list.js';
import { clientGone, type WorkQueue } from '../../../platform/http/work-queue.js';
import { principalOf, tenantWidePrincipalOf } from '../../../kernel/principal.js';
import type { Principal } from '../../../kernel/principal.js';
import { statusSource } from './assignment-status.repository.js';
import {
  AssignmentBody,
  AssignmentItemQuery,
  AssignmentListQuery,
  AssignmentListResponse,
  AssignmentPeopleQuery,
  AssignmentPeopleResponse,
  AssignmentResponse,
  PersonAssignmentsQuery,
  PersonAssignmentsResponse,
} from './assignment.schemas.js';
import {
  assignmentPeople,
  createAssignment,
  listAssignments,
  personAssignments,
  readAssignment,
  removeAssignment,
  replaceAssignment,
} from './assignment.service.js';

export interface AssignmentRoutesOptions {
  sql: SqlClient;
  /** The tenants' base domain (the tenant settings' default account homePage). */
  baseDomain: string;
  /** Where an assignment's counts and people lists wait their turn, with the reports (learning.module.ts). */
  reports: WorkQueue;
}

const errors = { 400: ApiError, 401: ApiError, 403: ApiError };

/** The page's response headers, one schema each (as @fastify/swagger reads a response's `headers`). */
const pageHeaders = (what: string) => ({
  'X-Total-Count': Type.Integer({ description: `How many ${what} there are in all.` }),
  Link: Type.String({ description: 'When more follow this page: `<{next page}>; rel="next"` (the same query with `skip` moved on).' }),
});

/**
 * The body is read by assignment-rules.ts, which names every problem by its JSON pointer
 * (`assignments.invalid`); its schema stays on the route for /openapi.json. The querystring is
 * checked exactly as its schema says (no coercion: it holds strings only).
 */
const bodyReadByTheRules = exactValidator({ unchecked: 'body' });

/**
 * `POST /api/assignments`, `GET /api/assignments`, `GET|PUT|DELETE /api/assignments/item`,
 * `GET /api/assignments/people` (tenant-wide principals) and `GET /api/actors/assignments` (also a
 * person's own credential and launch tokens): learning assignments (docs/learning.md, "Assignments").
 */
export const assignmentRoutes: FastifyPluginAsyncTypebox<AssignmentRoutesOptions> = async (app, { sql, baseDomain, reports }) => {
  // An assignment's counts and people read from the progress its members keep are a few
  // milliseconds: at once. Recounted from the records (while a rebuild runs), seconds: in turn.
  const sourceOf = (principal: Principal) => statusSource(sql, principal.tenant.id);
  app.post(
    '/api/assignments',
    {
      validatorCompiler: bodyReadByTheRules,
      schema: {
        tags: ['learning'],
        operationId: 'POST:assignments',
        summary: 'Assigns registered activities to people chosen by actor ids, criteria, an organisation subtree or a job',
        description:
          'Answers the assignment with its members and their counts by status. Every bad part of the body is named (400 ' +
          '`assignments.invalid`, `details.problems` with JSON pointers); unknown activities, actors, organisation entry or job: 400 naming each. ' +
          'A scoped credential’s assignment is limited to its entry: an actor it does not reach is 404 `actors.not_found`, an organisation entry outside its subtree 403 `auth.out_of_scope`.',
        body: AssignmentBody,
        response: { 201: AssignmentResponse, ...errors, 404: ApiError, 413: ApiError, 415: ApiError },
      },
    },
    async (request, reply) => {
      const created = await createAssignment(sql, tenantWidePrincipalOf(request), request.body as unknown, baseDomain);
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/api/assignments',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:assignments',
        summary: 'The tenant’s assignments, newest first, a page at a time',
        querystring: AssignmentListQuery,
        response: { 200: { ...AssignmentListResponse, headers: pageHeaders('assignments') }, ...errors },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const listed = await listAssignments(sql, tenantWidePrincipalOf(request), page);
      sendPageHeaders(reply, { url: '/api/assignments', page, shown: listed.assignments.length, total: listed.total });
      return listed;
    },
  );

  app.get(
    '/api/assignments/item',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:assignments.item',
        summary: 'One assignment, with its people counted by status now',
        querystring: AssignmentItemQuery,
        response: { 200: AssignmentResponse, ...errors, 404: ApiError },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      const source = await sourceOf(principal);
      const read = () => readAssignment(sql, principal, request.query.id, source);
      return source === 'kept' ? read() : reports.run(read, clientGone(request.raw));
    },
  );

  app.put(
    '/api/assignments/item',
    {
      validatorCompiler: bodyReadByTheRules,
      schema: {
        tags: ['learning'],
        operationId: 'PUT:assignments.item',
        summary: 'Replaces an assignment’s name, activities, people and due date; its members are looked at again',
        description: 'Whoever the new selection no longer takes leaves, keeping the activities (still assigned) they had done.',
        querystring: AssignmentItemQuery,
        body: AssignmentBody,
        response: { 200: AssignmentResponse, ...errors, 404: ApiError, 413: ApiError, 415: ApiError },
      },
    },
    async (request) => {
      const { id } = request.query as { id: string };
      return replaceAssignment(sql, tenantWidePrincipalOf(request), id, request.body as unknown, baseDomain);
    },
  );

  app.delete(
    '/api/assignments/item',
    {
      schema: {
        tags: ['learning'],
        operationId: 'DELETE:assignments.item',
        summary: 'Deletes an assignment and its members',
        querystring: AssignmentItemQuery,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...errors, 404: ApiError },
      },
    },
    async (request, reply) => {
      await removeAssignment(sql, tenantWidePrincipalOf(request), request.query.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/assignments/people',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:assignments.people',
        summary: 'The people of one assignment with their status per activity, a page at a time',
        querystring: AssignmentPeopleQuery,
        response: { 200: { ...AssignmentPeopleResponse, headers: pageHeaders('people') }, ...errors, 404: ApiError },
      },
    },
    async (request, reply) => {
      const principal = tenantWidePrincipalOf(request);
      const page = pageOf(request.query);
      const { id, status } = request.query;
      const source = await sourceOf(principal);
      const read = () => assignmentPeople(sql, principal, { id, status }, page, source);
      const answered = source === 'kept' ? await read() : await reports.run(read, clientGone(request.raw));
      sendPageHeaders(reply, {
        url: '/api/assignments/people',
        query: { id, ...(status === undefined ? {} : { status }) },
        page,
        shown: answered.people.length,
        total: answered.total,
      });
      return answered;
    },
  );

  app.get(
    '/api/actors/assignments',
    {
      schema: {
        tags: ['actors'],
        operationId: 'GET:actors.assignments',
        summary: 'Every assignment of one person, with their status per activity',
        description:
          'An admin or API key names the person; a learner credential reads its own (agent and actorId left out, or naming itself); ' +
          'a launch token its own, narrowed to its activity and the registry’s activities below it.',
        querystring: PersonAssignmentsQuery,
        response: { 200: PersonAssignmentsResponse, ...errors },
      },
    },
    async (request) => personAssignments(sql, principalOf(request), request.query),
  );
};
