import { AppError, badRequest, conflict, notFound } from '../../../platform/http/app-error.js';

/** The statements resource's errors, `statements.reason`. */
export const StatementErrors = {
  batchTooLarge: (sent: number, limit: number) =>
    new AppError(
      'statements.batch_too_large',
      413,
      `The batch holds ${sent} statements; this LRS takes at most ${limit} in one request. Send them in smaller batches.`,
      {
        details: { limit, sent },
      },
    ),
  emptyBatch: () => badRequest('statements.empty_batch', 'The request body must be a statement or a non-empty array of statements.'),
  duplicateIdInBatch: (id: string) =>
    badRequest('statements.duplicate_id', `The batch uses the statement id ${id} more than once; each statement needs its own id.`, { id }),
  idMismatch: (id: string, statementId: string) =>
    badRequest('statements.id_mismatch', `The statement's id ${id} does not match the statementId parameter ${statementId}.`, {
      id,
      statementId,
    }),
  conflict: (id: string) =>
    conflict(
      'statements.conflict',
      `A different statement with the id ${id} is already stored; statements are immutable, so send this one with a new id.`,
      { id },
    ),
  notFound: (id: string) => notFound('statements.not_found', `No statement with the id ${id} is stored.`, { id }),
  voidedNotFound: (id: string) => notFound('statements.not_found', `No voided statement with the id ${id} is stored.`, { id }),
  singleWithFilters: (parameter: string, others: string[]) =>
    badRequest(
      'statements.invalid_query',
      `${parameter} fetches one statement and may only be combined with format and attachments, not with ${others.join(', ')}.`,
    ),
  invalidParameter: (parameter: string, why: string) =>
    badRequest('statements.invalid_query', `The ${parameter} parameter ${why}.`, { parameter }),
  invalidCursor: () => badRequest('statements.invalid_cursor', 'The cursor is not one this LRS issued; follow the "more" link as given.'),
  unsupportedMediaType: (contentType: string) =>
    badRequest('statements.unsupported_media_type', `Statements are sent as application/json, not ${contentType}.`, { contentType }),
  forbidden: (why: string, details?: Record<string, unknown>) => new AppError('statements.forbidden', 403, why, { details }),
};
