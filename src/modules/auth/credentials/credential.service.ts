import { randomBytes, timingSafeEqual } from 'node:crypto';
import { FailureWindow } from '../../../platform/failure-window.js';
import type { NotifyBus } from '../../../platform/database/notify-bus.js';
import { RevocableCache } from '../../../platform/revocable-cache.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { badRequest, conflict, notFound } from '../../../platform/http/app-error.js';
import { textProblem } from '../../../platform/json-guard.js';
import { hashPassword, unknownAccountHash, verifyPassword } from '../../../platform/passwords.js';
import { signInFailures, signInLockouts } from '../../../platform/process-metrics.js';
import { hashSecret } from '../../../platform/issued-secrets.js';
import { findActorByKey, requirePerson, agentKeyRequired, mayRead, type PersonQuery } from '../../actors/index.js';
import { recordAudit } from '../../audit/index.js';
import { parseAgent } from '../../../kernel/agent.js';
import { tenantIdOfApiKey } from '../api-keys/api-key.service.js';
import type { Principal } from '../../../kernel/principal.js';
import {
  type CredentialListing,
  findCredential,
  findCredentialsOf,
  insertCredential,
  revokeCredentialRow,
  revokeCredentialRowsOf,
} from './credential.repository.js';

export type { CredentialListing };

/** What `GET /api/auth/basic` is asked: whose credentials, only the usable ones or all, how many. */
export interface CredentialListQuery extends PersonQuery {
  state?: 'active';
  limit?: number;
}

/** How many credentials one listing answers at most, unless `limit` says fewer. */
export const CREDENTIAL_LIST_DEFAULT_LIMIT = 100;

/** The LISTEN/NOTIFY channel that carries the ids (see credentialKey) of revoked credentials, comma-separated. */
export const CREDENTIAL_REVOCATIONS_CHANNEL = 'learnbase_credential_revocations';
/** Usernames of this form are launch tokens (launch-session.service.ts): no credential may take one. */
export const LAUNCH_USERNAME_PREFIX = 'launch.';

const USERNAME_MAX = 200;
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 1000;

/** What POST /api/auth/basic asks for, checked. */
export interface CredentialRequest {
  username: string;
  password: string;
  /** The canonical key of `data.actor`. */
  agentKey: string;
}

/** What POST /api/auth/basic answers. */
export interface CreatedCredential {
  username: string;
  actor: Record<string, unknown>;
  expiresAt: string;
}

/** A credential that verified: the actor it acts for, until when. */
export interface VerifiedCredential {
  tenantId: string;
  username: string;
  agentKey: string;
  expiresAtMs: number;
  /** See credentialKey: what revocations are announced by. */
  key: string;
}

