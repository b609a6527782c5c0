import type { SqlClient } from '../../../platform/database/sql-client.js';

/**
 * How hard online password guessing is made. Failures are counted per account (`email:<address>`,
 * known or not, so the count does not tell which addresses exist) and per network address
 * (`ip:<address>`), within one tenant. Past `slowAfter` failures each further failed attempt is
 * answered `delayStepMs` later per failure over (at most `maxDelayMs`); at the limit the subject is
 * refused for `lockSeconds` without its password even being checked.
 */
export interface SignInPolicy {
  windowSeconds: number;
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  lockSeconds: number;
  slowAfter: number;
  delayStepMs: number;
  maxDelayMs: number;
}

export const DEFAULT_SIGN_IN_POLICY: SignInPolicy = Object.freeze({
  windowSeconds: 15 * 60,
  maxFailuresPerAccount: 5,
  maxFailuresPerAddress: 20,
  lockSeconds: 15 * 60,
  slowAfter: 2,
  delayStepMs: 1_000,
  maxDelayMs: 5_000,
});

export interface SignInSubjects {
  account: string;
  address: string;
}

export const signInSubjects = (email: string, ip: string): SignInSubjects => ({ account: `email:${email}`, address: `ip:${ip}` });

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

export class SignInThrottle {
  constructor(
    private readonly sql: SqlClient,
    private readonly policy: SignInPolicy,
  ) {}

  /** When either subject is refused, until when; otherwise undefined. */
  async lockedUntil(tenantId: string, subjects: SignInSubjects): Promise<Date | undefined> {
    const { rows } = await this.sql.query<{ locked_until: Date }>(
      `SELECT max(locked_until) AS locked_until FROM sign_in_failures
        WHERE tenant_id = $1 AND subject IN ($2, $3) AND locked_until > now()`,
      [tenantId, subjects.account, subjects.address],
    );
    return rows[0]?.locked_until ?? undefined;
  }

  /** Counts a failed attempt against both subjects. */
  async recordFailure(tenantId: string, subjects: SignInSubjects): Promise<FailureOutcome> {
    const account = await this.count(tenantId, subjects.account, this.policy.maxFailuresPerAccount);
    const address = await this.count(tenantId, subjects.address, this.policy.maxFailuresPerAddress);
    const locks = [account.lockedUntil, address.lockedUntil].filter((date): date is Date => date !== undefined);
    const addressSlowAfter = this.policy.maxFailuresPerAddress - (this.policy.maxFailuresPerAccount - this.policy.slowAfter);
    return {
      lockedUntil: locks.length > 0 ? new Date(Math.max(...locks.map(Number))) : undefined,
      delayMs: Math.max(
        delayAfter(account.failures, this.policy),
        delayAfter(address.failures, { ...this.policy, slowAfter: addressSlowAfter }),
      ),
    };
  }

  /** A successful sign-in clears the account's count (not the address's: one address, many accounts). */
  async recordSuccess(tenantId: string, subjects: SignInSubjects): Promise<void> {
    await this.sql.query('DELETE FROM sign_in_failures WHERE tenant_id = $1 AND subject = $2', [tenantId, subjects.account]);
  }

  /**
   * One atomic upsert: a count whose window has passed, or whose lock has run out, starts again
   * at 1; reaching `limit` sets the lock.
   */
  private async count(tenantId: string, subject: string, limit: number): Promise<{ failures: number; lockedUntil?: Date }> {
    const { rows } = await this.sql.query<{ failures: number; locked_until: Date | null }>(
      `INSERT INTO sign_in_failures AS f (tenant_id, subject, failures, window_started_at, locked_until)
       VALUES ($1, $2, 1, now(), CASE WHEN $3 <= 1 THEN now() + make_interval(secs => $4) END)
       ON CONFLICT (tenant_id, subject) DO UPDATE SET
         failures = CASE WHEN f.window_started_at <= now() - make_interval(secs => $5) OR f.locked_until <= now()
                         THEN 1 ELSE f.failures + 1 END,
         window_started_at = CASE WHEN f.window_started_at <= now() - make_interval(secs => $5) OR f.locked_until <= now()
                                  THEN now() ELSE f.window_started_at END,
         locked_until = CASE WHEN f.window_started_at <= now() - make_interval(secs => $5) OR f.locked_until <= now()
                             THEN (CASE WHEN $3 <= 1 THEN now() + make_interval(secs => $4) END)
                             WHEN f.failures + 1 >= $3 THEN now() + make_interval(secs => $4)
                             ELSE f.locked_until END
       RETURNING failures, locked_until`,
      [tenantId, subject, limit, this.policy.lockSeconds, this.policy.windowSeconds],
    );
    const row = rows[0];
    return { failures: row?.failures ?? 1, lockedUntil: row?.locked_until ?? undefined };
  }
}
