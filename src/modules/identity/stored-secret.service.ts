import type { AppConfig } from '../../config.js';
import type { SqlClient } from '../../platform/database/sql-client.js';
import { PLAIN_PREFIX, resolveSecretBox, type SecretBox, type SecretPlace } from '../../platform/secret-box.js';
import { replaceStoredSecret, secretsNotSealedUnder, storedSecretForms, type StoredSecretRow } from './stored-secret.repository.js';

/**
 * The secrets identity keeps that the server must present or check as issued, encrypted at rest
 * (docs/operations.md, "Secrets at rest"): HR webhook signing secrets (`hr_webhooks.secret`) and
 * OpenID Connect client secrets (`sso_connections.client_secret`). Every writer seals and every
 * reader opens through this file, which names the row each secret is bound to; the entries (the
 * server's start, the command line) prepare the box here before anything reads them.
 */

const hrWebhookPlace = (tenantId: string, id: string): SecretPlace => ({ table: 'hr_webhooks', tenantId, row: id });
const clientSecretPlace = (tenantId: string, name: string): SecretPlace => ({ table: 'sso_connections', tenantId, row: name });

/** An HR webhook's signing secret as its row stores it. */
export const sealHrWebhookSecret = (box: SecretBox, tenantId: string, id: string, secret: string) =>
  box.seal(secret, hrWebhookPlace(tenantId, id));
/** The signing secret an HR webhook's row holds; 500 secrets.unreadable when it does not open here. */
export const openHrWebhookSecret = (box: SecretBox, tenantId: string, id: string, stored: string) =>
  box.open(stored, hrWebhookPlace(tenantId, id));
/** An OpenID Connect connection's client secret as its row stores it. */
export const sealClientSecret = (box: SecretBox, tenantId: string, name: string, secret: string) =>
  box.seal(secret, clientSecretPlace(tenantId, name));
/** The client secret a connection's row holds. */
export const openClientSecret = (box: SecretBox, tenantId: string, name: string, stored: string) =>
  box.open(stored, clientSecretPlace(tenantId, name));

const placeOf = (secret: StoredSecretRow): SecretPlace => ({ table: secret.table, tenantId: secret.tenantId, row: secret.row });

/** What a stored secret holds: a plain one (marked by migration 0039, or unmarked, written by an older version) as it is. */
const secretIn = (box: SecretBox, secret: StoredSecretRow): string =>
  secret.stored.startsWith(PLAIN_PREFIX) || !secret.stored.startsWith('v1:')
    ? secret.stored.replace(/^plain:/, '')
    : box.open(secret.stored, placeOf(secret));

/** Seals under `box`'s current key every stored secret not sealed under it yet; answers how many it sealed. */
async function sealAllUnder(sql: SqlClient, box: SecretBox, which: (secret: StoredSecretRow) => boolean): Promise<number> {
  const current = box.current!;
  let after: StoredSecretRow | undefined;
  let sealed = 0;
  for (;;) {
    const batch = await secretsNotSealedUnder(sql, current.id, after, 200);
    for (const secret of batch.filter(which)) {
      if (await replaceStoredSecret(sql, secret, box.seal(secretIn(box, secret), placeOf(secret)))) sealed++;
    }
    if (batch.length < 200) return sealed;
    after = batch[batch.length - 1];
  }
}

const SETTINGS = 'LEARNBASE_SECRETS_KEY or LEARNBASE_SECRETS_KEY_FILE';
const HOW = '(docs/operations.md, "Secrets at rest")';
const some = (count: number) =>
  count === 1
    ? '1 stored secret (HR webhook signing secrets, OpenID Connect client secrets) is'
    : `${count} stored secrets (HR webhook signing secrets, OpenID Connect client secrets) are`;

/** What preparing the secrets did, for the banner and the log. */
export interface PreparedSecrets {
  box: SecretBox;
  /** The key file beside the PGlite folder in use, when no key is configured. */
  keyFile?: string;
  /** That key file, when this start created it. */
  created?: string;
  /** Stored secrets this start found plain (left by an earlier version) and sealed. */
  sealed: number;
}

/**
 * The secrets' box of a server or command on `sql` (platform's resolveSecretBox), checked against
 * what is stored: refuses (throws, saying what to set) when a stored secret is sealed under a key
 * it was not given, or when plain ones are left and it has no key to seal them with; seals those
 * left plain by an earlier version. `create`: a PGlite folder with no key may get its key file (a
 * server's start and the commands that store a secret).
 */
export async function prepareStoredSecrets(sql: SqlClient, config: AppConfig, create: boolean): Promise<PreparedSecrets> {
  const forms = await storedSecretForms(sql);
  const plain = (forms.get('plain') ?? 0) + (forms.get('unknown') ?? 0);
  const sealedUnder = [...forms].filter(([form]) => form !== 'plain' && form !== 'unknown');
  const sealedCount = sealedUnder.reduce((sum, [, count]) => sum + count, 0);
  const resolved = resolveSecretBox(config, config.database, create && sealedCount === 0);
  const { box } = resolved;
  const unknown = sealedUnder.filter(([id]) => !box.knows(id));
  if (unknown.length > 0) {
    const count = unknown.reduce((sum, [, n]) => sum + n, 0);
    const ids = unknown.map(([id]) => id).join(', ');
    throw new Error(
      box.current
        ? `${some(count)} encrypted under the key ${ids}, which is neither the key given (${box.current.id}${resolved.keyFile ? `, in ${resolved.keyFile}` : ''}) nor LEARNBASE_SECRETS_KEY_PREVIOUS: set the key they were encrypted with ${HOW}.`
        : `${some(count)} encrypted under the key ${ids}, and this process has no key: set ${SETTINGS} to the key they were encrypted with ${HOW}.`,
    );
  }
  if (plain > 0 && !box.current) {
    throw new Error(
      `${some(plain)} not encrypted yet (an earlier version stored them as issued), and this process has no key to encrypt them with: set ${SETTINGS} to a key of 32 random bytes (openssl rand -base64 32) ${HOW}.`,
    );
  }
  const sealed = plain > 0 ? await sealAllUnder(sql, box, (secret) => !secret.stored.startsWith('v1:')) : 0;
  return {
    box,
    ...(resolved.keyFile ? { keyFile: resolved.keyFile } : {}),
    ...(resolved.created ? { created: resolved.created } : {}),
    sealed,
  };
}

/**
 * `learnbase secrets rotate`: every stored secret sealed again under the current key (those under
 * LEARNBASE_SECRETS_KEY_PREVIOUS, and any left plain); afterwards the previous key may go.
 * Answers how many were sealed again and the current key's id.
 */
export async function rotateStoredSecrets(sql: SqlClient, box: SecretBox): Promise<{ rotated: number; keyId: string }> {
  if (!box.current) throw new Error(`There is no key to encrypt under: set ${SETTINGS} ${HOW}.`);
  return { rotated: await sealAllUnder(sql, box, () => true), keyId: box.current.id };
}
