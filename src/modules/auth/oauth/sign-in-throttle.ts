import type { SqlClient } from '../../../platform/database/sql-client.js';

/**
 * How hard online password guessing is made. Attempts are counted per account (`email:<address>`,
 * known or not, so the count does not tell which addresses exist) and per network address
 * (`ip:<address>`), within one tenant. Past `slowAfter` failures each further failed attempt is
 * answered `delayStepMs` later per failure over (at most `maxDelayMs`); at the limit the subject is
 * refused for `lockSeconds` without its password even being checked.
 *
 * The browser step's own limits ride along, so that tests can lower them through the same
 * build option: `authorizeRequestsPerMinute` per client address and route (GET and POST of
 * `/auth/oauth/authorize` each), and `maxPendingPerClient` unexpired sign-in forms per OAuth client.
 */
export interface SignInPolicy {
  windowSeconds: number;
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  lockSeconds: number;
  slowAfter: number;
  delayStepMs: number;
  maxDelayMs: number;
  authorizeRequestsPerMinute: number;
  maxPendingPerClient: number;
}

export const DEFAULT_SIGN_IN_POLICY: SignInPolicy = Object.freeze({
  windowSeconds: 15 * 60,
  maxFailuresPerAccount: 5,
  maxFailuresPerAddress: 20,
  lockSeconds: 15 * 60,
  slowAfter: 2,
  delayStepMs: 1_000,
  maxDelayMs: 5_000,
  // One sign-in is a GET and a POST or two; 60 a minute leaves room for retries, reloads and a
  // few people behind one NAT, while one address can no longer store thousands of pending forms.
  authorizeRequestsPerMinute: 60,
  // 10 minutes of forms at the per-address limit from about 2 addresses; beyond it the oldest go.
  maxPendingPerClient: 1_000,
});

export interface SignInSubjects {
  account: string;
  address: string;
}

export const signInSubjects = (email: string, ip: string): SignInSubjects => ({ account: `email:${email}`, address: `ip:${ip}` });

/**
 * A sign-in attempt that has its place in both counts, taken before its password is checked:
 * the count already includes it, so concurrent attempts can never check more passwords than the
 * limit allows. It stays counted as a failure unless `succeeded` or `release` gives it back.
 */
export interface Attempt {
  /** The attempt's place in the account's count, and in the address's. */
  accountCount: number;
  addressCount: number;
  /** Set when this attempt reached a limit: the subject is refused until then. */
  lockedUntil?: Date;
}

/** Not attempted: a subject is refused until `until`, and no password was checked. */
export interface Refused {
  refusedUntil: Date;
}

export interface FailureOutcome {
  /** Set when this failure reached a limit: refused until then. */
  lockedUntil?: Date;
  /** How long to hold the answer to this failed attempt. */
  delayMs: number;
}

/** The delay after the `failures`-th failure in a window. */
export function delayAfter(failures: number, policy: SignInPolicy): number {
  return failures <= policy.slowAfter ? 0 : Math.min((failures - policy.slowAfter) * policy.delayStepMs, policy.maxDelayMs);
}

/**
 * What a failed attempt costs: the lock its place reached, or the delay of its place. The address
 * allows more failures than the account, and is slowed as many failures before its limit as the
 * account is before its own.
 */
export function failureOutcome(attempt: Attempt, policy: SignInPolicy): FailureOutcome {
  const addressSlowAfter = policy.maxFailuresPerAddress - (policy.maxFailuresPerAccount - policy.slowAfter);
  return {
    lockedUntil: attempt.lockedUntil,
    delayMs: Math.max(
      delayAfter(attempt.accountCount, policy),
      delayAfter(attempt.addressCount, { ...policy, slowAfter: addressSlowAfter }),
    ),
  };
}

interface Place {
  count: number;
  lockedUntil?: Date;
}

const later = (a?: Date, b?: Date) => (a && b ? (a > b ? a : b) : (a ?? b));

export class SignInThrottle {
  constructor(
    private readonly sql: SqlClient,
    readonly policy: SignInPolicy,
  ) {}

