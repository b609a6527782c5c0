export interface AppErrorOptions {
  /** Machine-readable detail, answered under `details`. */
  details?: Record<string, unknown>;
  /** Extra response headers, such as `WWW-Authenticate` on a 401. */
  headers?: Record<string, string>;
  /** A whole response body that replaces the usual `{code, message, details}` (the document resources' array of missing parameters). */
  body?: unknown;
}

/**
 * The one error type the application throws on purpose. `code` reads `module.reason`
 * (`state.etag_mismatch`); `error-handler.ts` is the only place it becomes a response.
 */
export class AppError extends Error {
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;

  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.details = options.details;
    this.headers = options.headers;
    this.body = options.body;
  }
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>) =>
  new AppError(code, 400, message, { details });
export const notFound = (code: string, message: string, details?: Record<string, unknown>) => new AppError(code, 404, message, { details });
export const conflict = (code: string, message: string, details?: Record<string, unknown>) => new AppError(code, 409, message, { details });
export const preconditionFailed = (code: string, message: string) => new AppError(code, 412, message);
