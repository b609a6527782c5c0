import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DatabaseConfig } from './database/open-database.js';
import { AppError } from './http/app-error.js';

/**
 * Secrets the server must present or check as they were issued (an HR webhook's signing secret,
 * an OpenID Connect client secret), encrypted at rest with AES-256-GCM under a key held outside the
 * database (docs/operations.md, "Secrets at rest"): a copy of the database or of its backups is not
 * a copy of the secrets. Knows nothing of which columns hold them: their owner seals and opens
 * through one place of its own, naming the row each belongs to.
 *
 * The stored form is `v1:<key id>:<iv>:<ciphertext and tag>` (base64url): the version of the form,
 * the key it was sealed under (the first 8 bytes of a SHA-256 of the key, in hex: which key, not the
 * key), a fresh 96-bit IV, and GCM's ciphertext with its 128-bit tag. The additional authenticated
 * data binds it to its table, tenant and row: a value copied to another row, or another tenant's,
 * does not open there. A value stored before encryption came in is kept `plain:<secret>` (migration
 * 0039) until the first start with a key seals it.
 */

export interface SecretKey {
  id: string;
  key: Buffer;
}

/** Where a secret lives: what it is bound to. */
export interface SecretPlace {
  table: string;
  tenantId: string;
  row: string;
}

/** How a stored secret reads: sealed under a key, or plain (left by a version before encryption). */
export type StoredForm = { sealed: string } | { plain: true } | { unknown: true };

export const PLAIN_PREFIX = 'plain:';
const SEALED = /^v1:([0-9a-f]{16}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22,})$/;

/** The id a key is known by in the stored form and in messages. */
export const keyIdOf = (key: Buffer): string =>
  createHash('sha256').update('learnbase secrets key id\0').update(key).digest('hex').slice(0, 16);

export const formOf = (stored: string): StoredForm => {
  const sealed = SEALED.exec(stored);
  if (sealed) return { sealed: sealed[1]! };
  return stored.startsWith(PLAIN_PREFIX) ? { plain: true } : { unknown: true };
};

const aad = (place: SecretPlace) => Buffer.from(`learnbase secret v1\0${place.table}\0${place.tenantId}\0${place.row}`);

export const SecretErrors = {
  /** Storing a secret with no key (PostgreSQL without LEARNBASE_SECRETS_KEY): the operator's configuration, not the caller's input. */
  noKey: () =>
    new AppError(
      'secrets.no_key',
      503,
      'This server has no key to encrypt stored secrets with, so it cannot keep this one: its operator sets LEARNBASE_SECRETS_KEY ' +
        'or LEARNBASE_SECRETS_KEY_FILE (docs/operations.md, "Secrets at rest").',
    ),
  /** A stored secret that does not open here: sealed for another row, altered, or under a key this server lacks. */
  unreadable: () =>
    new AppError(
      'secrets.unreadable',
      500,
      'A stored secret could not be decrypted: it was not encrypted for this row, was altered, or is under a key this server ' +
        'was not given (docs/operations.md, "Secrets at rest").',
    ),
};

export class SecretBox {
  private readonly keys: ReadonlyMap<string, Buffer>;

  constructor(
    /** The key new secrets are sealed under; undefined: none can be stored. */
    readonly current: SecretKey | undefined,
    /** Keys that still open what they sealed (LEARNBASE_SECRETS_KEY_PREVIOUS), until `secrets rotate`. */
    readonly previous: readonly SecretKey[] = [],
  ) {
    this.keys = new Map([...previous, ...(current ? [current] : [])].map(({ id, key }) => [id, key]));
  }

  /** Whether a value sealed under the key `id` opens here. */
  knows(id: string): boolean {
    return this.keys.has(id);
  }

  /** `secret` sealed under the current key for `place`; 503 secrets.no_key without one. */
  seal(secret: string, place: SecretPlace): string {
    if (!this.current) throw SecretErrors.noKey();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(aad(place));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1:${this.current.id}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
  }

