import { StorageError } from './storage-error.js';

/**
 * Maps a database error to a StorageError by SQLSTATE, or by the driver's code or message when the
 * connection itself failed. Both engines put the SQLSTATE on `code`, but throw classes from
 * different packages, so the match is on the fields, never `instanceof`.
 */
export function fromPostgresError(error: unknown): StorageError | undefined {
  if (isConnectionError(error)) return databaseUnavailable();
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  switch (code) {
    case '23505':
      return new StorageError('conflict', 'database.conflict', 'The resource already exists.');
    // Text PostgreSQL cannot hold (U+0000 in text, \u0000 in jsonb) only ever comes from a client:
    // the input guards refuse it first, and this is the net behind them. 22P02 stays a 500: our
    // own casts raise it too, and a mapping would hide such a bug.
    case '22021':
    case '22P05':
      return new StorageError('invalid_input', 'request.invalid_text', 'The request holds text the database cannot store (U+0000).');
    case '23503':
      return new StorageError('missing_reference', 'database.missing_reference', 'The resource refers to something that does not exist.');
    case '40001':
    case '40P01':
      return new StorageError('retry', 'database.retry', 'The request collided with another one; retry it.');
    case '57014':
      return new StorageError('timeout', 'database.timeout', 'The database took too long to answer; retry later.');
    default:
      return undefined;
  }
}

export const databaseUnavailable = () =>
  new StorageError('unavailable', 'database.unavailable', 'The database cannot be reached right now; retry later.');

/**
 * SQLSTATEs that end or refuse the session rather than fail one statement: class 08
 * (connection exception), operator intervention that ends sessions (57P01 admin shutdown, as
 * pg_terminate_backend and a fast shutdown send; 57P02 crash shutdown; 57P03 not accepting
 * connections yet, as during start-up or recovery), too many connections (53300), and the
 * server's idle timeouts (25P03 in a transaction, 57P05 outside one).
 */
const CONNECTION_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1235]|53300|25P03)$/;

/** Socket errors of Node: the server is down, restarting, unreachable, or the connection broke. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * What node-postgres and its pool throw, without a code, when a connection ends or cannot be had
 * in time (pg/lib/client.js, pg-pool/index.js). Matched whole: a message that merely mentions a
 * connection (say, from a bug of ours) stays a 500.
 */
const DRIVER_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
]);

/**
 * Whether `error` says the database connection was lost or could not be opened, rather than that
 * a statement failed: such a request may simply be retried. Looks through `cause` and, for a
 * connection attempt to several addresses, through an AggregateError's `errors`.
 */
export function isConnectionError(error: unknown): boolean {
  const matches = (item: unknown, depth: number): boolean => {
    // A few levels are plenty; the bound also ends a cycle of causes.
    if (typeof item !== 'object' || item === null || depth > 3) return false;
    const { code, message, cause, errors } = item as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && (CONNECTION_SQLSTATE.test(code) || SOCKET_CODES.has(code))) return true;
    if (typeof message === 'string' && DRIVER_MESSAGES.has(message)) return true;
    if (Array.isArray(errors) && errors.some((inner) => matches(inner, depth + 1))) return true;
    return matches(cause, depth + 1);
  };
  return matches(error, 0);
}
