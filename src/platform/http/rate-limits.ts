import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { NotifyBus } from '../database/notify-bus.js';
import type { SqlClient } from '../database/sql-client.js';
import { rateLimitRefusals, rateLimitStoreErrors } from '../process-metrics.js';
import {
  PostgresRateLimitStore,
  RedisRateLimitStore,
  redactedUrl,
  ReportingStore,
  type RateLimitStore,
  type RateLimitStoreKind,
} from '../rate-limit-store.js';
import { AppError } from './app-error.js';
import { readinessWarnings } from './health.js';

/** Requests counted per client address in each window; 0 turns a limit off. */
export interface RateLimitSettings {
  /** `GET /auth/oauth/authorize`, and separately its sign-in form `POST`. */
  authorize: number;
  /** `POST /auth/oauth/token`, and separately `POST /auth/oauth/revoke`. */
  token: number;
  /** Answers 401 to a request that presented a credential; past it, every credential-checking request is refused. */
  failedAuthentication: number;
  /** The window, in ms: a minute, except in tests. */
  windowMs: number;
}

export interface RateLimitOptions {
  limits: RateLimitSettings;
  store: RateLimitStoreKind;
  /** The database of the `postgres` store. */
  sql: SqlClient;
  /** The Redis server of the `redis` store. */
  redisUrl?: string;
  /** How the processes tell each other that an address reached its failed-authentication limit. */
  notifications: NotifyBus;
  /**
   * The client's address, canonical (the sign-in throttle's, so the two agree). It is counted as
   * it is, an IPv6 address per /64 (which one host usually holds whole).
   */
  clientAddress: (request: FastifyRequest) => string;
}

/** The limits, by name: the metric's label and the first part of each store key. */
type LimitName = 'authorize' | 'sign_in' | 'token' | 'revoke' | 'failed_authentication';

const ROUTE_LIMITS: Record<string, LimitName> = {
  'GET /auth/oauth/authorize': 'authorize',
  'POST /auth/oauth/authorize': 'sign_in',
  'POST /auth/oauth/token': 'token',
  'POST /auth/oauth/revoke': 'revoke',
};

const BLOCKED_CHANNEL = 'learnbase_rate_limit_blocked';
/** Addresses remembered as over their failed-authentication limit, at most; the expired go first, then the oldest. */
const MAX_BLOCKED = 100_000;
/** A failing store is logged at most once in this period, with how many failures there were since. */
const STORE_WARNING_INTERVAL_MS = 60_000;

/**
 * A request refused by a rate limit: 429 with `Retry-After` in seconds. Rendered as every error is
 * (error-handler.ts): the API's JSON, RFC 6749's `rate_limited` on the token and revocation
 * endpoints, a page on the sign-in and launch pages.
 */