  /**
   * Takes the attempt's place in the account's count, then in the address's, each with one atomic
   * statement that refuses a subject at its limit or under a lock. When the address refuses, the
   * account's place is given back: a refused attempt checks no password and counts nothing.
   */
  async attempt(tenantId: string, subjects: SignInSubjects): Promise<Attempt | Refused> {
    const account = await this.reserve(tenantId, subjects.account, this.policy.maxFailuresPerAccount);
    if (!account) return { refusedUntil: await this.refusedUntil(tenantId, subjects.account) };
    const address = await this.reserve(tenantId, subjects.address, this.policy.maxFailuresPerAddress);
    if (!address) {
      await this.giveBack(tenantId, subjects.account, this.policy.maxFailuresPerAccount);
      return { refusedUntil: await this.refusedUntil(tenantId, subjects.address) };
    }
    return { accountCount: account.count, addressCount: address.count, lockedUntil: later(account.lockedUntil, address.lockedUntil) };
  }

  /**
   * The right password: clears the account's count (its owner has proven who they are) and gives
   * the address its place back (not its failures: one address, many accounts).
   */
  async succeeded(tenantId: string, subjects: SignInSubjects): Promise<void> {
    await this.sql.query('DELETE FROM sign_in_failures WHERE tenant_id = $1 AND subject = $2', [tenantId, subjects.account]);
    await this.giveBack(tenantId, subjects.address, this.policy.maxFailuresPerAddress);
  }

  /** The attempt ended without a verdict on its password (an error): it counts against neither subject. */
  async release(tenantId: string, subjects: SignInSubjects): Promise<void> {
    await this.giveBack(tenantId, subjects.account, this.policy.maxFailuresPerAccount);
    await this.giveBack(tenantId, subjects.address, this.policy.maxFailuresPerAddress);
  }

  /**
   * One atomic upsert, so concurrent attempts each get their own place and none gets past the
   * limit: a count whose window has passed, or whose lock has run out, starts again at 1; a count
   * at its limit or under a lock is left alone and nothing is returned (refused); the place that
   * reaches the limit sets the lock (before its password is checked: the places are all taken).
   * On a conflict PostgreSQL locks the row and evaluates the WHERE on its newest version.
   */
  private async reserve(tenantId: string, subject: string, limit: number): Promise<Place | undefined> {
    const restarts = `(f.window_started_at <= now() - make_interval(secs => $5) OR f.locked_until <= now())`;
    const { rows } = await this.sql.query<{ failures: number; locked_until: Date | null }>(
      `INSERT INTO sign_in_failures AS f (tenant_id, subject, failures, window_started_at, locked_until)
       VALUES ($1, $2, 1, now(), CASE WHEN 1 >= $3 THEN now() + make_interval(secs => $4) END)
       ON CONFLICT (tenant_id, subject) DO UPDATE SET
         failures = CASE WHEN ${restarts} THEN 1 ELSE f.failures + 1 END,
         window_started_at = CASE WHEN ${restarts} THEN now() ELSE f.window_started_at END,
         locked_until = CASE WHEN (CASE WHEN ${restarts} THEN 1 ELSE f.failures + 1 END) >= $3
                             THEN now() + make_interval(secs => $4) END
       WHERE ${restarts} OR (f.failures < $3 AND f.locked_until IS NULL)
       RETURNING failures, locked_until`,
      [tenantId, subject, limit, this.policy.lockSeconds, this.policy.windowSeconds],
    );
    const row = rows[0];
    return row && { count: row.failures, lockedUntil: row.locked_until ?? undefined };
  }

  /** Hands a place back; below the limit again, the lock that place set is lifted. */
  private async giveBack(tenantId: string, subject: string, limit: number): Promise<void> {
    await this.sql.query(
      `UPDATE sign_in_failures
          SET failures = failures - 1, locked_until = CASE WHEN failures - 1 < $3 THEN NULL ELSE locked_until END
        WHERE tenant_id = $1 AND subject = $2 AND failures > 0`,
      [tenantId, subject, limit],
    );
  }

  /**
   * Until when a refused subject stays refused: its lock, or (a count at its limit without one,
   * left by an older, higher limit) the end of its window. A count that has just gone (a success
   * cleared it) is worth a retry at once.
   */
  private async refusedUntil(tenantId: string, subject: string): Promise<Date> {
    const { rows } = await this.sql.query<{ until: Date }>(
      `SELECT coalesce(locked_until, window_started_at + make_interval(secs => $3)) AS until
         FROM sign_in_failures WHERE tenant_id = $1 AND subject = $2`,
      [tenantId, subject, this.policy.windowSeconds],
    );
    return rows[0]?.until ?? new Date(Date.now() + 1_000);
  }
}
