import type { AppError } from '../../platform/http/app-error.js';
import type { PageWording } from '../../platform/http/error-handler.js';
import type { LaunchRefusal } from './launch-session.service.js';

const NO_ACCESS = 'This link cannot sign you in';
const SENDER = 'whoever sent you the link';

const TOO_MANY_ATTEMPTS: PageWording = {
  title: 'Too many failed sign-ins',
  message: 'There were too many failed attempts to sign in with this link, or from your network, lately.',
};

/**
 * What a learner reads for each error of the launch link: what happened and whom to tell, never an
 * API path, an error code or a parameter name. Those are in the error's message, which the log keeps.
 */
const FOR_LEARNERS: Record<string, PageWording> = {
  'launch.missing_parameter': {
    title: 'This link is incomplete',
    message: `Part of this link is missing, perhaps because it was cut when it was copied. Open it again from the message it came in, or ask ${SENDER} to send it again.`,
  },
  'launch.repeated_parameter': {
    title: 'This link has been changed',
    message: `This link is not the one that was sent: part of it appears twice. Open it again from the message it came in, or ask ${SENDER} to send it again.`,
  },
  // A parameter the input guards refused (platform/http/input-guards.ts): a link damaged on its way.
  'request.invalid': {
    title: 'This link is damaged',
    message: `Part of this link cannot be read: it was damaged when it was copied or sent. Open it again from the message it came in, or ask ${SENDER} to send it again.`,
  },
  'launch.unauthorized': {
    title: NO_ACCESS,
    message: `This link does not give access to the course: it may be incomplete, or it was not made for opening courses. Ask ${SENDER} for a new one.`,
  },
  'launch.too_many_attempts': TOO_MANY_ATTEMPTS,
  // The rate limit on failed authentications (platform/http/rate-limits.ts), which refuses an address before the link is read.
  'request.rate_limited': TOO_MANY_ATTEMPTS,
  'launch.activity_not_found': {
    title: 'This course is not available',
    message: `This course is not available in your organisation’s catalogue yet. Tell ${SENDER}.`,
  },
  'launch.no_launch_url': {
    title: 'There is nothing to open online',
    message: `This course has no online content to open: it may be one that takes place in person. Tell ${SENDER}.`,
  },
  'tenant.not_found': {
    title: NO_ACCESS,
    message: `This link names an organisation this service does not know. Check that the whole link was opened, or ask ${SENDER} for a new one.`,
  },
};

/** The reasons of `launch.unauthorized` a learner can act on differently; the others read as its general sentence. */
const REFUSALS: Partial<Record<LaunchRefusal, string>> = {
  no_tenant: `This link does not say which organisation it belongs to. Open it exactly as it was sent to you, or ask ${SENDER} for a new one.`,
  expired: `Your access through this link has expired. Ask ${SENDER} for a new one.`,
  revoked: `This link has been withdrawn and no longer gives access. Ask ${SENDER} for a new one.`,
  actor_gone: `Your account is no longer in your organisation’s records, so this link cannot sign you in. Tell ${SENDER}.`,
};

const UNKNOWN: PageWording = {
  title: 'The course could not be opened',
  message: `Something went wrong while opening this course. Try the link again later; if it keeps happening, tell ${SENDER}.`,
};

/**
 * What a learner reads when a launch fails, on the error page the app's error handler renders (the
 * route's `config.errors`), never a redirect to the content. Any error not listed above gets a
 * general sentence.
 */
export function launchErrorWording(error: AppError): PageWording {
  const wording = FOR_LEARNERS[error.code] ?? UNKNOWN;
  const reason = error.code === 'launch.unauthorized' ? (error.details?.reason as LaunchRefusal | undefined) : undefined;
  let message = (reason && REFUSALS[reason]) ?? wording.message;
  if (wording === TOO_MANY_ATTEMPTS) message += ` ${waitFor(Number(error.headers?.['Retry-After']))}`;
  return { title: wording.title, message };
}

/** Retry-After (seconds) as a learner reads it. */
function waitFor(seconds: number): string {
  if (!(seconds > 0)) return 'Wait a few minutes and try again.';
  if (seconds < 90) return 'Wait a minute and try again.';
  return `Wait about ${Math.round(seconds / 60)} minutes and try again.`;
}
