import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { withDefaults } from '../config.js';
import { defaultKeyFile, formOf, keyIdOf, parseSecretsKey, resolveSecretBox, SecretBox } from './secret-box.js';

const keyOf = (key = randomBytes(32)) => ({ id: keyIdOf(key), key });
const place = { table: 'hr_webhooks', tenantId: '6a00d226-2b38-4415-becf-e4092ff24f32', row: 'hrw_1' };

const config = (settings: Record<string, unknown> = {}) =>
  withDefaults({
    database: { kind: 'pglite' },
    port: 0,
    host: '127.0.0.1',
    baseDomain: 'localhost',
    documentLimitBytes: 1,
    importLimitBytes: 1,
    logLevel: 'silent',
    cacheTtlMs: 0,
    headersTimeoutMs: 1_000,
    requestTimeoutMs: 1_000,
    keepAliveTimeoutMs: 1_000,
    maxConnections: 1,
    shutdownGraceMs: 0,
    ...settings,
  });

describe('SecretBox', () => {
  it('seals under the current key in the stored form, a fresh IV each time, and opens it again', () => {
    const current = keyOf();
    const box = new SecretBox(current);
    const secret = 'whsec_c2VjcmV0IG9mIHRoZSBIUiBzeXN0ZW0=';
    const sealed = box.seal(secret, place);
    assert.match(sealed, new RegExp(`^v1:${current.id}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`));
    assert.ok(!sealed.includes(secret) && !sealed.includes('c2VjcmV0'), 'the secret is not in what is stored');
    assert.notEqual(box.seal(secret, place), sealed, 'a fresh IV');
    assert.equal(box.open(sealed, place), secret);
    assert.deepEqual(formOf(sealed), { sealed: current.id });
  });

  it('does not open a value moved to another row, table or tenant, altered, or under a key it was not given', () => {
    const box = new SecretBox(keyOf());
    const sealed = box.seal('the secret', place);
    for (const elsewhere of [
      { ...place, row: 'hrw_2' },
      { ...place, table: 'sso_connections' },
      { ...place, tenantId: '00000000-0000-4000-8000-000000000000' },
    ]) {
      assert.throws(() => box.open(sealed, elsewhere), { code: 'secrets.unreadable', status: 500 });
    }
    const last = sealed.at(-1) === 'A' ? 'B' : 'A';
    assert.throws(() => box.open(`${sealed.slice(0, -1)}${last}`, place), { code: 'secrets.unreadable' });
    assert.throws(() => new SecretBox(keyOf()).open(sealed, place), { code: 'secrets.unreadable' });
    assert.throws(() => box.open('v1:nonsense', place), { code: 'secrets.unreadable' });
  });

  it('opens under a previous key, seals under the current one, answers a plain value as it is', () => {
    const old = keyOf();
    const sealedBefore = new SecretBox(old).seal('s', place);
    const rotated = new SecretBox(keyOf(), [old]);
    assert.equal(rotated.open(sealedBefore, place), 's');
    assert.ok(rotated.knows(old.id));
    assert.deepEqual(formOf(rotated.seal('s', place)), { sealed: rotated.current!.id });
    assert.equal(rotated.open('plain:whsec_x', place), 'whsec_x');
    assert.deepEqual(formOf('plain:whsec_x'), { plain: true });
    assert.deepEqual(formOf('whsec_x'), { unknown: true });
  });

  it('refuses to seal without a key: 503 secrets.no_key, naming the setting', () => {
    assert.throws(
      () => new SecretBox(undefined).seal('s', place),
      (error: { code: string; status: number; message: string }) => {
        assert.equal(error.code, 'secrets.no_key');
        assert.equal(error.status, 503);
        assert.match(error.message, /LEARNBASE_SECRETS_KEY/);
        return true;
      },
    );
  });
});

describe('parseSecretsKey', () => {
  it('reads 32 bytes from hex, base64 and base64url, white space around ignored', () => {
    const key = randomBytes(32);
    assert.deepEqual(parseSecretsKey(key.toString('hex'), 'K'), key);
    assert.deepEqual(parseSecretsKey(`${key.toString('base64')}\n`, 'K'), key);
    assert.deepEqual(parseSecretsKey(key.toString('base64url'), 'K'), key);
  });

  it('refuses anything else, naming where it came from and never the value', () => {
    for (const text of ['', 'short', randomBytes(16).toString('hex'), randomBytes(33).toString('base64'), 'g'.repeat(64)]) {
      assert.throws(
        () => parseSecretsKey(text, 'LEARNBASE_SECRETS_KEY_FILE (/etc/k)'),
        (error: Error) =>
          error.message.startsWith('LEARNBASE_SECRETS_KEY_FILE (/etc/k) must hold a key of 32 bytes') &&
          (text === '' || !error.message.includes(text)),
      );
    }
  });
});

describe('resolveSecretBox', () => {
  it('takes the configured key first, its previous beside it', () => {
    const key = randomBytes(32);
    const previous = randomBytes(32);
    const { box } = resolveSecretBox(
      config({ secretsKey: key.toString('base64'), secretsKeyPrevious: previous.toString('hex') }),
      { kind: 'postgres', url: 'postgres://x/y' },
      true,
    );
    assert.equal(box.current?.id, keyIdOf(key));
    assert.deepEqual(
      box.previous.map((k) => k.id),
      [keyIdOf(previous)],
    );
  });

  it('on PostgreSQL without a key has none; on an in-memory PGlite a key of its own', () => {
    assert.equal(resolveSecretBox(config(), { kind: 'postgres', url: 'postgres://x/y' }, true).box.current, undefined);
    assert.ok(resolveSecretBox(config(), { kind: 'pglite' }, false).box.current);
  });

  it('on a PGlite folder without a key creates the key file beside the folder (0600), and reads it the next time', () => {
    const parent = mkdtempSync(join(tmpdir(), 'learnbase-keyfile-'));
    try {
      const data = join(parent, 'data');
      const database = { kind: 'pglite' as const, dataDir: data };
      assert.equal(resolveSecretBox(config(), database, false).box.current, undefined, 'not created unless allowed');
      assert.ok(!existsSync(defaultKeyFile(data)));
      const made = resolveSecretBox(config(), database, true);
      assert.equal(made.created, join(parent, 'data.secrets.key'), 'beside the folder, not in it');
      assert.equal(statSync(made.created!).mode & 0o777, 0o600);
      const again = resolveSecretBox(config(), database, true);
      assert.equal(again.created, undefined);
      assert.equal(again.keyFile, made.created);
      assert.equal(again.box.current?.id, made.box.current?.id);
      assert.equal(parseSecretsKey(readFileSync(made.created!, 'utf8'), 'file').length, 32);
      // A configured key file wins over the default one.
      const file = join(parent, 'other.key');
      const other = randomBytes(32);
      writeFileSync(file, other.toString('hex'));
      assert.equal(resolveSecretBox(config({ secretsKeyFile: file }), database, true).box.current?.id, keyIdOf(other));
      writeFileSync(file, 'not a key');
      assert.throws(
        () => resolveSecretBox(config({ secretsKeyFile: file }), database, true),
        /LEARNBASE_SECRETS_KEY_FILE \(.*other\.key\) must hold a key of 32 bytes/,
      );
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
