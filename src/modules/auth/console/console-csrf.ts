import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../platform/http/app-error.js';
import { CSRF_HEADER, csrfTokenOf } from './console-session.service.js';

/** A write with the session cookie carries the session's CSRF token; a cross-site form or script cannot know it. */
export function checkCsrf(request: FastifyRequest, secret: string): void {
  const sent = request.headers[CSRF_HEADER];
  if (sent !== csrfTokenOf(secret)) {
    throw new AppError(
      'auth.csrf',
      403,
      `A write with the console's session cookie carries its CSRF token in the ${CSRF_HEADER} header (GET /console/auth/session answers it).`,
    );
  }
}
