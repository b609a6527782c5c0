import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS_DIR, migrate, migrationFiles } from '../../src/platform/database/migrate.js';
import { BACKENDS } from '../support/backends.js';

/**
 * Migration 0038 attributes the admins single sign-on made before it to their connection, from the
 * audit log (`admin.created` by the connection's principal), while that connection is there; an
 * admin without such an entry, or whose connection is gone, is made by none (single sign-on then
 * refuses them: docs/identity.md, "Admins through single sign-on").
 */
for (const backend of BACKENDS) {
  describe(`Migration 0038: admins made by single sign-on before it [${backend.name}]`, () => {
    it('attributes each to the connection that made it, while that connection is there', async () => {
      const before = mkdtempSync(join(tmpdir(), 'learnbase-0037-'));
      const { db, dispose } = await backend.open();
      try {
        for (const name of migrationFiles().filter((file) => file < '0038')) copyFileSync(join(MIGRATIONS_DIR, name), join(before, name));
        await migrate(db, before);
        const tenant = randomUUID();
        await db.query("INSERT INTO tenants (id, name) VALUES ($1, 'acme')", [tenant]);
        await db.query(
          `INSERT INTO sso_connections (tenant_id, name, issuer, client_id, scopes, claims, admins)
           VALUES ($1, 'corp', 'https://idp.example.com', 'learnbase', 'openid', '{"email":"email"}', '{"claim":"groups","value":"a"}')`,
          [tenant],
        );
        const admins = { made: randomUUID(), goneConnection: randomUUID(), password: randomUUID(), unrecorded: randomUUID() };
        for (const [key, id] of Object.entries(admins)) {
          await db.query('INSERT INTO admins (tenant_id, id, email, password_hash) VALUES ($1, $2, $3, $4)', [
            tenant,
            id,
            `${key.toLowerCase()}@example.com`,
            key === 'password' ? 'scrypt$…' : null,
          ]);
        }
        const made = (adminId: string, connection: string) =>
          db.query(
            `INSERT INTO audit_log (tenant_id, id, action, source, principal_kind, principal_id, details)
             VALUES ($1, $2, 'admin.created', $3, 'sso', $4, $5::jsonb)`,
            [tenant, randomUUID(), `sso:${connection}`, connection, JSON.stringify({ adminId, email: 'x@example.com', scope: null })],
          );
        await made(admins.made, 'corp');
        await made(admins.goneConnection, 'deleted-since');

        assert.equal((await migrate(db))[0], '0038_sso_admins.sql', 'the migrations after 0037 apply, 0038 first');
        const { rows } = await db.query<{ id: string; sso_connection: string | null }>(
          'SELECT id, sso_connection FROM admins WHERE tenant_id = $1',
          [tenant],
        );
        const byId = new Map(rows.map((row) => [row.id, row.sso_connection]));
        assert.deepEqual(Object.fromEntries(Object.entries(admins).map(([key, id]) => [key, byId.get(id)])), {
          made: 'corp',
          goneConnection: null,
          password: null,
          unrecorded: null,
        });
        const { rows: connections } = await db.query<{ email_trust: string }>('SELECT email_trust FROM sso_connections');
        assert.deepEqual(connections, [{ email_trust: 'unless-unverified' }], 'existing connections trust e-mails as before');
      } finally {
        await dispose();
        rmSync(before, { recursive: true, force: true });
      }
    });
  });
}
