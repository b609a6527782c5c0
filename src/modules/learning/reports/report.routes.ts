import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ApiError } from '../../../platform/http/common-schemas.js';
import { clientGone, type WorkQueue } from '../../../platform/http/work-queue.js';
import { CSV_CONTENT_TYPE, CSV_TYPE, negotiate, toCsv } from '../../../platform/http/csv.js';
import { sendPageHeaders } from '../../../platform/http/paged-list.js';
import { tenantWidePrincipalOf } from '../../../kernel/principal.js';
import {
  ActivityOverTimeQuery,
  ActivityOverTimeReport,
  ActivityReport,
  AssignmentComplianceQuery,
  CompletionReportQuery,
  ComplianceReport,
  JobReport,
  UnitReport,
  UnitReportQuery,
} from './report.schemas.js';
import {
  activityOverTime,
  assignmentCompliance,
  completionByActivity,
  completionByJob,
  completionByUnit,
  type Report,
  type ReportContext,
} from './report.service.js';

const errors = { 400: ApiError, 401: ApiError, 403: ApiError, 404: ApiError, 406: ApiError, 503: ApiError };

/** A report's 200: its JSON, or its items as CSV. */
const jsonOrCsv = (schema: TSchema, description: string, headers?: typeof PageHeaders) => ({
  description,
  ...(headers === undefined ? {} : { headers }),
  content: {
    'application/json': { schema },
    'text/csv': {
      schema: Type.String({
        description: 'With Accept: text/csv: a header row, then one row per item (nested fields as `outer.inner` columns), RFC 4180.',
      }),
    },
  },
});

/**
 * The report's caller and the media type it answers in: a tenant-wide principal (401, 403
 * before anything else; a scoped one's reports count its people only), then JSON or CSV as Accept
 * prefers (406 when it allows neither), so nothing is computed for an answer that cannot be sent.
 */
function reportRequest(
  request: FastifyRequest,
  sql: SqlClient,
  baseDomain: string,
  reports: WorkQueue,
): { context: ReportContext; type: string; queued: <T>(work: () => Promise<T>) => Promise<T> } {
  const principal = tenantWidePrincipalOf(request);
  const type = negotiate(request.headers.accept);
  // A count from the records waits its turn; a read of the kept counts does not (report.service.ts).
  const queued = <T>(work: () => Promise<T>) => reports.run(work, clientGone(request.raw));
  return { context: { sql, principal, baseDomain, queued }, type, queued };
}

/**
 * Sends a report as the JSON its schema describes, or as CSV (`text/csv; charset=utf-8`); a
 * report by entry with its page's headers (X-Total-Count, and Link to the next page).
 */
function sendReport(request: FastifyRequest, reply: FastifyReply, type: string, report: Report) {
  if (report.page !== undefined) {
    const { limit, skip, shown, total } = report.page;
    const query = Object.fromEntries(
      Object.entries(request.query as Record<string, unknown>)
        .filter(([name, value]) => value !== undefined && name !== 'limit' && name !== 'skip')
        .map(([name, value]) => [name, String(value)]),
    );
    sendPageHeaders(reply, { url: `${request.publicBaseUrl}${request.routeOptions.url}`, query, page: { limit, skip }, shown, total });
  }
  if (type !== CSV_TYPE) return report.body;
  return reply.type(CSV_CONTENT_TYPE).send(toCsv(report.rows, report.columns));
}

/** The page's response headers of a report by entry, one schema each (as @fastify/swagger reads a response's `headers`). */
const PageHeaders = {
  'X-Total-Count': Type.Integer({ description: 'How many entries the selection and depth keep in all.' }),
  Link: Type.String({
    description:
      'When more entries follow this page: `<{next page}>; rel="next"` (the same query with `skip` moved on), before any other link of the answer.',
  }),
};

const PEOPLE =
  'People are the actors an import or PUT /api/actors/agents made; organisationId and jobId narrow them, ' +
  'as does the scope of an admin or API key limited to an organisation subtree.';

/**
 * `GET /api/reports/…` (docs/learning.md, "Reports"): completion per organisation entry, per job
 * and per activity, activity over time, and assignment compliance per organisation entry; JSON,
 * or CSV with `Accept: text/csv`.
 */
