import { AppError, badRequest } from '../../platform/http/app-error.js';

/** One thing wrong with one notification of a POST: which (index from 0), where, and what. */
export interface NotificationProblem {
  index: number;
  /** `actor`, `activity`, `channel`, `object`, or a property that does not belong (`timestamp`). */
  field: string;
  message: string;
}

/** The notifications' errors, `notifications.reason` (docs/notifications.md, "Errors"). */
export const NotificationErrors = {
  invalid: (problems: NotificationProblem[]) =>
    badRequest(
      'notifications.invalid',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the notifications, nothing was stored; the first: ` +
        `notifications[${problems[0].index}]${problems[0].field ? `.${problems[0].field}` : ''}: ${problems[0].message}`,
      { problems },
    ),
  tooMany: (count: number, max: number) =>
    badRequest('notifications.too_many', `One request makes at most ${max} notifications; this one has ${count}. Nothing was stored.`, {
      max,
    }),
  invalidQuery: (parameter: string, message: string) => badRequest('notifications.invalid_query', message, { parameter }),
  forbidden: () => new AppError('notifications.forbidden', 403, 'This credential may only read the notifications of its own actor.'),
};