export type CredentialCheck =
  | { valid: true; credential: VerifiedCredential }
  | { valid: false; reason: 'unknown' | 'expired' | 'revoked' }
  /** Too many failed checks lately for this username or from this client: not checked (no scrypt). */
  | { valid: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * Failed checks a username, and a client address, may have within GUESS_WINDOW_MS before further
 * checks are refused without hashing (429). Learner usernames are random, so a legitimate client
 * rarely fails; the address limit is higher because one integration server launches for many
 * learners. Per process: N processes allow N times as many.
 */
export const GUESS_LIMITS = { username: 10, address: 50 } as const;
export const GUESS_WINDOW_MS = 15 * 60_000;

interface CachedCredential extends VerifiedCredential {
  /** SHA-256 of the password that verified: a later request with another password pays scrypt again. */
  passwordDigest: Buffer;
}

/** What a single sign-on anchor stores as its password hash: not an scrypt hash, so no password verifies. */
const SIGN_ON_ANCHOR_HASH = '!single-sign-on';

/** The id of one credential across processes: SHA-256 (hex) of its tenant and username, so any username fits a message. */
export const credentialKey = (tenantId: string, username: string): string => hashSecret(`${tenantId}\n${username}`).toString('hex');

/**
 * Checks the body of POST /api/auth/basic (interface 4.2, 5.3): 400 naming the field. `data.actor`
 * is any xAPI Agent with one IFI (the interface shows an account; mbox, mbox_sha1sum and openid
 * work too).
 */
export function parseCredentialRequest(body: unknown): CredentialRequest {
  const invalid = (field: string, why: string) => badRequest('auth.invalid_credential_request', `${field} ${why}.`, { field });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('The body', 'must be a JSON object with username, password and data.actor');
  }
  const { username, password, data } = body as Record<string, unknown>;
  if (typeof username !== 'string' || username.length < 1 || username.length > USERNAME_MAX) {
    throw invalid('username', `must be a string of 1 to ${USERNAME_MAX} characters`);
  }
  // RFC 7617 §2: the user-id of Basic authentication cannot contain a colon.
  if (username.includes(':')) throw invalid('username', 'must not contain ":" (Basic authentication splits on the first colon)');
  const usernameProblem = textProblem(username);
  if (usernameProblem) throw invalid('username', usernameProblem.why);
  if (username.startsWith(LAUNCH_USERNAME_PREFIX))
    throw invalid('username', `must not start with "${LAUNCH_USERNAME_PREFIX}" (reserved for launch tokens)`);
  if (tenantIdOfApiKey(username))
    throw invalid('username', 'must not have the form of an API key (lb_…), which Basic authentication reads as one');
  if (typeof password !== 'string' || password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw invalid('password', `must be a string of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  }
  const passwordProblem = textProblem(password);
  if (passwordProblem) throw invalid('password', passwordProblem.why);
  if (typeof data !== 'object' || data === null || Array.isArray(data) || (data as Record<string, unknown>).actor === undefined) {
    throw invalid('data.actor', 'is required: the actor (an xAPI Agent) the credential acts for');
  }
  const { key } = parseAgent((data as Record<string, unknown>).actor, 'data.actor');
  return { username, password, agentKey: key };
}

export interface CredentialServiceOptions {
  /** How long one process trusts a credential it verified, in ms (never past the credential's expiry). */
  cacheTtlMs: number;
  /** Lifetime of a new credential, in seconds. */
  lifetimeSeconds: number;
  /** Publishing a revocation failed; the revocation itself stands, and other processes' caches age out. */
  onError?: (error: Error) => void;
}

/**
 * Learner credentials: Basic username/password pairs that act for one actor (docs/provisioning.md,
 * "A person's credentials"). A verified credential is cached per process so launch and xAPI calls do not pay
 * scrypt each; every revocation is announced on `learnbase_credential_revocations` and every
 * process evicts it (RevocableCache).
 */
export class CredentialService {
  /** Verified credentials by credentialKey. */
  private readonly cache: RevocableCache<CachedCredential>;
  private readonly guessesByUsername = new FailureWindow(GUESS_LIMITS.username, GUESS_WINDOW_MS);
  private readonly guessesByAddress = new FailureWindow(GUESS_LIMITS.address, GUESS_WINDOW_MS);

  constructor(
    readonly sql: SqlClient,
    notifications: NotifyBus,
    private readonly options: CredentialServiceOptions,
  ) {
    this.cache = new RevocableCache(notifications, CREDENTIAL_REVOCATIONS_CHANNEL, {
      ttlMs: options.cacheTtlMs,
      name: 'credential',
      onError: options.onError,
    });
  }

  /** Starts hearing the revocations of every process; call once before serving. */
  start(): Promise<void> {
    return this.cache.start();
  }

  stop(): void {
    this.cache.stop();
  }

  /**
   * Goes up whenever revocations may have been missed (the listening connection dropped): what
   * was cached before, here or in LaunchSessionService, can no longer be trusted.
   */
  get generation(): number {
    return this.cache.generation;
  }

  /**
   * POST /api/auth/basic: stores a credential for an actor of the store; 404 unknown actor (or one
   * outside a scoped credential's subtree: person-access.service.ts), 409 username ever used.
   */
  async create(principal: Principal, body: unknown, source: string | undefined): Promise<CreatedCredential> {
    const request = parseCredentialRequest(body);
    const tenantId = principal.tenant.id;
    const actor = await findActorByKey(this.sql, tenantId, request.agentKey);
    if (!actor || !(await mayRead(this.sql, principal, actor.agentKey))) {
      throw notFound(
        'auth.actor_not_found',
        'data.actor is not an actor of this tenant: upsert it first (PUT /api/actors/agents) and send the actor it answers.',
        { actorId: request.agentKey },
      );
    }
    if (actor.objectType !== 'Agent')
      throw badRequest('auth.invalid_credential_request', 'data.actor must be an Agent, not a Group.', { field: 'data.actor' });
    if (!actor.active) {
      throw conflict(
        'auth.actor_deactivated',
        'data.actor was deactivated by an identity system (docs/identity.md): it gets no credential until it is active again.',
        { actorId: actor.agentKey },
      );
    }
    const passwordHash = await hashPassword(request.password);
    const expiresAt = await this.sql.transaction(async (tx) => {
      const expires = await insertCredential(tx, tenantId, {
        username: request.username,
        passwordHash,
        agentKey: actor.agentKey,
        lifetimeSeconds: this.options.lifetimeSeconds,
      });
      if (!expires) {
        throw conflict(
          'auth.username_taken',
          'This username was used before in this tenant; every credential needs a new, random username.',
          {
            username: request.username,
          },
        );
      }
      await recordAudit(tx, {
        action: 'credential.created',
        principal,
        actor: { key: actor.agentKey, agent: actor.agent },
        source,
        details: { username: request.username, expiresAt: expires.toISOString() },
      });
      return expires;
    });
    return { username: request.username, actor: actor.agent, expiresAt: expiresAt.toISOString() };
  }

  /**
   * DELETE /api/auth/basic/{username}: revokes at once in every process; 404 when the username was
   * never used, or (for a scoped credential) is the credential of someone outside its subtree, then
   * revoking nothing.
   */
  async revoke(principal: Principal, username: string, source: string | undefined): Promise<void> {
    const tenantId = principal.tenant.id;
    // Text PostgreSQL cannot store was never a username.
    if (textProblem(username))
      throw notFound('auth.credential_not_found', 'No credential with this username exists in this tenant.', { username: '' });
    await this.sql.transaction(async (tx) => {
      const revoked = await revokeCredentialRow(tx, tenantId, username);
      // Thrown inside the transaction: an outsider's credential stays as it was.
      if (!revoked || !(await mayRead(tx, principal, revoked.agentKey)))
        throw notFound('auth.credential_not_found', 'No credential with this username exists in this tenant.', { username });
      const actor = await findActorByKey(tx, tenantId, revoked.agentKey);
      await recordAudit(tx, {
        action: 'credential.revoked',
        principal,
        ...(actor ? { actor: { key: actor.agentKey, agent: actor.agent } } : {}),
        source,
        details: { username },
      });
    });
    await this.cache.revoke([credentialKey(tenantId, username)]);
  }

  /**
   * GET /api/auth/basic: the learner credentials of the person `query` names (exactly one of
   * `agent` and `actorId`), newest first, never a password or hash; `state: 'active'` only those
   * neither revoked nor expired. The person is found as GET /api/actors/item finds them
   * (`requirePerson`): deactivated people too; nobody, or a person outside a scoped credential's
   * subtree, is 404 `actors.not_found`.
   */
  async list(principal: Principal, query: CredentialListQuery): Promise<CredentialListing[]> {
    const agentKey = agentKeyRequired(query);
    await requirePerson(this.sql, principal, agentKey);
    return findCredentialsOf(this.sql, principal.tenant.id, agentKey, {
      activeOnly: query.state === 'active',
      limit: query.limit ?? CREDENTIAL_LIST_DEFAULT_LIMIT,
    });
  }

  /**
   * A credential for a person who signed in through single sign-on (identity's, docs/identity.md):
   * it anchors the launch sessions started for them, which end with it (revoked when the person is
   * deactivated), and no password opens it (its stored hash is none scrypt makes).
   */
  async createSignOnAnchor(sql: SqlClient, tenantId: string, agentKey: string): Promise<{ username: string; agentKey: string }> {
    for (;;) {
      const username = `sso.${randomBytes(16).toString('hex')}`;
      const expires = await insertCredential(sql, tenantId, {
        username,
        passwordHash: SIGN_ON_ANCHOR_HASH,
        agentKey,
        lifetimeSeconds: this.options.lifetimeSeconds,
      });
      if (expires) return { username, agentKey };
    }
  }

  /**
   * Revokes every credential of the person under `agentKey` inside the caller's transaction `tx`
   * (identity deactivating them, docs/identity.md), their launches ending with them. Answers what
   * to hand `announce` once the transaction committed.
   */
  revokeAllOf(tx: SqlClient, tenantId: string, agentKey: string): Promise<string[]> {
    return this.revokeAllOfPeople(tx, tenantId, [agentKey]);
  }

  /** revokeAllOf for many people at once (a sync import deactivating those its file left out), set-based. */
  async revokeAllOfPeople(tx: SqlClient, tenantId: string, agentKeys: readonly string[]): Promise<string[]> {
    if (agentKeys.length === 0) return [];
    const usernames = await revokeCredentialRowsOf(tx, tenantId, agentKeys);
    return usernames.map((username) => credentialKey(tenantId, username));
  }

  /** Tells every process, this one first, that these credentials (revokeAllOf's answer) no longer authenticate; call after commit. */
  async announce(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.cache.revoke(keys);
  }

  /**
   * Checks a username and password of one tenant: from this process's cache when it verified the
   * same pair lately, else one read and one scrypt. Failures are not cached.
   */
  async verify(tenantId: string, username: string, password: string, client = 'unknown'): Promise<CredentialCheck> {
    const key = credentialKey(tenantId, username);
    if (this.cache.isRevoked(key)) return { valid: false, reason: 'revoked' };
    const digest = hashSecret(password);
    const cached = this.cache.get(key);
    if (cached && timingSafeEqual(cached.passwordDigest, digest)) {
      if (cached.expiresAtMs > Date.now()) return { valid: true, credential: cached };
      this.cache.delete(key);
      return { valid: false, reason: 'expired' };
    }
    // Guessing is refused before the scrypt it would cost, by username and by client address.
    const addressKey = `${tenantId}|${client}`;
    const blockedMs = Math.max(this.guessesByUsername.blockedFor(key), this.guessesByAddress.blockedFor(addressKey));
    if (blockedMs > 0) {
      signInLockouts.inc({ kind: 'credential' });
      return { valid: false, reason: 'throttled', retryAfterSeconds: Math.ceil(blockedMs / 1000) };
    }
    const stored = await findCredential(this.sql, tenantId, username);
    // An unknown username costs the same scrypt as a known one: timing does not tell which usernames exist.
    const matches = await verifyPassword(password, stored?.passwordHash ?? unknownAccountHash());
    if (!stored || !matches) {
      signInFailures.inc({ kind: 'credential' });
      this.guessesByUsername.fail(key);
      this.guessesByAddress.fail(addressKey);
      return { valid: false, reason: 'unknown' };
    }
    this.guessesByUsername.clear(key);
    if (stored.revoked) return { valid: false, reason: 'revoked' };
    if (stored.expired) return { valid: false, reason: 'expired' };
    const credential: VerifiedCredential = { tenantId, username, agentKey: stored.agentKey, expiresAtMs: stored.expiresAt.getTime(), key };
    this.cache.set(key, { ...credential, passwordDigest: digest });
    return { valid: true, credential };
  }

  /** True when this process heard lately that the credential was revoked (launch tokens check it on their cache hits). */
  isRevoked(key: string): boolean {
    return this.cache.isRevoked(key);
  }
}

/** The 401 for a credential check that failed, saying which way. */
export function credentialRefusal(reason: 'unknown' | 'expired' | 'revoked' | 'throttled'): string {
  switch (reason) {
    case 'throttled':
      return 'Too many failed sign-ins with this credential or from this address; wait and retry (Retry-After).';
    case 'expired':
      return 'The credential expired; ask for a new one (POST /api/auth/basic).';
    case 'revoked':
      return 'The credential was revoked.';
    case 'unknown':
      return 'The credential is not valid.';
  }
}
