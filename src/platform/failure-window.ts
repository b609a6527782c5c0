/**
 * Counts failures per key in a sliding window, in this process: once a key has `limit` failures
 * younger than `windowMs`, it is blocked until the oldest of them leaves the window. Guards what
 * is expensive to check (a password hash) against guessing. At most `maxKeys` keys are kept (the
 * oldest forgotten first), so a stream of new keys cannot grow it without bound.
 */
export class FailureWindow {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Milliseconds until `key` may be tried again; 0 when it may now. */
  blockedFor(key: string, now = Date.now()): number {
    const times = this.recent(key, now);
    return times.length >= this.limit ? times[times.length - this.limit]! + this.windowMs - now : 0;
  }

  fail(key: string, now = Date.now()): void {
    const times = this.recent(key, now);
    times.push(now);
    // Re-inserted, so the Map's order is the order of last failure: the oldest key goes first.
    this.failures.delete(key);
    if (this.failures.size >= this.maxKeys) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    this.failures.set(key, times.slice(-this.limit));
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((time) => time > now - this.windowMs);
  }
}
