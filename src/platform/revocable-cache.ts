import { TtlCache } from './cache.js';
import type { NotifyBus } from './database/notify-bus.js';

/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7_999;

export interface RevocableCacheOptions {
  /** How long one process reuses an entry it verified, in ms; 0 caches nothing. */
  ttlMs: number;
  /** How long a revoked key is remembered, in ms. Absent: `ttlMs`. */
  revokedTtlMs?: number;
  /** The name its hits and misses are counted under in `learnbase_cache_lookups_total` (/metrics). */
  name?: string;
  /** Publishing a revocation failed: the revocation stands here, and the other processes' entries age out. */
  onError?: (error: Error) => void;
}

/**
 * A per-process cache of verified entries (a credential that checked out, say) that every
 * process forgets as soon as any one revokes a key. A revocation is announced on `channel` as
 * comma-separated keys (so a key never holds a comma); each process deletes what it hears and
 * remembers the key as revoked for a while, so that a check that read its row just before the
 * revocation committed cannot cache it after the eviction went past.
 *
 * When the bus says messages may have been lost, nothing cached can be trusted: the entries are
 * dropped and `generation` goes up, so caches built on this one's revocations can tell that
 * what they hold predates the gap.
 */
export class RevocableCache<V> {
  private verified: TtlCache<V>;
  private readonly revoked: TtlCache<true>;
  private stopListening: (() => void) | undefined;
  private gaps = 0;

  constructor(
    private readonly bus: NotifyBus,
    /** The LISTEN/NOTIFY channel of the revoked keys. */
    readonly channel: string,
    private readonly options: RevocableCacheOptions,
  ) {
    this.verified = this.emptyCache();
    this.revoked = new TtlCache(options.revokedTtlMs ?? options.ttlMs);
  }

  /** Starts hearing the revocations of every process; call once before serving. */
  async start(): Promise<void> {
    this.stopListening = await this.bus.listen(
      this.channel,
      (payload) => this.forget(payload.split(',').filter(Boolean)),
      () => {
        this.verified = this.emptyCache();
        this.gaps += 1;
      },
    );
  }

  stop(): void {
    this.stopListening?.();
    this.stopListening = undefined;
  }

  /** Goes up whenever revocations may have been missed: what was cached before can no longer be trusted. */
  get generation(): number {
    return this.gaps;
  }

  /** The entry verified lately; never one whose key was revoked since. */
  get(key: string): V | undefined {
    return this.verified.get(key);
  }

  /** True when this process heard lately that the key was revoked. */
  isRevoked(key: string): boolean {
    return this.revoked.get(key) === true;
  }

  /** Keeps a verified entry for `ttlMs`, unless its key was revoked lately. */
  set(key: string, value: V): void {
    if (!this.isRevoked(key)) this.verified.set(key, value);
  }

  delete(key: string): void {
    this.verified.delete(key);
  }

  /**
   * Tells every process, this one first and synchronously, that these keys are revoked; call
   * once the revocation is committed, so that no process re-reads a row that still looks valid.
   */
  async revoke(keys: string[]): Promise<void> {
    this.forget(keys);
    for (const payload of payloads(keys)) {
      await this.bus.publish(this.channel, payload).catch((error: Error) => this.options.onError?.(error));
    }
  }

  private forget(keys: string[]): void {
    for (const key of keys) {
      this.verified.delete(key);
      this.revoked.set(key, true);
    }
  }

  private emptyCache(): TtlCache<V> {
    return new TtlCache(this.options.ttlMs, { name: this.options.name });
  }
}

/** The keys, comma-separated, in as few messages as fit PostgreSQL's payload limit. */
function payloads(keys: string[]): string[] {
  const messages: string[] = [];
  let batch: string[] = [];
  let bytes = 0;
  for (const key of keys) {
    const keyBytes = Buffer.byteLength(key);
    // One more byte for the comma before every key but the first.
    if (batch.length > 0 && bytes + 1 + keyBytes > MAX_PAYLOAD_BYTES) {
      messages.push(batch.join(','));
      batch = [];
      bytes = 0;
    }
    bytes += (batch.length > 0 ? 1 : 0) + keyBytes;
    batch.push(key);
  }
  if (batch.length > 0) messages.push(batch.join(','));
  return messages;
}
