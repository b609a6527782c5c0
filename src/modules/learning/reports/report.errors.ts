import { badRequest, notFound } from '../../../platform/http/app-error.js';

/** The reports' errors, `reports.reason` (docs/learning.md, "Reports"). */
export const ReportErrors = {
  organisationNotFound: (id: string) =>
    notFound('reports.organisation_not_found', `organisationId ${JSON.stringify(id)} names no organisation entry of this tenant.`, {
      organisationId: id,
    }),
  assignmentNotFound: (id: string) =>
    notFound('reports.assignment_not_found', `assignmentId ${JSON.stringify(id)} names no assignment of this tenant.`, {
      assignmentId: id,
    }),
  jobNotFound: (id: string) => notFound('reports.job_not_found', `jobId ${JSON.stringify(id)} names no job of this tenant.`, { jobId: id }),
  invalidRange: (parameter: 'from' | 'to', message: string) => badRequest('reports.invalid_range', `${message}.`, { parameter }),
  activityAndTag: () =>
    badRequest('reports.invalid_filter', 'Send activityId (one activity) or tag (the registered activities with it), not both.', {
      parameter: 'tag',
    }),
};