export const reportRoutes: FastifyPluginAsyncTypebox<{ sql: SqlClient; baseDomain: string; reports: WorkQueue }> = async (
  app,
  { sql, baseDomain, reports },
) => {
  /**
   * A completion report by unit or by job, or the compliance report: at once when the kept counts can answer it; queued
   * from the start when its filter (a tag, an activity) asks for a count from the records; and
   * when a rebuild turns out to be under way, its count from the records queued (`queued`).
   */
  const keptOrQueued = <Query extends { tag?: string; activityId?: string }>(
    request: FastifyRequest,
    { context, queued }: ReturnType<typeof reportRequest>,
    report: (context: ReportContext, query: Query) => Promise<Report>,
  ) => {
    const query = request.query as Query;
    return query.tag === undefined && query.activityId === undefined
      ? report(context, query)
      : queued(() => report({ ...context, queued: undefined }, query));
  };

  app.get(
    '/api/reports/completion-by-unit',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:reports.completion_by_unit',
        summary: 'Completion rate per organisation entry, rolled up through the hierarchy',
        description: `Each entry: its people (placed directly in it, and in its whole subtree) and their completed (person, activity) pairs of the activity set, over every pair. ${PEOPLE}`,
        querystring: UnitReportQuery,
        response: {
          200: jsonOrCsv(UnitReport, 'The entries, in import order: a page of them (limit, skip), at most depth levels deep.', PageHeaders),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const asked = reportRequest(request, sql, baseDomain, reports);
      return sendReport(request, reply, asked.type, await keptOrQueued(request, asked, completionByUnit));
    },
  );

  app.get(
    '/api/reports/completion-by-job',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:reports.completion_by_job',
        summary: 'Completion rate per job',
        description: `Each job: the people whose current job it is and their completed (person, activity) pairs of the activity set. ${PEOPLE}`,
        querystring: CompletionReportQuery,
        response: { 200: jsonOrCsv(JobReport, 'The jobs, in import order.'), ...errors },
      },
    },
    async (request, reply) => {
      const asked = reportRequest(request, sql, baseDomain, reports);
      return sendReport(request, reply, asked.type, await keptOrQueued(request, asked, completionByJob));
    },
  );

  app.get(
    '/api/reports/completion-by-activity',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:reports.completion_by_activity',
        summary: 'Per activity: attempted, completed, passed, average score, median time to complete',
        description: `Over the selected people, each counted once per activity whatever their registrations. ${PEOPLE}`,
        querystring: CompletionReportQuery,
        response: { 200: jsonOrCsv(ActivityReport, 'The activities, in id order.'), ...errors },
      },
    },
    async (request, reply) => {
      const { context, type, queued } = reportRequest(request, sql, baseDomain, reports);
      return sendReport(request, reply, type, await queued(() => completionByActivity(context, request.query)));
    },
  );

  app.get(
    '/api/reports/activity-over-time',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:reports.activity_over_time',
        summary: 'Statements per day or week and verb, and active learners, for a date range',
        description:
          'Counted by each statement’s timestamp (UTC); voided and voiding statements count for nothing. Without a filter every actor counts; ' +
          'organisationId and jobId narrow to those people, activityId to the statements whose object it is.',
        querystring: ActivityOverTimeQuery,
        response: { 200: jsonOrCsv(ActivityOverTimeReport, 'Every interval of the range, in order.'), ...errors },
      },
    },
    async (request, reply) => {
      const { context, type, queued } = reportRequest(request, sql, baseDomain, reports);
      return sendReport(request, reply, type, await queued(() => activityOverTime(context, request.query)));
    },
  );

  app.get(
    '/api/reports/assignment-compliance',
    {
      schema: {
        tags: ['learning'],
        operationId: 'GET:reports.assignment_compliance',
        summary: 'Assignment compliance per organisation entry: on time, late, overdue, in progress, not started',
        description:
          'Each entry: the (person, assignment activity) pairs of the assignments’ members now, placed directly in it and in its whole subtree, ' +
          `by the assignments’ statuses read now; assignmentId and activityId narrow the pairs. ${PEOPLE}`,
        querystring: AssignmentComplianceQuery,
        response: {
          200: jsonOrCsv(
            ComplianceReport,
            'The entries, in import order: a page of them (limit, skip), at most depth levels deep.',
            PageHeaders,
          ),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const asked = reportRequest(request, sql, baseDomain, reports);
      return sendReport(request, reply, asked.type, await keptOrQueued(request, asked, assignmentCompliance));
    },
  );
};
