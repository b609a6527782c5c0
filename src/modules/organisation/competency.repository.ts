import { lockForTransaction } from '../../platform/database/advisory-lock.js';
import type { SqlClient } from '../../platform/database/sql-client.js';

/** One competency of the tenant's catalogue (migration 0025). */
export interface Competency {
  id: string;
  name: string;
  description: string;
}

/** A competency with how many jobs require it, for the catalogue's listing. */
export interface CatalogueCompetency extends Competency {
  jobs: number;
  updatedAt: Date;
}

interface CompetencyRow {
  id: string;
  name: string;
  description: string;
}

const toCompetency = (row: CompetencyRow): Competency => ({ id: row.id, name: row.name, description: row.description });

/**
 * The catalogue's side of a job import, in its transaction after the jobs were replaced: each
 * competency the jobs name once (matched on lower(name)), spelled as its last occurrence in
 * import order says and described by its last non-empty description, inserted or updated in
 * place; then the jobs' links, in each job's order. Nothing is deleted from the catalogue.
 */
export async function syncCompetenciesFromJobs(tx: SqlClient, tenantId: string): Promise<void> {
  await lockCatalogue(tx, tenantId);
  await tx.query(
    `INSERT INTO competencies AS k (tenant_id, name, name_key, description)
     SELECT $1, (array_agg(o.name ORDER BY o.job_position DESC, o.ord DESC))[1], lower(o.name),
            COALESCE((array_agg(o.description ORDER BY o.job_position DESC, o.ord DESC) FILTER (WHERE o.description <> ''))[1], '')
       FROM (SELECT c.value ->> 'Name' AS name, COALESCE(c.value ->> 'Description', '') AS description, j.position AS job_position, c.ord
               FROM jobs j CROSS JOIN LATERAL jsonb_array_elements(j.competencies) WITH ORDINALITY AS c (value, ord)
              WHERE j.tenant_id = $1) AS o
      GROUP BY lower(o.name)
     ON CONFLICT ON CONSTRAINT competencies__tenant_id_name_key DO UPDATE
        SET name = EXCLUDED.name,
            description = CASE WHEN EXCLUDED.description <> '' THEN EXCLUDED.description ELSE k.description END,
            updated_at = now()
      WHERE k.name IS DISTINCT FROM EXCLUDED.name OR (EXCLUDED.description <> '' AND k.description IS DISTINCT FROM EXCLUDED.description)`,
    [tenantId],
  );
  await tx.query(
    `INSERT INTO job_competencies (tenant_id, job_id, competency_id, position)
     SELECT DISTINCT ON (j.id, k.id) $1, j.id, k.id, c.ord
       FROM jobs j
      CROSS JOIN LATERAL jsonb_array_elements(j.competencies) WITH ORDINALITY AS c (value, ord)
       JOIN competencies k ON k.tenant_id = $1 AND k.name_key = lower(c.value ->> 'Name')
      WHERE j.tenant_id = $1
      ORDER BY j.id, k.id, c.ord`,
    [tenantId],
  );
}

/**
 * Serialises the writers of a tenant's catalogue (a job import's sync, PUT /api/competencies)
 * for the rest of the transaction: each sees the other's names, so no name is inserted twice.
 */
export async function lockCatalogue(tx: SqlClient, tenantId: string): Promise<void> {
  await lockForTransaction(tx, `learnbase:competencies:${tenantId}`);
}

/**
 * Under lockCatalogue: inserts the competencies named (matched on lower(name)) or updates their
 * spelling and, when one is sent, their description. Names must be distinct by lower(name)
 * (duplicateNames). Answers the stored competencies in the order sent, each saying whether it
 * was created.
 */
export async function upsertCompetencies(
  tx: SqlClient,
  tenantId: string,
  competencies: readonly { name: string; description?: string }[],
): Promise<Array<Competency & { created: boolean }>> {
  if (competencies.length === 0) return [];
  const sent = JSON.stringify(competencies.map((c) => ({ name: c.name, description: c.description ?? null })));
  const RECORDS = 'jsonb_to_recordset($2::jsonb) AS r (name text, description text)';
  await tx.query(
    `UPDATE competencies k SET name = r.name, description = COALESCE(r.description, k.description), updated_at = now()
       FROM ${RECORDS}
      WHERE k.tenant_id = $1 AND k.name_key = lower(r.name)
        AND (k.name IS DISTINCT FROM r.name OR (r.description IS NOT NULL AND r.description IS DISTINCT FROM k.description))`,
    [tenantId, sent],
  );
  const { rows: created } = await tx.query<{ name_key: string }>(
    `INSERT INTO competencies (tenant_id, name, name_key, description)
     SELECT $1, r.name, lower(r.name), COALESCE(r.description, '') FROM ${RECORDS}
      WHERE NOT EXISTS (SELECT 1 FROM competencies k WHERE k.tenant_id = $1 AND k.name_key = lower(r.name))
     RETURNING name_key`,
    [tenantId, sent],
  );
  const createdKeys = new Set(created.map((row) => row.name_key));
  const { rows } = await tx.query<CompetencyRow & { name_key: string }>(
    `SELECT k.id, k.name, k.description, k.name_key
       FROM unnest($2::text[]) WITH ORDINALITY AS n (name, ord)
       JOIN competencies k ON k.tenant_id = $1 AND k.name_key = lower(n.name)
      ORDER BY n.ord`,
    [tenantId, competencies.map((c) => c.name)],
  );
  return rows.map((row) => ({ ...toCompetency(row), created: createdKeys.has(row.name_key) }));
}

