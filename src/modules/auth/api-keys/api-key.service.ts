import { randomBytes, timingSafeEqual } from 'node:crypto';
import { TtlCache } from '../../../platform/cache.js';
import type { NotifyBus } from '../../../platform/database/notify-bus.js';
import { RevocableCache } from '../../../platform/revocable-cache.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { notFound } from '../../../platform/http/app-error.js';
import { hashSecret, newSecret, secretMatches } from '../../../platform/issued-secrets.js';
import { type TenancyService, tenantHex, tenantIdFromHex } from '../../tenancy/index.js';
import type { Tenant } from '../../../kernel/principal.js';
import { findActiveKey, insertApiKey, listApiKeyRows, revokeApiKeyRow, touchApiKeyRow, type ApiKeyListing } from './api-key.repository.js';

export type { ApiKeyListing };

/**
 * API keys look like `lb_<tenant id in hex>_<random>`: the key names its tenant, so a Basic
 * credential resolves to one tenant without a global index and without trusting the headers.
 */
const API_KEY = /^lb_([0-9a-f]{32})_[0-9a-f]{16}$/;

/** The LISTEN/NOTIFY channel that carries revoked API keys, comma-separated. */
export const API_KEY_REVOCATIONS_CHANNEL = 'learnbase_api_key_revocations';
/** "Last used" is kept to the minute: one process writes it at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface IssuedApiKey {
  key: string;
  secret: string;
  /** The organisation entry the key is limited to, when it is (docs/learning.md, "Scoped administration and managers"). */
  scope?: string;
}

/**
 * A new key of the tenant; with `scope`, limited for good to that organisation entry and what is
 * below it (the caller checks that the entry exists: the command line does).
 */
export async function issueApiKey(sql: SqlClient, tenant: Tenant, scope?: string): Promise<IssuedApiKey> {
  const key = `lb_${tenantHex(tenant.id)}_${randomBytes(8).toString('hex')}`;
  const secret = newSecret();
  await insertApiKey(sql, tenant.id, key, hashSecret(secret), scope);
  return { key, secret, ...(scope === undefined ? {} : { scope }) };
}

/** The tenant id a key belongs to, or undefined when the text is no API key at all. */
export function tenantIdOfApiKey(key: string): string | undefined {
  const hex = API_KEY.exec(key)?.[1];
  if (!hex) return undefined;
  return tenantIdFromHex(hex);
}

/** The key's scope (`{}` when it has none) when `secret` is its own and it is not revoked; otherwise undefined. */
export async function verifyApiKey(sql: SqlClient, tenantId: string, key: string, secret: string): Promise<{ scope?: string } | undefined> {
  const stored = await findActiveKey(sql, tenantId, key);
  if (!stored || !secretMatches(secret, stored.secretHash)) return undefined;
  return stored.scope === undefined ? {} : { scope: stored.scope };
}

/** A key that verified: its tenant, and the organisation entry it is limited to, if any. */
export interface VerifiedApiKey {
  tenant: Tenant;
  scope?: string;
}

export interface ApiKeyServiceOptions {
  /** How long one process trusts a key it verified, in ms. */
  cacheTtlMs: number;
  /** Publishing a revocation or recording a use failed; neither fails the request. */
  onError?: (error: Error) => void;
}

interface CachedKey {
  /** SHA-256 of the secret that verified: another secret pays a database read again. */
  secretDigest: Buffer;
  /** Set at creation and never changed, so it is cached with the key. */
  scope?: string;
}

/**
 * Checks, lists and revokes API keys. A verified key is cached per process; every revocation is
 * announced on `learnbase_api_key_revocations` and every process evicts it (RevocableCache), so a
 * revoked key is refused everywhere within the notification's delivery time.
 */
export class ApiKeyService {
  private readonly cache: RevocableCache<CachedKey>;
  /** Keys whose use this process recorded within the last minute. */
  private readonly touched = new TtlCache<true>(LAST_USED_RESOLUTION_MS);
  private readonly pendingTouches = new Set<Promise<void>>();

  constructor(
    private readonly sql: SqlClient,
    private readonly tenancy: TenancyService,
    notifications: NotifyBus,
    private readonly options: ApiKeyServiceOptions,
  ) {
    this.cache = new RevocableCache(notifications, API_KEY_REVOCATIONS_CHANNEL, {
      ttlMs: options.cacheTtlMs,
      // A revoked key is refused without reading its row for at least a second, cached or not.
      revokedTtlMs: Math.max(options.cacheTtlMs, 1_000),
      name: 'api_key',
      onError: options.onError,
    });
  }

  /** Starts hearing the revocations of every process; call once before serving. */
  start(): Promise<void> {
    return this.cache.start();
  }

  /** Stops listening and waits for the "last used" writes in flight. */
  async stop(): Promise<void> {
    this.cache.stop();
    await Promise.all(this.pendingTouches);
  }

  /** The key's tenant and scope when `secret` is its own and the key is not revoked; otherwise undefined. */
  async verify(key: string, secret: string): Promise<VerifiedApiKey | undefined> {
    const tenantId = tenantIdOfApiKey(key);
    if (!tenantId || this.cache.isRevoked(key)) return undefined;
    // Usually from the tenancy cache; a deleted tenant is evicted there, which ends its keys here too.
    const tenant = await this.tenancy.findById(tenantId);
    if (!tenant) return undefined;
    const digest = hashSecret(secret);
    let cached = this.cache.get(key);
    if (!cached || !timingSafeEqual(cached.secretDigest, digest)) {
      const verified = await verifyApiKey(this.sql, tenant.id, key, secret);
      if (!verified) return undefined;
      cached = { secretDigest: digest, ...verified };
      this.cache.set(key, cached);
    }
    this.recordUse(tenant.id, key);
    return cached.scope === undefined ? { tenant } : { tenant, scope: cached.scope };
  }

  list(tenant: Tenant): Promise<ApiKeyListing[]> {
    return listApiKeyRows(this.sql, tenant.id);
  }

  /** Revokes the key at once in every process; 404 naming it when the tenant has no such key. */
  async revoke(tenant: Tenant, key: string): Promise<ApiKeyListing> {
    const revoked = await revokeApiKeyRow(this.sql, tenant.id, key);
    if (!revoked) throw notFound('api_key.not_found', `Tenant "${tenant.name}" has no API key ${key}.`, { key });
    await this.announce([key]);
    return revoked;
  }

  /** Tells every process, this one first, that these keys no longer authenticate; call after commit. */
  announce(keys: string[]): Promise<void> {
    return this.cache.revoke(keys);
  }

  /** At most one write a minute per key and process, off the request's path. */
  private recordUse(tenantId: string, key: string): void {
    if (this.touched.get(key)) return;
    this.touched.set(key, true);
    const pending = touchApiKeyRow(this.sql, tenantId, key)
      .catch((error: Error) => this.options.onError?.(error))
      .finally(() => this.pendingTouches.delete(pending));
    this.pendingTouches.add(pending);
  }
}
