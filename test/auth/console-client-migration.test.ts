import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS_DIR, migrate, migrationFiles } from '../../src/platform/database/migrate.js';
import { BACKENDS } from '../support/backends.js';

/**
 * Migration 0041 gives every tenant that exists the console's OAuth client (docs/console.md,
 * "Signing in"): one each, whose id names its tenant, redirecting to the console's callback path,
 * with a secret nobody knows; the integrations' own clients are left as they were.
 */
for (const backend of BACKENDS) {
  describe(`Migration 0041: the console client of the tenants before it [${backend.name}]`, () => {
    it('makes one console client per tenant and leaves the others alone', async () => {
      const before = mkdtempSync(join(tmpdir(), 'learnbase-0040-'));
      const { db, dispose } = await backend.open();
      try {
        for (const name of migrationFiles().filter((file) => file < '0041')) copyFileSync(join(MIGRATIONS_DIR, name), join(before, name));
        await migrate(db, before);
        const tenants = [randomUUID(), randomUUID()];
        for (const [index, id] of tenants.entries()) await db.query('INSERT INTO tenants (id, name) VALUES ($1, $2)', [id, `t${index}`]);
        await db.query(
          `INSERT INTO oauth_clients (tenant_id, client_id, secret_hash, name, redirect_uris)
           VALUES ($1, 'lbc_integration', '\\x00', 'An integration', ARRAY['https://app.example.com/cb'])`,
          [tenants[0]],
        );

        assert.equal((await migrate(db))[0], '0041_console_sign_in.sql', 'the migrations after 0040 apply, 0041 first');
        const { rows } = await db.query<{
          tenant_id: string;
          client_id: string;
          redirect_uris: string[];
          console: boolean;
          secret: number;
        }>('SELECT tenant_id, client_id, redirect_uris, console, length(secret_hash) AS secret FROM oauth_clients ORDER BY client_id');
        const consoles = rows.filter((row) => row.console);
        assert.deepEqual(consoles.map((row) => row.tenant_id).sort(), [...tenants].sort(), 'one console client per tenant');
        for (const row of consoles) {
          assert.match(row.client_id, new RegExp(`^lbc_${row.tenant_id.replaceAll('-', '')}_[0-9a-f]{16}$`));
          assert.deepEqual(row.redirect_uris, ['/console/auth/callback']);
          assert.equal(Number(row.secret), 32, 'a SHA-256 of a value nobody kept');
        }
        assert.deepEqual(
          rows.filter((row) => !row.console).map((row) => row.client_id),
          ['lbc_integration'],
        );
        await assert.rejects(
          db.query(
            `INSERT INTO oauth_clients (tenant_id, client_id, secret_hash, name, redirect_uris, console)
             VALUES ($1, 'lbc_second', '\\x00', 'x', ARRAY['/console/auth/callback'], true)`,
            [tenants[0]],
          ),
          'a second console client of a tenant is refused',
        );
      } finally {
        await dispose();
        rmSync(before, { recursive: true, force: true });
      }
    });
  });
}
