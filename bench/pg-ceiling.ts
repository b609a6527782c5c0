/**
 * PostgreSQL's own one-row insert ceiling on this machine: pgbench, `--clients` clients, each
 * transaction one INSERT of a ~300-byte document into a table keyed like `xapi_documents`, on a
 * scratch database. The figure a PUT of a new state document is compared with (docs/performance.md,
 * "Writes at the database's pace: shared commits"). Nothing of learnbase runs: it is the database's
 * pace, not ours. How to run it: bench/README.md, "PostgreSQL's insert ceiling".
 *
 *   node --import tsx bench/pg-ceiling.ts [--duration 10] [--clients 10] [--database URL]
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { adminQuery, createStorage, DEFAULT_POSTGRES, integer, log, onCleanup, runBench, UsageError } from './support.js';

const USAGE = `Usage: node --import tsx bench/pg-ceiling.ts [options]

  --duration S     measured seconds (default 10)
  --clients N      concurrent pgbench clients, each its own connection (default 10)
  --database URL   PostgreSQL server to create the scratch database on (default ${DEFAULT_POSTGRES})
  --pgbench PATH   the pgbench to run (default: on PATH, else /usr/lib/postgresql/*/bin/pgbench)`;

/** The table, as migration 0002 makes xapi_documents (no tenant to reference). */
const TABLE = `CREATE TABLE ceiling_documents (
  tenant_id uuid NOT NULL, kind text NOT NULL, activity_id text NOT NULL, agent_key text NOT NULL,
  registration text NOT NULL, document_id text NOT NULL, content bytea NOT NULL, content_type text NOT NULL,
  etag text NOT NULL, updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, kind, activity_id, agent_key, registration, document_id))`;

/** One transaction: one new document, a distinct id per client and random draw, as a PUT would store it (no colon
 * followed by a letter in the text: pgbench would read it as a variable). */
const SCRIPT = `\\set n random(1, 1000000000000)
INSERT INTO ceiling_documents (tenant_id, kind, activity_id, agent_key, registration, document_id, content, content_type, etag, updated_at)
VALUES ('00000000-0000-4000-8000-000000000001', 'state', 'http://example.com/activities/bench', 'mbox|mailto|bench1@example.com', '',
        's' || CAST(:client_id AS text) || '-' || CAST(:n AS text), convert_to(repeat('x', 300), 'UTF8'), 'application/json', '"0123456789abcdef0123456789abcdef01234567"',
        clock_timestamp())
ON CONFLICT DO NOTHING;
`;

function findPgbench(given?: string): string {
  if (given) return given;
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir && existsSync(join(dir, 'pgbench'))) return join(dir, 'pgbench');
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (existsSync(join(root, version, 'bin', 'pgbench'))) return join(root, version, 'bin', 'pgbench');
  throw new UsageError('pgbench was not found: install PostgreSQL’s client tools or pass --pgbench.');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      duration: { type: 'string', default: '10' },
      clients: { type: 'string', default: '10' },
      database: { type: 'string', default: DEFAULT_POSTGRES },
      pgbench: { type: 'string' },
    },
  });
  const duration = integer('--duration', values.duration as string, 1, 600);
  const clients = integer('--clients', values.clients as string, 1, 90);
  const pgbench = findPgbench(values.pgbench);
  const storage = await createStorage({ backend: 'postgres', database: values.database as string });
  const url = storage.statsUrl as string;
  await adminQuery(url, TABLE);
  const dir = mkdtempSync(join(tmpdir(), 'learnbase-pg-ceiling-'));
  onCleanup('remove the pgbench script', async () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'insert.sql'), SCRIPT);

  log(`${pgbench}: ${clients} clients, ${duration} s of one-row insert transactions on ${storage.describe}`);
  const { stdout } = await promisify(execFile)(
    pgbench,
    [
      '--no-vacuum',
      '--protocol=prepared',
      `--client=${clients}`,
      '--jobs=2',
      `--time=${duration}`,
      `--file=${join(dir, 'insert.sql')}`,
      url,
    ],
    { timeout: (duration + 60) * 1000 },
  );
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  const latency = /latency average = ([\d.]+) ms/.exec(stdout);
  if (!tps) throw new Error(`pgbench printed no rate:\n${stdout}`);
  const report = {
    what: 'PostgreSQL one-row insert transactions per second (pgbench, prepared protocol, loopback TCP)',
    clients,
    durationSeconds: duration,
    transactionsPerSecond: Math.round(Number(tps[1])),
    latencyAverageMs: latency ? Number(latency[1]) : undefined,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return 0;
}

await runBench(main, USAGE);
