import { AppError } from '../http/app-error.js';

/**
 * Maps a database error to an AppError by SQLSTATE. Both engines put the SQLSTATE on `code`,
 * but throw classes from different packages, so the match is on the field, never `instanceof`.
 */
export function fromPostgresError(error: unknown): AppError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  switch (code) {
    case '23505':
      return new AppError('database.conflict', 409, 'The resource already exists.');
    case '23503':
      return new AppError('database.missing_reference', 409, 'The resource refers to something that does not exist.');
    case '40001':
    case '40P01':
      return new AppError('database.retry', 503, 'The request collided with another one; retry it.');
    case '57014':
      return new AppError('database.timeout', 503, 'The database took too long to answer; retry later.');
    default:
      return undefined;
  }
}
