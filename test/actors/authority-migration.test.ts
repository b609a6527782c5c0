import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/database/migrate.js';
import { BACKENDS } from '../support/backends.js';

describe('migration 0023 tells the statement authorities recorded before it from the people', () => {
  for (const backend of BACKENDS) {
    it(`[${backend.name}] an account named by a credential of the tenant, and nothing else, is an authority`, async () => {
      const { db, dispose } = await backend.open();
      const before = mkdtempSync(join(tmpdir(), 'learnbase-migrations-'));
      try {
        for (const name of readdirSync(MIGRATIONS_DIR).filter((file) => file < '0023'))
          copyFileSync(join(MIGRATIONS_DIR, name), join(before, name));
        await migrate(db, before);
        const tenant = randomUUID();
        const other = randomUUID();
        const key = `lb_${randomBytes(8).toString('hex')}`;
        const admin = randomUUID();
        await db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'migrated'), ($2, 'other')`, [tenant, other]);
        await db.query(`INSERT INTO api_keys (tenant_id, key, secret_hash) VALUES ($1, $2, '\\x00')`, [tenant, key]);
        await db.query(`INSERT INTO admins (tenant_id, id, email, password_hash) VALUES ($1, $2, 'admin@example.com', 'x')`, [
          tenant,
          admin,
        ]);
        await db.query(
          `INSERT INTO actor_credentials (tenant_id, username, password_hash, agent_key, expires_at) VALUES ($1, 'learner-1', 'x', 'mbox|mailto:a@example.com', now())`,
          [tenant],
        );
        const account = (name: string) => JSON.stringify({ account: { homePage: 'http://127.0.0.1:8080', name } });
        const rows: Array<[string, string, string, string[]]> = [
          [tenant, `account|http://127.0.0.1:8080|${key}`, account(key), []],
          [tenant, `account|http://127.0.0.1:8080|${admin}`, account(admin), []],
          [tenant, 'account|http://127.0.0.1:8080|learner-1', account('learner-1'), []],
          // Given a name by a statement: a person, whatever its account says.
          [tenant, `account|http://127.0.0.1:8080|${key}-named`, account(key), ['Named']],
          [tenant, 'mbox|mailto:a@example.com', JSON.stringify({ mbox: 'mailto:a@example.com' }), []],
          // The same key name in another tenant is no credential there.
          [other, `account|http://127.0.0.1:8080|${key}`, account(key), []],
        ];
        for (const [tenantId, agentKey, ifi, names] of rows) {
          await db.query(`INSERT INTO actors (tenant_id, agent_key, ifi, names, updated) VALUES ($1, $2, $3::jsonb, $4, now())`, [
            tenantId,
            agentKey,
            ifi,
            names,
          ]);
        }

        await migrate(db);
        const { rows: marked } = await db.query<{ tenant_id: string; agent_key: string }>(
          `SELECT tenant_id, agent_key FROM actors WHERE authority_only ORDER BY tenant_id = $1 DESC, agent_key`,
          [tenant],
        );
        assert.deepEqual(
          marked.map((row) => row.agent_key).sort(),
          [
            `account|http://127.0.0.1:8080|${key}`,
            `account|http://127.0.0.1:8080|${admin}`,
            'account|http://127.0.0.1:8080|learner-1',
          ].sort(),
        );
        assert.ok(marked.every((row) => row.tenant_id === tenant));
      } finally {
        rmSync(before, { recursive: true, force: true });
        await dispose();
      }
    });
  }
});
