import { lockForTransaction } from '../../platform/database/advisory-lock.js';
import type { SqlClient } from '../../platform/database/sql-client.js';

/** One organisation entry as stored (interface 2.4); `parentId` absent for a root or flat data. */
export interface OrgEntry {
  id: string;
  parentId?: string;
  attributes: Record<string, string>;
}

/** One job of the job architecture (interface 2.5); competency fields capitalised as the interface has them. */
export interface Job {
  id: string;
  name: string;
  competencies: { Name: string; Description: string }[];
  attributes: Record<string, string>;
}

interface OrgEntryRow {
  id: string;
  parent_id: string | null;
  attributes: Record<string, string>;
}

interface JobRow {
  id: string;
  name: string;
  competencies: { Name: string; Description: string }[];
  attributes: Record<string, string>;
}

const toOrgEntry = (row: OrgEntryRow): OrgEntry =>
  row.parent_id === null ? { id: row.id, attributes: row.attributes } : { id: row.id, parentId: row.parent_id, attributes: row.attributes };

const toJob = (row: JobRow): Job => ({ id: row.id, name: row.name, competencies: row.competencies, attributes: row.attributes });

/**
 * Replaces the tenant's whole organisation structure: one DELETE and one set-based INSERT,
 * whatever the count (the bench imports 10,000 positions). Run it inside a transaction: the
 * parent foreign key is deferred to commit, so entries may name parents that come later.
 */
export async function replaceOrganisationEntries(sql: SqlClient, tenantId: string, entries: readonly OrgEntry[]): Promise<void> {
  await newVersion(sql, tenantId);
  await sql.query(`DELETE FROM organisation_entries WHERE tenant_id = $1`, [tenantId]);
  if (entries.length === 0) return;
  const rows = entries.map((entry, position) => ({
    id: entry.id,
    parent_id: entry.parentId ?? null,
    attributes: entry.attributes,
    position,
  }));
  await sql.query(
    `INSERT INTO organisation_entries (tenant_id, id, parent_id, attributes, position)
     SELECT $1, r.id, r.parent_id, r.attributes, r.position
       FROM jsonb_to_recordset($2::jsonb) AS r(id text, parent_id text, attributes jsonb, position integer)`,
    [tenantId, JSON.stringify(rows)],
  );
}

/** Replaces the tenant's whole job architecture, set-based as above. */
export async function replaceJobs(sql: SqlClient, tenantId: string, jobs: readonly Job[]): Promise<void> {
  await newVersion(sql, tenantId);
  await sql.query(`DELETE FROM jobs WHERE tenant_id = $1`, [tenantId]);
  if (jobs.length === 0) return;
  const rows = jobs.map((job, position) => ({
    id: job.id,
    name: job.name,
    competencies: job.competencies,
    attributes: job.attributes,
    position,
  }));
  await sql.query(
    `INSERT INTO jobs (tenant_id, id, name, competencies, attributes, position)
     SELECT $1, r.id, r.name, r.competencies, r.attributes, r.position
       FROM jsonb_to_recordset($2::jsonb) AS r(id text, name text, competencies jsonb, attributes jsonb, position integer)`,
    [tenantId, JSON.stringify(rows)],
  );
}

/**
 * Takes the tenant's row lock for an organisation or jobs replacement. Two replacements running
 * at once would otherwise both delete (seeing nothing of each other's uncommitted rows) and both
 * insert, and the second commit would fail on the primary key instead of simply winning. The
 * lock is a transaction-scoped advisory lock keyed on the tenant and the kind, so two tenants'
 * imports, and an organisation and a jobs import of one tenant, never wait for each other.
 */
/**
 * Sets the tenant's organisation version anew (migration 0046): every copy of its structure and
 * jobs a process keeps is out of date from this transaction's commit.
 */
async function newVersion(sql: SqlClient, tenantId: string): Promise<void> {
  await sql.query(
    `INSERT INTO organisation_versions (tenant_id, version) VALUES ($1, gen_random_uuid())
     ON CONFLICT (tenant_id) DO UPDATE SET version = excluded.version`,
    [tenantId],
  );
}

/** The tenant's organisation version ('' for a tenant whose structure and jobs were never replaced). */
export async function findVersion(sql: SqlClient, tenantId: string): Promise<string> {
  const { rows } = await sql.query<{ version: string }>('SELECT version FROM organisation_versions WHERE tenant_id = $1', [tenantId]);
  return rows[0]?.version ?? '';
}

export async function lockReplacement(sql: SqlClient, tenantId: string, kind: 'organisation' | 'jobs'): Promise<void> {
  await lockForTransaction(sql, `learnbase:import:${kind}:${tenantId}`);
}

/** Every entry of the tenant, in import order. */
export async function findAllOrganisationEntries(sql: SqlClient, tenantId: string): Promise<OrgEntry[]> {
  const { rows } = await sql.query<OrgEntryRow>(
    `SELECT id, parent_id, attributes FROM organisation_entries WHERE tenant_id = $1 ORDER BY position`,
    [tenantId],
  );
  return rows.map(toOrgEntry);
}

/**
 * The entries named by `ids` and all their ancestors, each once. One recursive CTE for all the
 * ids: it walks up from every named entry at once, and `UNION` drops rows already reached, so
 * shared ancestors are read once and a cycle (refused by imports anyway) ends the walk.
 */
export async function findOrganisationEntriesWithAncestors(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<OrgEntry[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<OrgEntryRow>(
    `WITH RECURSIVE reached AS (
       SELECT id, parent_id, attributes FROM organisation_entries WHERE tenant_id = $1 AND id = ANY($2::text[])
       UNION
       SELECT parent.id, parent.parent_id, parent.attributes
         FROM reached JOIN organisation_entries parent ON parent.tenant_id = $1 AND parent.id = reached.parent_id
     )
     SELECT id, parent_id, attributes FROM reached`,
    [tenantId, [...ids]],
  );
  return rows.map(toOrgEntry);
}

/** Every job of the tenant, in import order. */
export async function findAllJobs(sql: SqlClient, tenantId: string): Promise<Job[]> {
  const { rows } = await sql.query<JobRow>(`SELECT id, name, competencies, attributes FROM jobs WHERE tenant_id = $1 ORDER BY position`, [
    tenantId,
  ]);
  return rows.map(toJob);
}

export async function findJobsById(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<Job[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<JobRow>(
    `SELECT id, name, competencies, attributes FROM jobs WHERE tenant_id = $1 AND id = ANY($2::text[])`,
    [tenantId, [...ids]],
  );
  return rows.map(toJob);
}

export async function findExistingOrganisationIds(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<{ id: string }>(`SELECT id FROM organisation_entries WHERE tenant_id = $1 AND id = ANY($2::text[])`, [
    tenantId,
    [...ids],
  ]);
  return rows.map((row) => row.id);
}

export async function findExistingJobIds(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<{ id: string }>(`SELECT id FROM jobs WHERE tenant_id = $1 AND id = ANY($2::text[])`, [
    tenantId,
    [...ids],
  ]);
  return rows.map((row) => row.id);
}
