import { createRequire } from 'node:module';
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { SqlClient } from './database/sql-client.js';

/**
 * Where the rate limits count (docs/operations.md, "Rate limits"): `memory` in this process alone,
 * `postgres` in the `rate_limit_counters` table, `redis` in the Redis server of `REDIS_URL`. The
 * last two are shared by every process counting there.
 */
export type RateLimitStoreKind = 'memory' | 'postgres' | 'redis';

/** What a store answers for one counted request: the count of its window and the ms the window has left. */
export interface Count {
  current: number;
  ttl: number;
}

type StoreCallback = (error: Error | null, result?: Count) => void;

/**
 * A store of @fastify/rate-limit that also stops: its timers, its connection. Keys already carry
 * the limit's name (`token:192.0.2.7`), so one store serves every limit and `child` is the store.
 */
export interface RateLimitStore extends FastifyRateLimitStore {
  readonly kind: RateLimitStoreKind;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);
/** The plugin's own Redis store (an INCR and PEXPIRE script); the package exports it by path only. */
const PluginRedisStore = require('@fastify/rate-limit/store/RedisStore') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  nameSpace: string,
) => FastifyRateLimitStore;

/** The first request of a key, or of an expired window, starts a window; the others add one to it. */
const INCREMENT = `
  INSERT INTO rate_limit_counters AS counter (key, count, expires_at)
  VALUES ($1, 1, now() + $2::int * interval '1 millisecond')
  ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN counter.expires_at <= now() THEN 1 ELSE counter.count + 1 END,
    expires_at = CASE WHEN counter.expires_at <= now() THEN excluded.expires_at ELSE counter.expires_at END
  RETURNING count, greatest(1, ceil(extract(epoch FROM expires_at - now()) * 1000))::int AS ttl`;

/** How often expired windows are deleted; a key renewed before then keeps its row. */
const PURGE_INTERVAL_MS = 60_000;

/**
 * Counts in PostgreSQL, one upsert per counted request, the window measured by the database's
 * clock so that processes on hosts whose clocks differ agree. Expired rows are purged every minute.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  readonly kind = 'postgres';
  private readonly purgeTimer: NodeJS.Timeout;

  constructor(
    private readonly sql: SqlClient,
    onPurgeError: (error: Error) => void,
  ) {
    this.purgeTimer = setInterval(() => void this.purge().catch(onPurgeError), PURGE_INTERVAL_MS).unref();
  }

  incr(key: string, callback: StoreCallback, timeWindow: number): void {
    this.sql.query<{ count: number; ttl: number }>(INCREMENT, [key, timeWindow]).then(
      ({ rows }) => callback(null, { current: rows[0]!.count, ttl: rows[0]!.ttl }),
      (error: Error) => callback(error),
    );
  }

  child(): RateLimitStore {
    return this;
  }

  /** Deletes the windows that ended; answers how many. */
  async purge(): Promise<number> {
    const { rowCount } = await this.sql.query('DELETE FROM rate_limit_counters WHERE expires_at < now()');
    return rowCount;
  }

  async close(): Promise<void> {
    clearInterval(this.purgeTimer);
  }
}

/** A Redis command that gets no answer in this time fails, and the request is served uncounted. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** How long start-up waits for Redis before serving uncounted (it keeps reconnecting meanwhile). */
const REDIS_CONNECT_WAIT_MS = 2_000;

/**
 * Counts in Redis with the plugin's own store. While Redis is away commands fail at once rather
 * than queue (`enableOfflineQueue: false`), and one that hangs fails after 500 ms: a request waits
 * at most that long before it is served uncounted. The client reconnects by itself.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = 'redis';
  private readonly store: FastifyRateLimitStore;

  private constructor(private readonly client: Redis) {
    this.store = new PluginRedisStore(false, false, client, 'learnbase:rate-limit:');
  }

  static async open(url: string, onError: (error: Error) => void): Promise<RedisRateLimitStore> {
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: REDIS_CONNECT_WAIT_MS,
    });
    client.on('error', onError);
    const connected = client.connect().then(
      () => true,
      () => false,
    );
    const waited = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), REDIS_CONNECT_WAIT_MS).unref());
    if (!(await Promise.race([connected, waited])))
      onError(new Error(`Redis at ${redactedUrl(url)} did not answer: rate limits are not counted until it does`));
    return new RedisRateLimitStore(client);
  }

  incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
    this.store.incr(key, callback, timeWindow, max);
  }

  child(): RateLimitStore {
    return this;
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}

/** A Redis URL as logs may show it: without its password. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return 'REDIS_URL';
  }
}

/**
 * `store` whose failures are reported before the plugin, told to skip on error, serves the request
 * uncounted: a store that is down must not take the service down with it.
 */
export class ReportingStore implements RateLimitStore {
  constructor(
    private readonly store: RateLimitStore,
    private readonly onError: (error: Error) => void,
  ) {}

  get kind(): RateLimitStoreKind {
    return this.store.kind;
  }

  incr(key: string, callback: StoreCallback, timeWindow: number, max: number): void {
    this.store.incr(
      key,
      (error, result) => {
        if (error) this.onError(error);
        callback(error, result);
      },
      timeWindow,
      max,
    );
  }

  child(): RateLimitStore {
    return this;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