/** The positions (from 0) of names that repeat an earlier one case-insensitively, with the earlier one's position. */
export async function duplicateNames(sql: SqlClient, names: readonly string[]): Promise<Array<{ index: number; first: number }>> {
  if (names.length < 2) return [];
  const { rows } = await sql.query<{ ord: string; first: string }>(
    `SELECT n.ord, min(n.ord) OVER (PARTITION BY lower(n.name)) AS first
       FROM unnest($1::text[]) WITH ORDINALITY AS n (name, ord)
      ORDER BY n.ord`,
    [names],
  );
  return rows.filter((row) => row.ord !== row.first).map((row) => ({ index: Number(row.ord) - 1, first: Number(row.first) - 1 }));
}

/** The catalogue competency each name matches (case-insensitively), undefined where none does, in the order given. */
export async function resolveCompetencyNames(
  sql: SqlClient,
  tenantId: string,
  names: readonly string[],
): Promise<Array<Competency | undefined>> {
  if (names.length === 0) return [];
  const { rows } = await sql.query<CompetencyRow & { ord: string }>(
    `SELECT n.ord, k.id, k.name, k.description
       FROM unnest($2::text[]) WITH ORDINALITY AS n (name, ord)
       JOIN competencies k ON k.tenant_id = $1 AND k.name_key = lower(n.name)`,
    [tenantId, names],
  );
  const found = new Map(rows.map((row) => [Number(row.ord) - 1, toCompetency(row)]));
  return names.map((_, i) => found.get(i));
}

/** A page of the catalogue in name order (`q`: names containing it, case-insensitively), and how many match. */
export async function findCatalogue(
  sql: SqlClient,
  tenantId: string,
  page: { q?: string; limit: number; skip: number },
): Promise<{ competencies: CatalogueCompetency[]; total: number }> {
  const { rows } = await sql.query<CompetencyRow & { jobs: number; updated_at: Date; total: number }>(
    `SELECT k.id, k.name, k.description, k.updated_at,
            (SELECT count(*) FROM job_competencies jc WHERE jc.tenant_id = k.tenant_id AND jc.competency_id = k.id)::int AS jobs,
            count(*) OVER ()::int AS total
       FROM competencies k
      WHERE k.tenant_id = $1 AND ($2::text IS NULL OR strpos(k.name_key, lower($2)) > 0)
      ORDER BY k.name_key, k.id
      LIMIT $3 OFFSET $4`,
    [tenantId, page.q ?? null, page.limit, page.skip],
  );
  const total =
    rows[0]?.total ??
    (page.skip > 0
      ? (
          await sql.query<{ total: number }>(
            `SELECT count(*)::int AS total FROM competencies WHERE tenant_id = $1 AND ($2::text IS NULL OR strpos(name_key, lower($2)) > 0)`,
            [tenantId, page.q ?? null],
          )
        ).rows[0].total
      : 0);
  return {
    competencies: rows.map((row) => ({ ...toCompetency(row), jobs: row.jobs, updatedAt: new Date(row.updated_at) })),
    total,
  };
}

/** The competencies with these ids (unknown ids are absent), each with the ids of the jobs requiring it. */
export async function findCompetenciesById(
  sql: SqlClient,
  tenantId: string,
  ids: readonly string[],
): Promise<Array<Competency & { jobIds: string[] }>> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<CompetencyRow & { job_ids: string[] }>(
    `SELECT k.id, k.name, k.description,
            ARRAY(SELECT jc.job_id FROM job_competencies jc
                   WHERE jc.tenant_id = k.tenant_id AND jc.competency_id = k.id ORDER BY jc.job_id) AS job_ids
       FROM competencies k
      WHERE k.tenant_id = $1 AND k.id = ANY($2::uuid[])
      ORDER BY k.name_key, k.id`,
    [tenantId, ids],
  );
  return rows.map((row) => ({ ...toCompetency(row), jobIds: row.job_ids }));
}

/** The competencies each job requires, in the job's order; jobs without any (or unknown) are absent. */
export async function findJobCompetencies(sql: SqlClient, tenantId: string, jobIds: readonly string[]): Promise<Map<string, Competency[]>> {
  const byJob = new Map<string, Competency[]>();
  if (jobIds.length === 0) return byJob;
  const { rows } = await sql.query<CompetencyRow & { job_id: string }>(
    `SELECT jc.job_id, k.id, k.name, k.description
       FROM job_competencies jc
       JOIN competencies k ON k.tenant_id = jc.tenant_id AND k.id = jc.competency_id
      WHERE jc.tenant_id = $1 AND jc.job_id = ANY($2::text[])
      ORDER BY jc.job_id, jc.position`,
    [tenantId, [...new Set(jobIds)]],
  );
  for (const row of rows) {
    const list = byJob.get(row.job_id);
    if (list) list.push(toCompetency(row));
    else byJob.set(row.job_id, [toCompetency(row)]);
  }
  return byJob;
}