  /** The secret `stored` holds for `place` (a plain one as it is); 500 secrets.unreadable when it does not open. */
  open(stored: string, place: SecretPlace): string {
    if (stored.startsWith(PLAIN_PREFIX)) return stored.slice(PLAIN_PREFIX.length);
    const parts = SEALED.exec(stored);
    const key = parts && this.keys.get(parts[1]!);
    if (!parts || !key) throw SecretErrors.unreadable();
    const sealed = Buffer.from(parts[3]!, 'base64url');
    if (sealed.length < 16) throw SecretErrors.unreadable();
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[2]!, 'base64url'));
      decipher.setAAD(aad(place));
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      throw SecretErrors.unreadable();
    }
  }
}

/** 32 bytes from the key's text: 64 hex digits, or base64 / base64url. Throws naming `source` otherwise. */
export function parseSecretsKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)
      ? Buffer.from(trimmed.replaceAll('+', '-').replaceAll('/', '_').replace(/=$/, ''), 'base64url')
      : undefined;
  if (key?.length !== 32) {
    throw new Error(`${source} must hold a key of 32 bytes, as 64 hex digits or in base64 (openssl rand -base64 32).`);
  }
  return key;
}

function keyFrom(text: string | undefined, file: string | undefined, name: string): SecretKey | undefined {
  if (text !== undefined) return keyOf(parseSecretsKey(text, name));
  return file === undefined ? undefined : keyInFile(file, `${name}_FILE (${file})`);
}

function keyInFile(file: string, what: string): SecretKey {
  let read: string;
  try {
    read = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${what} cannot be read: ${(error as Error).message}`);
  }
  return keyOf(parseSecretsKey(read, what));
}

const keyOf = (key: Buffer): SecretKey => ({ id: keyIdOf(key), key });

/** The settings that name the keys (config.ts reads them): each key itself, or a file holding it. */
export interface SecretsKeySettings {
  secretsKey?: string;
  secretsKeyFile?: string;
  secretsKeyPrevious?: string;
  secretsKeyPreviousFile?: string;
}

/** The keys the configuration names (LEARNBASE_SECRETS_KEY[_FILE], LEARNBASE_SECRETS_KEY_PREVIOUS[_FILE]); no default key file. */
export function configuredSecretBox(config: SecretsKeySettings): SecretBox {
  const current = keyFrom(config.secretsKey, config.secretsKeyFile, 'LEARNBASE_SECRETS_KEY');
  const previous = keyFrom(config.secretsKeyPrevious, config.secretsKeyPreviousFile, 'LEARNBASE_SECRETS_KEY_PREVIOUS');
  return new SecretBox(current, previous && previous.id !== current?.id ? [previous] : []);
}

/** Where a PGlite folder's key is kept when none is configured: beside the folder, never in it (`./data` → `./data.secrets.key`). */
export const defaultKeyFile = (dataDir: string): string => `${resolve(dataDir)}.secrets.key`;

/**
 * The secrets' box of a process on `database`: the configured keys; else on a PGlite folder the key
 * file beside it (created, mode 0600, when `create` allows: no secret is sealed under another key),
 * on an in-memory PGlite a key of this process only; else (PostgreSQL) none. Answers what it did for
 * the banner (`created`: the file it made).
 */
export function resolveSecretBox(
  config: SecretsKeySettings,
  database: DatabaseConfig,
  create: boolean,
): { box: SecretBox; keyFile?: string; created?: string } {
  const configured = configuredSecretBox(config);
  if (configured.current || database.kind !== 'pglite') return { box: configured };
  if (database.dataDir === undefined) {
    return { box: new SecretBox(keyOf(randomBytes(32)), configured.previous) };
  }
  const file = defaultKeyFile(database.dataDir);
  if (existsSync(file)) {
    return { box: new SecretBox(keyInFile(file, `The key file beside the data folder (${file})`), configured.previous), keyFile: file };
  }
  if (!create) return { box: configured };
  const key = randomBytes(32);
  // `wx`: a file another process wrote meanwhile is not replaced (O_EXCL); 0600: nobody but this user reads it.
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  return { box: new SecretBox(keyOf(key), configured.previous), keyFile: file, created: file };
}

/** What a process says when it created the key file beside a PGlite folder (the banner, a command's standard error). */
export const keyFileCreated = (file: string) =>
  `Created ${file}, the key the stored secrets (HR webhook signing secrets, OpenID Connect client secrets) are encrypted under: ` +
  'keep it beside the data folder, and back it up apart from the database (docs/operations.md, "Secrets at rest").';
