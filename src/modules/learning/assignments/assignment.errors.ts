import { badRequest, notFound } from '../../../platform/http/app-error.js';
import type { BodyProblem } from './assignment-rules.js';

/** Ids named at most in one error's details (a static assignment may name 50,000 unknown actors). */
export const MAX_NAMED = 1000;

const listed = (ids: readonly string[]) => {
  const shown = ids.slice(0, 3).map((id) => JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id));
  return `${shown.join(', ')}${ids.length > 3 ? ` and ${ids.length - 3} more` : ''}`;
};

/** The assignments' errors, `assignments.reason` (docs/learning.md, "Assignments"). */
export const AssignmentErrors = {
  invalid: (problems: BodyProblem[]) =>
    badRequest(
      'assignments.invalid',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the assignment (listed in details.problems, each with its JSON pointer); nothing was stored.`,
      { problems },
    ),
  unknownActivities: (ids: readonly string[]) =>
    badRequest(
      'assignments.unknown_activities',
      `The activities registry has no ${ids.length === 1 ? 'activity' : 'activities'} ${listed(ids)} (PUT /api/activities registers one); nothing was stored.`,
      { activityIds: ids.slice(0, MAX_NAMED), count: ids.length },
    ),
  unknownActors: (ids: readonly string[]) =>
    badRequest(
      'assignments.unknown_actors',
      `The tenant has no actor ${listed(ids)} (an import or PUT /api/actors/agents writes one); nothing was stored.`,
      { actorIds: ids.slice(0, MAX_NAMED), count: ids.length },
    ),
  unknownOrganisation: (id: string) =>
    badRequest(
      'assignments.unknown_organisation',
      `The organisation structure has no entry ${listed([id])} (GET /api/organisation lists them); nothing was stored.`,
      { organisationId: id },
    ),
  unknownJob: (id: string) =>
    badRequest(
      'assignments.unknown_job',
      `The job architecture has no job ${listed([id])} (GET /api/jobs lists them); nothing was stored.`,
      {
        jobId: id,
      },
    ),
  notFound: (id: string) => notFound('assignments.not_found', 'The tenant has no assignment with this id.', { id }),
  invalidQuery: (parameter: string, message: string) => badRequest('assignments.invalid_query', message, { parameter }),
};
