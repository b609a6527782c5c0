import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/database/migrate.js';
import { BACKENDS } from '../support/backends.js';

describe('migration 0018 moves completion records’ statement_ids into rows of their own', () => {
  for (const backend of BACKENDS) {
    it(`[${backend.name}] in the order they were stored, and deleted with their record`, async () => {
      const { db, dispose } = await backend.open();
      const before = mkdtempSync(join(tmpdir(), 'learnbase-migrations-'));
      try {
        for (const name of readdirSync(MIGRATIONS_DIR).filter((file) => file < '0018'))
          copyFileSync(join(MIGRATIONS_DIR, name), join(before, name));
        await migrate(db, before);
        const tenant = randomUUID();
        const ids = [randomUUID(), randomUUID(), randomUUID()];
        await db.query(`INSERT INTO tenants (id, name) VALUES ($1, 'migrated')`, [tenant]);
        await db.query(
          `INSERT INTO completion_records (tenant_id, agent_key, activity_id, registration, actor, status, first_at, last_at, statement_ids)
           VALUES ($1, 'mbox|mailto:a@example.com', 'http://example.com/a', '', '{"mbox":"mailto:a@example.com"}', 'completed', now(), now(), $2),
                  ($1, 'mbox|mailto:b@example.com', 'http://example.com/a', '', '{"mbox":"mailto:b@example.com"}', 'in-progress', now(), now(), $3)`,
          [tenant, ids, [ids[0]]],
        );

        await migrate(db);
        const { rows } = await db.query<{ agent_key: string; statement_id: string }>(
          `SELECT agent_key, statement_id FROM completion_record_statements WHERE tenant_id = $1 ORDER BY position`,
          [tenant],
        );
        assert.deepEqual(
          rows.map((row) => [row.agent_key, row.statement_id]),
          [...ids.map((id) => ['mbox|mailto:a@example.com', id]), ['mbox|mailto:b@example.com', ids[0]]],
        );
        const { rows: columns } = await db.query(
          `SELECT 1 FROM information_schema.columns WHERE table_name = 'completion_records' AND column_name = 'statement_ids'`,
        );
        assert.equal(columns.length, 0);

        await db.query(`DELETE FROM completion_records WHERE tenant_id = $1 AND agent_key = 'mbox|mailto:a@example.com'`, [tenant]);
        const { rows: left } = await db.query<{ statement_id: string }>(
          `SELECT statement_id FROM completion_record_statements WHERE tenant_id = $1`,
          [tenant],
        );
        assert.deepEqual(
          left.map((row) => row.statement_id),
          [ids[0]],
        );
      } finally {
        rmSync(before, { recursive: true, force: true });
        await dispose();
      }
    });
  }
});
