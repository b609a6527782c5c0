import { AppError, badRequest, conflict, notFound } from '../../../platform/http/app-error.js';

/**
 * The errors of skills gaps and recommendations, `learning.reason` (docs/learning.md). A request
 * the data cannot answer yet (a person without a job, a position at the root) is 409: the request
 * is well formed and the person exists; what is missing is in the organisation's data.
 */
export const SkillsGapErrors = {
  invalidQuery: (parameter: string, message: string) => badRequest('learning.invalid_query', message, { parameter }),
  invalidGroup: (path: string, message: string) =>
    badRequest('learning.invalid_group', `The group body is invalid: ${path || 'the body'} ${message}.`, { path }),
  forbidden: (message: string) => new AppError('learning.forbidden', 403, message),
  personNotFound: (agentKey: string) =>
    notFound('learning.person_not_found', 'No person of the tenant has this identifier.', { actorId: agentKey }),
  jobNotFound: (jobId: string) =>
    notFound('learning.job_not_found', `No job of the tenant has the id ${JSON.stringify(jobId)}.`, { jobId }),
  noCurrentJob: (agentKey: string) =>
    conflict(
      'learning.no_current_job',
      'This person has no current job: their jobAttribute value names no job, and their position names none through positionJobAttribute (docs/imports.md, "Model and settings"). Name a job with jobId.',
      { actorId: agentKey },
    ),
  noPosition: (agentKey: string) =>
    conflict(
      'learning.no_position',
      'This person has no position: organisationAttribute is not set, or their value of it names no organisation entry, so there is no next position up.',
      { actorId: agentKey },
    ),
  rootPosition: (positionId: string) =>
    conflict(
      'learning.root_position',
      `The person's position ${JSON.stringify(positionId)} is a root (no parentId): there is no next position up.`,
      {
        positionId,
      },
    ),
  noParentJob: (positionId: string, parentId: string) =>
    conflict(
      'learning.no_parent_job',
      `The next position up, ${JSON.stringify(parentId)}, names no job: positionJobAttribute is not set, or the position's value of it names no job.`,
      { positionId, parentId },
    ),
};
