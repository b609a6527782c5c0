import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { migrate, MIGRATIONS_DIR, migrationFiles } from '../../src/platform/database/migrate.js';
import { openDatabase } from '../../src/platform/database/open-database.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { keyIdOf } from '../../src/platform/secret-box.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { tenantHex } from '../../src/modules/tenancy/tenant-credential.js';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { runCli, runCliProcess, startCli, waitForOutput } from '../support/cli.js';
import { copyMigratedDataFolder } from '../support/templates.js';

/**
 * Secrets at rest from the command line (docs/operations.md, "Secrets at rest"), as an operator
 * meets them: the key file a PGlite folder gets beside it, a server refusing to start without the
 * key its secrets are under or with another, `learnbase secrets rotate` (handed to the running
 * server), the plain secrets an earlier version left sealed at the first start, and a backup
 * restored elsewhere that verifies with the original key, never without it.
 */

const folders: string[] = [];
const newFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), 'learnbase-secrets-'));
  folders.push(folder);
  return folder;
};
after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

const newKey = () => randomBytes(32).toString('base64');
const idOf = (key: string) => keyIdOf(Buffer.from(key, 'base64'));
/** The environment of a process with `key` (and `previous`), or none: '' unsets the tests' key. */
const keys = (key: string, previous?: string) => ({
  LEARNBASE_SECRETS_KEY: key,
  ...(previous ? { LEARNBASE_SECRETS_KEY_PREVIOUS: previous } : {}),
});
const NO_KEY = { LEARNBASE_SECRETS_KEY: '' };

interface Server {
  base: string;
  banner: string;
  stop(): Promise<void>;
}

async function serve(database: string[], env: NodeJS.ProcessEnv): Promise<Server> {
  const child: ChildProcess = startCli(['serve', '--port', '0', ...database], env);
  const banner = await waitForOutput(child, /listening on (http:\/\/\S+)\)?[^\n]*\n(?:[\s\S]*\n\n)?/, 60_000);
  return {
    base: /listening on (http:\/\/[^\s]+)/.exec(banner)![1]!,
    banner,
    stop: async () => {
      if (child.exitCode !== null) return;
      const closed = new Promise((resolve) => child.on('close', resolve));
      child.kill('SIGTERM');
      await closed;
    },
  };
}

