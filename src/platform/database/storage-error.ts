/**
 * What went wrong in storage, in storage's own terms: the HTTP layer decides what a client is told
 * (platform/http/storage-errors.ts). `kind` says what a caller may do about it.
 * - `conflict`, `missing_reference`: the write contradicts what is stored;
 * - `invalid_input`: the request carried a value the database cannot hold;
 * - `retry`, `timeout`, `unavailable`: the same request may succeed in a moment;
 * - `folder_in_use`: another process holds the embedded database's folder.
 */
export type StorageErrorKind = 'conflict' | 'missing_reference' | 'invalid_input' | 'retry' | 'timeout' | 'unavailable' | 'folder_in_use';

export class StorageError extends Error {
  constructor(
    readonly kind: StorageErrorKind,
    /** A stable `area.reason` code, answered to clients as it is. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}
