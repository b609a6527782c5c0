import { Counter, Histogram, type Metric } from 'prom-client';

/**
 * What this process counts outside any one request: cache lookups, failed SQL statements and
 * refused sign-ins. Code that sees the event increments these directly. They belong to no
 * registry here (`registers: []`): `/metrics` (platform/http/metrics.ts) adds them to its own,
 * which labels them with the worker. One process may build several apps (the tests do); they
 * share these counts, as they share the process.
 */

/** `TtlCache` lookups of the caches that were given a name (platform/cache.ts). */
export const cacheLookups = new Counter({
  name: 'learnbase_cache_lookups_total',
  help: 'Lookups in a named in-process cache, by cache and result (hit: the value was cached and fresh; miss: absent or expired).',
  labelNames: ['cache', 'result'] as const,
  registers: [],
});

/**
 * Statements that failed, in either database adapter, by SQLSTATE (`23505`) or, for a failure
 * before the database answered, the Node error code (`ECONNREFUSED`) or `unknown`. Some are the
 * expected outcome of a request (`23505` is a conflict answered 409), so watch the rate of each code.
 */
export const queryErrors = new Counter({
  name: 'learnbase_db_query_errors_total',
  help: 'SQL statements that failed, by SQLSTATE, or by Node error code when the database did not answer.',
  labelNames: ['code'] as const,
  registers: [],
});

const SQLSTATE = /^[0-9A-Z]{5}$/;
const NODE_CODE = /^E[A-Z_]{2,40}$/;

/** Counts one failed statement; the adapters call it where a statement's promise rejects. */
export function countQueryError(error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const label = typeof code === 'string' && (SQLSTATE.test(code) || NODE_CODE.test(code)) ? code : 'unknown';
  queryErrors.inc({ code: label });
}

/** `promise.catch(rethrowCounted)`: counts the failure and passes it on unchanged. */
export function rethrowCounted(error: unknown): never {
  countQueryError(error);
  throw error;
}

/**
 * Who tried to sign in: `admin` on the OAuth sign-in page (sign-in-throttle.ts), `credential` a
 * learner's Basic credential (credential.service.ts, failure-window.ts).
 */
export type SignInKind = 'admin' | 'credential';

export const signInFailures = new Counter({
  name: 'learnbase_sign_in_failures_total',
  help: 'Sign-ins refused for a wrong e-mail address, username or password, by kind (admin: the OAuth sign-in page; credential: a learner credential).',
  labelNames: ['kind'] as const,
  registers: [],
});

export const signInLockouts = new Counter({
  name: 'learnbase_sign_in_lockouts_total',
  help: 'Sign-ins answered 429 because the account or the client address reached its failure limit, by kind; no password was checked, except on the attempt that reached the limit.',
  labelNames: ['kind'] as const,
  registers: [],
});

/** Requests refused by a rate limit (platform/http/rate-limits.ts), by limit. */
export const rateLimitRefusals = new Counter({
  name: 'learnbase_rate_limit_refusals_total',
  help: 'Requests answered 429 by a rate limit, by limit (authorize, sign_in, token, revoke, failed_authentication).',
  labelNames: ['limit'] as const,
  registers: [],
});

/** Failures of the rate limits' shared store; each such request was served uncounted. */
export const rateLimitStoreErrors = new Counter({
  name: 'learnbase_rate_limit_store_errors_total',
  help: 'Rate-limit store operations (or Redis connections) that failed, by store; the requests concerned were served uncounted.',
  labelNames: ['store'] as const,
  registers: [],
});

/**
 * The rows of each statement a WriteBatcher wrote (platform/database/write-batcher.ts), by what it
 * writes: a count of 1 means a request's row went alone; the mean (`_sum` / `_count`) is how many
 * requests share a commit.
 */
export const writeBatchRows = new Histogram({
  name: 'learnbase_db_write_batch_rows',
  help: 'Rows of each statement that wrote the rows of several concurrent requests together, by what it wrote (new_documents: PUTs of new xAPI documents; document_merges: POSTs merging into xAPI documents, one transaction per batch; statements: requests of one or a few xAPI statements, one transaction per batch, counted in requests).',
  labelNames: ['writes'] as const,
  buckets: [1, 2, 4, 8, 16, 32, 64, 100],
  registers: [],
});

/** Every metric above, for `/metrics` to register. */
export const PROCESS_COUNTERS: Metric[] = [
  cacheLookups,
  queryErrors,
  signInFailures,
  signInLockouts,
  rateLimitRefusals,
  rateLimitStoreErrors,
  writeBatchRows,
];
