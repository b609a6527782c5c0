import { cacheLookups } from './process-metrics.js';

/**
 * A small per-process cache whose entries expire after `ttlMs`. Shared state lives in
 * Postgres; this only saves round trips for values that change rarely (tenants, verified
 * credentials), so a short lifetime bounds how stale any process can be.
 *
 * A cache given a `name` counts its hits and misses in `learnbase_cache_lookups_total` (/metrics);
 * caches whose lookups mostly miss by design (recent revocations) are left unnamed.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly maxEntries: number;
  private readonly name: string | undefined;

  constructor(
    private readonly ttlMs: number,
    options: { maxEntries?: number; name?: string } = {},
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.name = options.name;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    const fresh = entry !== undefined && entry.expires > Date.now();
    if (entry && !fresh) this.entries.delete(key);
    if (this.name !== undefined) cacheLookups.inc({ cache: this.name, result: fresh ? 'hit' : 'miss' });
    return fresh ? entry.value : undefined;
  }

  set(key: string, value: V): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expires: Date.now() + this.ttlMs });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
