import { fromPostgresError } from '../database/postgres-errors.js';
import { StorageError, type StorageErrorKind } from '../database/storage-error.js';
import { AppError } from './app-error.js';

/**
 * What a client waits before retrying a request the database could not serve. One second: a
 * dropped connection is replaced on the next request, and a restart or failover takes seconds.
 */
const RETRY_AFTER = { 'Retry-After': '1' };

const STATUS: Record<StorageErrorKind, number> = {
  conflict: 409,
  missing_reference: 409,
  folder_in_use: 409,
  invalid_input: 400,
  retry: 503,
  timeout: 503,
  unavailable: 503,
};

/**
 * A storage failure as the API answers it, or undefined when `error` is none: a StorageError, or a
 * database error a SQLSTATE or a lost connection classifies (postgres-errors.ts). A 503 carries
 * Retry-After: the same request may succeed in a moment.
 */
export function httpErrorOf(error: unknown): AppError | undefined {
  const storage = error instanceof StorageError ? error : fromPostgresError(error);
  if (!storage) return undefined;
  const status = STATUS[storage.kind];
  return new AppError(storage.code, status, storage.message, status === 503 ? { headers: RETRY_AFTER } : {});
}