/** Posts a joiner to the endpoint `id` as the HR system does: signed with `secret`. Answers the status. */
async function postJoiner(base: string, id: string, secret: string): Promise<number> {
  const messageId = `msg_${randomUUID()}`;
  const body = JSON.stringify({ type: 'person.joined', data: { name: 'Ada Lovelace', attributes: { email: `${messageId}@example.com` } } });
  const at = new Date();
  const res = await fetch(`${base}/hooks/hr/${id}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': messageId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(messageId, at, body),
    },
    body,
  });
  return res.status;
}

async function withDatabase<T>(database: string[], work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(
    database[0] === '--data' ? { kind: 'pglite', dataDir: database[1] } : { kind: 'postgres', url: database[1]! },
  );
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

const storedSecrets = (database: string[]) =>
  withDatabase(database, async (db) => {
    const { rows } = await db.query<{ secret: string }>(
      'SELECT secret FROM hr_webhooks UNION ALL SELECT client_secret FROM sso_connections WHERE client_secret IS NOT NULL',
    );
    return rows.map((row) => row.secret);
  });

/** `hr-webhook create --tenant acme` on `database`: its id and secret. */
async function createHook(database: string[], env: NodeJS.ProcessEnv): Promise<{ id: string; secret: string }> {
  const created = await runCli(['hr-webhook', 'create', '--tenant', 'acme', ...database, '--json'], env);
  assert.equal(created.code, 0, created.stderr);
  return JSON.parse(created.stdout) as { id: string; secret: string };
}

/** A fresh PGlite folder `data` (inside a folder of its own, where its key file goes) with the tenant acme. */
async function pgliteFolder(): Promise<{ data: string; database: string[]; keyFile: string }> {
  const data = join(newFolder(), 'data');
  await copyMigratedDataFolder(data);
  const database = ['--data', data];
  assert.equal((await runCli(['tenant', 'create', 'acme', ...database])).code, 0);
  return { data, database, keyFile: `${data}.secrets.key` };
}

describe('secrets at rest on a PGlite folder', () => {
  it('creates the key beside the folder (0600) when none is set, says so, and refuses to start without it or with another', async () => {
    const { data, database, keyFile } = await pgliteFolder();
    const first = await serve(database, NO_KEY);
    let hook: { id: string; secret: string };
    try {
      assert.ok(existsSync(keyFile), 'the key file is beside the folder');
      assert.ok(!readdirSync(data).some((name) => name.includes('key')), 'and not in it: a copy of the folder is not a copy of the key');
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      assert.match(first.banner, new RegExp(`Created ${keyFile}, the key the stored secrets .* are encrypted under`));
      hook = await createHook(database, NO_KEY);
      assert.equal(await postJoiner(first.base, hook.id, hook.secret), 202);
    } finally {
      await first.stop();
    }
    const [stored] = await storedSecrets(database);
    const keyId = stored!.split(':')[1]!;
    assert.match(stored!, /^v1:[0-9a-f]{16}:/);

    const again = await serve(database, NO_KEY);
    try {
      assert.doesNotMatch(again.banner, /Created/, 'the key file is read, not made again');
      assert.equal(await postJoiner(again.base, hook.id, hook.secret), 202);
    } finally {
      await again.stop();
    }

    const aside = join(newFolder(), 'kept.key');
    renameSync(keyFile, aside);
    const withoutKey = await runCliProcess(['serve', '--port', '0', ...database], NO_KEY);
    assert.equal(withoutKey.code, 1, withoutKey.stdout);
    assert.match(
      withoutKey.stderr,
      new RegExp(
        `^learnbase: 1 stored secret \\(HR webhook signing secrets, OpenID Connect client secrets\\) is encrypted under the key ${keyId}, and this process has no key: set LEARNBASE_SECRETS_KEY or LEARNBASE_SECRETS_KEY_FILE to the key they were encrypted with`,
      ),
    );
    assert.ok(!existsSync(keyFile), 'no new key is made while secrets are sealed under another');
    const command = await runCli(['hr-webhook', 'create', '--tenant', 'acme', ...database], NO_KEY);
    assert.equal(command.code, 1, 'a command storing a secret refuses as the server does');
    assert.match(command.stderr, /has no key: set LEARNBASE_SECRETS_KEY/);

    const other = newKey();
    const wrongKey = await runCliProcess(['serve', '--port', '0', ...database], keys(other));
    assert.equal(wrongKey.code, 1);
    assert.match(
      wrongKey.stderr,
      new RegExp(
        `encrypted under the key ${keyId}, which is neither the key given \\(${idOf(other)}\\) nor LEARNBASE_SECRETS_KEY_PREVIOUS`,
      ),
    );

    const byFile = await serve(database, { ...NO_KEY, LEARNBASE_SECRETS_KEY_FILE: aside });
    try {
      assert.equal(await postJoiner(byFile.base, hook.id, hook.secret), 202, 'the key named by LEARNBASE_SECRETS_KEY_FILE');
    } finally {
      await byFile.stop();
    }
  });

  it('rotates: the server started with both keys re-encrypts every secret through the hand-off, then the old key can go', async () => {
    const { database } = await pgliteFolder();
    const oldKey = newKey();
    const newer = newKey();
    const hooks = [await createHook(database, keys(oldKey)), await createHook(database, keys(oldKey))];
    assert.ok((await storedSecrets(database)).every((stored) => stored.startsWith(`v1:${idOf(oldKey)}:`)));

    const both = await serve(database, keys(newer, oldKey));
    try {
      assert.equal(await postJoiner(both.base, hooks[0]!.id, hooks[0]!.secret), 202, 'the previous key still opens');
      const rotated = await runCli(['secrets', 'rotate', ...database, '--json'], NO_KEY);
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.deepEqual(JSON.parse(rotated.stdout), { rotated: 2, keyId: idOf(newer) });
      const nothingLeft = await runCli(['secrets', 'rotate', ...database]);
      assert.equal(
        nothingLeft.stdout,
        `Encrypted 0 stored secrets again under the key ${idOf(newer)}: every stored secret is under it now, and LEARNBASE_SECRETS_KEY_PREVIOUS can be removed.\n`,
      );
      assert.equal(await postJoiner(both.base, hooks[1]!.id, hooks[1]!.secret), 202);
    } finally {
      await both.stop();
    }
    assert.ok((await storedSecrets(database)).every((stored) => stored.startsWith(`v1:${idOf(newer)}:`)));

    const newOnly = await serve(database, keys(newer));
    try {
      for (const hook of hooks) assert.equal(await postJoiner(newOnly.base, hook.id, hook.secret), 202, 'verifies with the old key gone');
    } finally {
      await newOnly.stop();
    }
    const oldOnly = await runCliProcess(['serve', '--port', '0', ...database], keys(oldKey));
    assert.equal(oldOnly.code, 1, 'the retired key opens nothing now');
  });

  it('carries the encrypted secrets in a backup: restored elsewhere it verifies with the original key, and not without it', async () => {
    const { database } = await pgliteFolder();
    const key = newKey();
    const hook = await createHook(database, keys(key));
    const file = join(newFolder(), 'learnbase.tar.gz');
    const backup = await runCli(['backup', ...database, file]);
    assert.equal(backup.code, 0, backup.stderr);
    const target = join(newFolder(), 'restored');
    const restored = await runCli(['restore', '--data', target, file]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.deepEqual(await storedSecrets(['--data', target]), await storedSecrets(database), 'the sealed values, as they were');

    const withoutKey = await runCliProcess(['serve', '--port', '0', '--data', target], NO_KEY);
    assert.equal(withoutKey.code, 1, 'the backup holds no key');
    assert.match(withoutKey.stderr, /is encrypted under the key .*, and this process has no key/);
    assert.ok(!existsSync(`${target}.secrets.key`));

    const server = await serve(['--data', target], keys(key));
    try {
      assert.equal(await postJoiner(server.base, hook.id, hook.secret), 202);
    } finally {
      await server.stop();
    }
  });
});

/**
 * A database as the version before encryption left it: migrated without 0039, with an HR webhook's
 * secret and an OpenID Connect client secret stored as issued.
 */
async function earlierVersionDatabase(database: string[]): Promise<{ id: string; secret: string }> {
  const earlier = join(newFolder(), 'migrations');
  mkdirSync(earlier);
  for (const name of migrationFiles().filter((name) => name < '0039')) copyFileSync(join(MIGRATIONS_DIR, name), join(earlier, name));
  return withDatabase(database, async (db) => {
    await migrate(db, earlier);
    const tenant = await new TenancyService(db, 0).create('acme');
    const id = `hrw_${tenantHex(tenant.id)}_${randomBytes(8).toString('hex')}`;
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    await db.query('INSERT INTO hr_webhooks (tenant_id, id, secret) VALUES ($1, $2, $3)', [tenant.id, id, secret]);
    await db.query(
      `INSERT INTO sso_connections (tenant_id, name, protocol, issuer, client_id, client_secret, scopes, claims)
       VALUES ($1, 'corp', 'oidc', 'https://login.example.com', 'learnbase', 'the client secret as issued', 'openid', '{"email": "email"}')`,
      [tenant.id],
    );
    return { id, secret };
  });
}

const backends = POSTGRES_AVAILABLE ? (['pglite', 'postgres'] as const) : (['pglite'] as const);
for (const backend of backends) {
  describe(`secrets an earlier version stored as issued [${backend}]`, () => {
    it('are encrypted at the first start with a key (refused before one is set), and the webhook verifies with its secret as issued', async () => {
      const created = backend === 'postgres' ? await createPostgresDatabase() : undefined;
      try {
        const database = created ? ['--database', created.url] : ['--data', join(newFolder(), 'data')];
        const hook = await earlierVersionDatabase(database);
        assert.deepEqual((await storedSecrets(database)).sort(), [hook.secret, 'the client secret as issued'].sort());

        if (backend === 'postgres') {
          const refused = await runCliProcess(['serve', '--port', '0', ...database], NO_KEY);
          assert.equal(refused.code, 1, refused.stdout);
          assert.match(
            refused.stderr,
            /^learnbase: 2 stored secrets \(HR webhook signing secrets, OpenID Connect client secrets\) are not encrypted yet \(an earlier version stored them as issued\), and this process has no key to encrypt them with: set LEARNBASE_SECRETS_KEY or LEARNBASE_SECRETS_KEY_FILE/,
          );
          assert.ok(
            (await storedSecrets(database)).every((stored) => stored.startsWith('plain:')),
            'migrated and marked, not lost',
          );
        }

        const key = newKey();
        const server = await serve(database, keys(key));
        try {
          assert.equal(await postJoiner(server.base, hook.id, hook.secret), 202);
          assert.equal(await postJoiner(server.base, hook.id, `whsec_${randomBytes(32).toString('base64')}`), 401);
        } finally {
          await server.stop();
        }
        // Read once the server let go of the folder.
        const stored = await storedSecrets(database);
        assert.equal(stored.length, 2);
        for (const value of stored) {
          assert.match(value, new RegExp(`^v1:${idOf(key)}:`));
          assert.ok(!value.includes(hook.secret) && !value.includes('as issued'));
        }
      } finally {
        await created?.drop();
      }
    });
  });
}