export class RateLimited extends AppError {
  constructor(
    readonly limit: LimitName,
    readonly retryAfterSeconds: number,
  ) {
    const message =
      limit === 'failed_authentication'
        ? `Too many failed authentications from your network address; try again in ${retryAfterSeconds} s.`
        : `Too many requests from your network address; try again in ${retryAfterSeconds} s.`;
    super('request.rate_limited', 429, message, {
      details: { limit, retryAfterSeconds },
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/**
 * Shown once per process, in the log and in `GET /health/ready`: a proxy on this host forwards
 * requests that LEARNBASE_TRUST_PROXY does not let it speak for, so each of its clients is this
 * host to the rate limits, and nobody is limited (docs/operations.md, "This host is not limited").
 */
const UNTRUSTED_LOCAL_PROXY = {
  code: 'rate_limits.untrusted_local_proxy',
  message:
    'A proxy on this host forwards requests (X-Forwarded-For) that LEARNBASE_TRUST_PROXY does not name: every client it ' +
    'forwards counts as this host, which the rate limits do not limit. Name the proxy in LEARNBASE_TRUST_PROXY ' +
    '(loopback, or its address) so that each client is counted under its own address.',
};

/** The store chosen, or by default redis with REDIS_URL, else postgres on PostgreSQL, else memory (docs/operations.md). */
export function chooseRateLimitStore(
  chosen: RateLimitStoreKind | undefined,
  redisUrl: string | undefined,
  database: 'pglite' | 'postgres',
): RateLimitStoreKind {
  if (chosen === 'postgres' && database !== 'postgres') {
    throw new Error(
      'The postgres rate-limit store needs PostgreSQL: the embedded database serves one process, whose counts the memory store keeps.',
    );
  }
  return chosen ?? (redisUrl ? 'redis' : database === 'postgres' ? 'postgres' : 'memory');
}

/**
 * Rate limits per client address (docs/operations.md, "Rate limits"), with @fastify/rate-limit
 * counting in the chosen store:
 * - the sign-in page and form, the token and the revocation endpoint: each request counts, and
 *   past the limit it is refused before anything is parsed or stored;
 * - failed authentication: each 401 answered to a request that presented a credential counts,
 *   and an address at its limit is refused every credential-checking request, the right
 *   credential included, until its window ends, before any credential is checked.
 * Registered before the auth plugin, so that its hook runs first.
 */
export const rateLimits = fp<RateLimitOptions>(
  async (app, options) => {
    const { limits } = options;
    const keyOf = (request: FastifyRequest) => normalizeIP(options.clientAddress(request));
    const store = await openStore(app, options);
    app.addHook('onClose', async () => store?.close());
    await app.register(rateLimit, {
      global: false,
      skipOnError: true,
      ...(store ? { store: storeClass(store) } : {}),
    });
    const limiter = (name: LimitName, max: number) =>
      max > 0
        ? app.createRateLimit({ max, timeWindow: limits.windowMs, keyGenerator: (request) => `${name}:${keyOf(request)}` })
        : undefined;
    const routeLimiters = {
      authorize: limiter('authorize', limits.authorize),
      sign_in: limiter('sign_in', limits.authorize),
      token: limiter('token', limits.token),
      revoke: limiter('revoke', limits.token),
    };
    const failures = limiter('failed_authentication', limits.failedAuthentication);
    const blocked = new Blocklist();
    const warnings = readinessWarnings(app);

    const stopListening = await options.notifications.listen(BLOCKED_CHANNEL, (payload) => {
      const message = parseBlocked(payload);
      if (message) blocked.block(message.address, message.ms);
    });
    app.addHook('onClose', async () => stopListening());

    // The limited routes that answer RFC 6749's errors document their 429 in that shape.
    app.addHook('onRoute', (route) => {
      const name = ROUTE_LIMITS[`${route.method} ${route.url}`];
      const responses = route.schema?.response as Record<string, unknown> | undefined;
      if (name && route.config?.errors === 'oauth' && responses && !responses[429]) responses[429] = OAUTH_TOO_MANY;
    });

    app.addHook('onRequest', async (request) => {
      if (request.method === 'OPTIONS') return;
      const address = options.clientAddress(request);
      if (isLoopback(address)) {
        if (forwardedByUntrustedProxy(request) && warnings.add(UNTRUSTED_LOCAL_PROXY)) {
          request.log.warn({ code: UNTRUSTED_LOCAL_PROXY.code }, UNTRUSTED_LOCAL_PROXY.message);
        }
        return;
      }
      const name = routeLimitOf(request);
      if (failures && checksCredentials(request, name)) {
        const waitMs = blocked.remainingMs(normalizeIP(address));
        if (waitMs > 0) throw refuse('failed_authentication', waitMs);
      }
      const limit = name && routeLimiters[name];
      if (!limit) return;
      const state = await limit(request);
      if (!state.isAllowed && state.isExceeded) throw refuse(name, state.ttl);
    });

    // onSend, not onResponse: the 401 waits for its count, so the client's next request sees it.
    app.addHook('onSend', async (request, reply, payload) => {
      if (!failures || reply.statusCode !== 401 || !presentedCredential(request) || isLoopback(options.clientAddress(request)))
        return payload;
      const state = await failures(request);
      if (!state.isAllowed && state.remaining === 0) {
        const address = keyOf(request);
        blocked.block(address, state.ttl);
        options.notifications
          .publish(BLOCKED_CHANNEL, JSON.stringify({ address, ms: state.ttl }))
          .catch((error) =>
            request.log.warn({ err: error }, 'could not tell the other processes that an address reached its failed-authentication limit'),
          );
      }
      return payload;
    });

    /** The refusal of a request by `limit`, counted. */
    function refuse(limit: LimitName, waitMs: number): RateLimited {
      rateLimitRefusals.inc({ limit });
      return new RateLimited(limit, Math.max(1, Math.ceil(waitMs / 1000)));
    }
  },
  { name: 'rate-limits' },
);

/** The route limit of a request, if its route has one. */
const routeLimitOf = (request: FastifyRequest): Exclude<LimitName, 'failed_authentication'> | undefined =>
  ROUTE_LIMITS[`${request.method} ${request.routeOptions.url}`] as Exclude<LimitName, 'failed_authentication'> | undefined;

/**
 * This host: a proxy on it that is not trusted (LEARNBASE_TRUST_PROXY unset) makes every client
 * look like one loopback client, and one guesser would then lock everyone out. Unlimited instead;
 * a trusted proxy's clients are counted under their own addresses.
 */
const isLoopback = (address: string) => /^127\./.test(address) || address === '::1';

/**
 * The request came through a proxy whose X-Forwarded-For was not believed: the header is there,
 * and Fastify's addresses (`request.ips`, set with LEARNBASE_TRUST_PROXY) stop at the peer.
 */
const forwardedByUntrustedProxy = (request: FastifyRequest): boolean =>
  request.headers['x-forwarded-for'] !== undefined && (request.ips?.length ?? 1) <= 1;

/** The API and the LRS (the auth plugin's paths), the sign-in form and the OAuth endpoints: where a credential is checked. */
function checksCredentials(request: FastifyRequest, name: LimitName | undefined): boolean {
  return /^\/(api|xapi)(\/|\?|$)/.test(request.url) || name === 'sign_in' || name === 'token' || name === 'revoke';
}

/**
 * The request carried a credential: an Authorization header, a client secret or a password in its
 * body. A request without one is no guess: clients that send credentials only when challenged
 * (.NET's and Java's by default) get a 401 first on every request, and must not be counted for it.
 */
function presentedCredential(request: FastifyRequest): boolean {
  if (request.headers.authorization !== undefined) return true;
  const body = request.body;
  if (!body || typeof body !== 'object') return false;
  const fields = body as Record<string, unknown>;
  return typeof fields.client_secret === 'string' || typeof fields.password === 'string';
}

function parseBlocked(payload: string): { address: string; ms: number } | undefined {
  try {
    const message = JSON.parse(payload) as { address?: unknown; ms?: unknown };
    return typeof message.address === 'string' && typeof message.ms === 'number' ? { address: message.address, ms: message.ms } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The addresses at their failed-authentication limit, until their window ends. Kept in each
 * process and told to the others, so a refusal reads no store: the API's every request passes
 * this check.
 */
class Blocklist {
  private readonly until = new Map<string, number>();

  block(address: string, ms: number): void {
    if (this.until.size >= MAX_BLOCKED) this.prune();
    const until = Date.now() + ms;
    this.until.set(address, Math.max(until, this.until.get(address) ?? 0));
  }

  remainingMs(address: string): number {
    const until = this.until.get(address);
    if (until === undefined) return 0;
    const left = until - Date.now();
    if (left <= 0) this.until.delete(address);
    return Math.max(0, left);
  }

  private prune(): void {
    const now = Date.now();
    for (const [address, until] of this.until) if (until <= now) this.until.delete(address);
    for (const address of this.until.keys()) {
      if (this.until.size < MAX_BLOCKED) break;
      this.until.delete(address);
    }
  }
}

const OAUTH_TOO_MANY = {
  description: 'Too many requests, or failed authentications, from this address (Retry-After, in seconds).',
  type: 'object',
  properties: { error: { type: 'string', examples: ['rate_limited'] }, error_description: { type: 'string' } },
};

/** The shared store (undefined: the plugin's own, in memory), its failures logged and counted. */
async function openStore(app: FastifyInstance, options: RateLimitOptions): Promise<RateLimitStore | undefined> {
  const reportStoreError = warnAtIntervals(app, options.store);
  switch (options.store) {
    case 'memory':
      return undefined;
    case 'postgres':
      return new ReportingStore(
        new PostgresRateLimitStore(options.sql, (error) => app.log.warn({ err: error }, 'could not purge expired rate-limit counters')),
        reportStoreError,
      );
    case 'redis': {
      if (!options.redisUrl) throw new Error('The redis rate-limit store needs REDIS_URL.');
      const url = options.redisUrl;
      const connectionErrors = warnAtIntervals(
        app,
        'redis',
        `the Redis server of the rate limits (${redactedUrl(url)}) is unavailable: requests are served uncounted`,
      );
      return new ReportingStore(await RedisRateLimitStore.open(url, connectionErrors), reportStoreError);
    }
  }
}

/** Counts every failure; logs the first, then at most one a minute with the number since. */
function warnAtIntervals(
  app: FastifyInstance,
  store: RateLimitStoreKind,
  message = 'the rate-limit store failed: the request was served uncounted',
) {
  let lastLogged = 0;
  let since = 0;
  return (error: Error) => {
    rateLimitStoreErrors.inc({ store });
    since += 1;
    if (Date.now() - lastLogged < STORE_WARNING_INTERVAL_MS) return;
    app.log.warn({ err: error, store, failures: since }, message);
    lastLogged = Date.now();
    since = 0;
  };
}

/** @fastify/rate-limit constructs its store from a class; this one hands it the store already open. */
function storeClass(store: RateLimitStore) {
  // A constructor returning an object makes `new` answer that object: the one store, shared.
  return function SharedStore() {
    return store;
  } as unknown as new () => RateLimitStore;
}
