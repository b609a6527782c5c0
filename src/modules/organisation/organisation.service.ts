import type { SqlClient } from '../../platform/database/sql-client.js';
import { ANALYZE_AFTER_ROWS, refreshStatistics } from '../../platform/database/statistics.js';
import { notFound } from '../../platform/http/app-error.js';
import { syncCompetenciesFromJobs } from './competency.repository.js';
import {
  findExistingJobIds,
  findExistingOrganisationIds,
  findJobsById,
  findOrganisationEntriesWithAncestors,
  lockReplacement,
  replaceJobs,
  replaceOrganisationEntries,
  type Job,
  type OrgEntry,
} from './organisation.repository.js';
import { organisationJobs, organisationStructure, subtreeOf } from './organisation-copy.service.js';

export type { Job, OrgEntry } from './organisation.repository.js';

/** An organisation entry with its chain of ancestors, as actor enrichment shows it. */
export interface OrgLink {
  entry: OrgEntry;
  /** Parent first, root last; empty for a root or for flat location data. */
  ancestors: OrgEntry[];
}

/**
 * Longest ancestor chain followed. Imports refuse cycles, so a chain always ends at a root;
 * this is the guard that keeps a walk bounded should the data ever say otherwise. It is far above
 * any real hierarchy (and above the bench's 10,000 positions).
 */
export const MAX_ORGANISATION_DEPTH = 100_000;

/**
 * The organisation entries named by `ids` (the users' `organisationAttribute` values), each with
 * its ancestors. Ids naming no entry are absent from the map. One query for all ids, whatever
 * their count: shared ancestors are read once and shared between the links.
 */
export async function findOrganisationLinks(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<Map<string, OrgLink>> {
  const wanted = [...new Set(ids)];
  const reached = await findOrganisationEntriesWithAncestors(sql, tenantId, wanted);
  const byId = new Map(reached.map((entry) => [entry.id, entry]));
  const links = new Map<string, OrgLink>();
  for (const id of wanted) {
    const entry = byId.get(id);
    if (!entry) continue;
    const ancestors: OrgEntry[] = [];
    const seen = new Set<string>([entry.id]);
    for (let parentId = entry.parentId; parentId !== undefined && ancestors.length < MAX_ORGANISATION_DEPTH; ) {
      const parent = byId.get(parentId);
      // A seen id means a cycle, which imports refuse: stop rather than loop.
      if (!parent || seen.has(parent.id)) break;
      seen.add(parent.id);
      ancestors.push(parent);
      parentId = parent.parentId;
    }
    links.set(id, { entry, ancestors });
  }
  return links;
}

/** The jobs named by `ids` (the users' `jobAttribute` values); ids naming no job are absent. */
export async function findJobs(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<Map<string, Job>> {
  const jobs = await findJobsById(sql, tenantId, [...new Set(ids)]);
  return new Map(jobs.map((job) => [job.id, job]));
}

/** Which of `ids` name an organisation entry of the tenant (the user import's link warnings). */
export async function existingOrganisationIds(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<Set<string>> {
  return new Set(await findExistingOrganisationIds(sql, tenantId, [...new Set(ids)]));
}

/** Which of `ids` name a job of the tenant (the user import's link warnings). */
export async function existingJobIds(sql: SqlClient, tenantId: string, ids: readonly string[]): Promise<Set<string>> {
  return new Set(await findExistingJobIds(sql, tenantId, [...new Set(ids)]));
}

/** The organisation and job errors, `imports.reason` / `organisation.reason`. */
export const OrganisationErrors = {
  entryNotFound: (id: string) => notFound('organisation.not_found', `No organisation entry has the id ${JSON.stringify(id)}.`, { id }),
};

/**
 * Replaces the tenant's whole organisation structure with `entries` (checked by org-unit-rules.ts),
 * inside the caller's transaction. Two replacements at once are serialised: the last to commit is
 * what is stored, never a mix.
 */
export async function replaceOrganisation(tx: SqlClient, tenantId: string, entries: readonly OrgEntry[]): Promise<void> {
  await lockReplacement(tx, tenantId, 'organisation');
  await replaceOrganisationEntries(tx, tenantId, entries);
}

/**
 * As replaceOrganisation, for the job architecture (checked by job-role-rules.ts); the competency
 * catalogue takes in the competencies the jobs name (competency.repository.ts, syncCompetenciesFromJobs).
 */
export async function replaceJobArchitecture(tx: SqlClient, tenantId: string, jobs: readonly Job[]): Promise<void> {
  await lockReplacement(tx, tenantId, 'jobs');
  await replaceJobs(tx, tenantId, jobs);
  await syncCompetenciesFromJobs(tx, tenantId);
}

/** Refreshes the planner's statistics of the replaced table after a large import. */
export async function refreshOrganisationStatistics(sql: SqlClient, kind: 'organisation' | 'jobs', rows: number): Promise<void> {
  if (rows >= ANALYZE_AFTER_ROWS) await refreshStatistics(sql, [kind === 'organisation' ? 'organisation_entries' : 'jobs']);
}

/** Every job of the tenant, in import order (shared: not to be changed). */
export function listJobs(sql: SqlClient, tenantId: string): Promise<readonly Job[]> {
  return organisationJobs(sql, tenantId);
}

/**
 * The tenant's organisation entries in import order, all of them or `rootId` and everything
 * below it (404 when there is no such entry).
 */
export async function readOrganisation(sql: SqlClient, tenantId: string, rootId?: string): Promise<readonly OrgEntry[]> {
  const structure = await organisationStructure(sql, tenantId);
  if (rootId === undefined) return structure.entries;
  const entries = subtreeOf(structure, rootId);
  if (entries.length === 0) throw OrganisationErrors.entryNotFound(rootId);
  return entries;
}

const entryJson = (entry: OrgEntry): string =>
  `"id":${JSON.stringify(entry.id)},"parentId":${JSON.stringify(entry.parentId ?? null)},"attributes":${JSON.stringify(entry.attributes)}`;

/** `[{id, parentId, attributes}]`: the flat form of GET /api/organisation. */
export const flatJson = (entries: readonly OrgEntry[]): string => `[${entries.map((entry) => `{${entryJson(entry)}}`).join(',')}]`;

/**
 * `[{id, parentId, attributes, children: [...]}]`: the entries (in import order) as a tree whose
 * roots are the entries whose parent is not among them. Built and written without recursion,
 * so a chain of any depth neither overflows the stack nor depends on Fastify's serializer.
 */
export function treeJson(entries: readonly OrgEntry[]): string {
  const children = new Map<string, OrgEntry[]>();
  const present = new Set(entries.map((entry) => entry.id));
  const roots: OrgEntry[] = [];
  for (const entry of entries) {
    if (entry.parentId === undefined || !present.has(entry.parentId)) roots.push(entry);
    else {
      const siblings = children.get(entry.parentId);
      if (siblings) siblings.push(entry);
      else children.set(entry.parentId, [entry]);
    }
  }
  const parts: string[] = ['['];
  const stack: { nodes: OrgEntry[]; next: number }[] = [{ nodes: roots, next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next === top.nodes.length) {
      stack.pop();
      // Closes a children array and its entry, or (the last frame) the list of roots.
      parts.push(stack.length > 0 ? ']}' : ']');
      continue;
    }
    const entry = top.nodes[top.next++];
    parts.push(`${top.next > 1 ? ',' : ''}{${entryJson(entry)},"children":[`);
    stack.push({ nodes: children.get(entry.id) ?? [], next: 0 });
  }
  return parts.join('');
}
