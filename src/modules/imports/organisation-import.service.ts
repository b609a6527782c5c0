import type { SqlClient } from '../../platform/database/sql-client.js';
import { badRequest } from '../../platform/http/app-error.js';
import type { Principal } from '../../kernel/principal.js';
import {
  checkJobsImport,
  checkOrganisationImport,
  type ImportCheck,
  type ImportProblem,
  refreshOrganisationStatistics,
  replaceJobArchitecture,
  replaceOrganisation,
  CHANGE_EXAMPLES,
  compareJobArchitecture,
  compareOrganisation,
} from '../organisation/index.js';
import { peopleLinkedToEntries, peopleLinkedToJobs, type PersonShown } from '../actors/index.js';
import type { PeopleChanges } from '../../kernel/people-changes.port.js';
import { type OnCommitting, recordImportRun } from './import-run.service.js';

export const OrganisationImportErrors = {
  invalidImport: (kind: 'organisation' | 'jobs', problems: ImportProblem[], body?: string) => {
    const code = kind === 'organisation' ? 'imports.invalid_organisation' : 'imports.invalid_jobs';
    const what = kind === 'organisation' ? 'organisation import' : 'jobs import';
    const message = body
      ? `The body of the ${what} ${body}; nothing was imported.`
      : `${problems.length} problem${problems.length === 1 ? '' : 's'} in the ${what} (listed in details.problems, index counting from 0); nothing was imported.`;
    return badRequest(code, message, { problems });
  },
};

async function replaceAll<T>(
  sql: SqlClient,
  principal: Principal,
  kind: 'organisation' | 'jobs',
  check: () => ImportCheck<T[]>,
  replace: (tx: SqlClient, tenantId: string, items: T[]) => Promise<void>,
  peopleChanges: PeopleChanges,
  onCommitting: OnCommitting<{ entries: number }> | undefined,
): Promise<number> {
  const startedAt = new Date();
  const checked = check();
  if (!checked.ok) throw OrganisationImportErrors.invalidImport(kind, checked.problems, checked.body);
  const items = checked.value;
  const tenantId = principal.tenant.id;
  await sql.transaction(async (tx) => {
    await replace(tx, tenantId, items);
    // What every person's attributes link to changed: anyone may match other criteria now.
    await peopleChanges.changed(tx, principal.tenant, { kind: 'everyone' });
    await recordImportRun(tx, { kind, verify: false, principal, startedAt, summary: { entries: items.length } });
    await onCommitting?.(tx, { entries: items.length });
  });
  await refreshOrganisationStatistics(sql, kind, items.length);
  return items.length;
}

/**
 * `PUT /api/import/organisation`: checks the whole body and, when every entry is good, replaces
 * the tenant's organisation structure and records the run, all in one transaction. Two imports
 * at once are serialised (lockReplacement): the last to commit is what is stored, never a mix.
 * `peopleChanges` hears of everyone as changed, in the same transaction; so does `onCommitting`,
 * with the summary, last.
 */
export function importOrganisation(
  sql: SqlClient,
  principal: Principal,
  body: unknown,
  peopleChanges: PeopleChanges,
  onCommitting?: OnCommitting<{ entries: number }>,
): Promise<number> {
  return replaceAll(sql, principal, 'organisation', () => checkOrganisationImport(body), replaceOrganisation, peopleChanges, onCommitting);
}

/** `PUT /api/import/jobs`: as importOrganisation, for the job architecture. */
export function importJobs(
  sql: SqlClient,
  principal: Principal,
  body: unknown,
  peopleChanges: PeopleChanges,
  onCommitting?: OnCommitting<{ entries: number }>,
): Promise<number> {
  return replaceAll(sql, principal, 'jobs', () => checkJobsImport(body), replaceJobArchitecture, peopleChanges, onCommitting);
}

/**
 * The answer of an organisation import checked with `verify` (docs/imports.md, "Checking a
 * replacement first"): what replacing the stored structure with the array would change, and whom
 * it would unlink.
 */
export interface OrganisationCheck {
  verify: true;
  /** Entries sent. */
  entries: number;
  /** Ids the stored structure does not hold. */
  added: number;
  /** Stored ids the array leaves out. */
  removed: number;
  /** Ids in both, with another parent or other attributes (a job: another name, competencies or attributes). */
  changed: number;
  unchanged: number;
  /** Active people linked by the new structure, and those linked now that it would unlink. */
  people: { linked: number; unlinked: number };
  /** The first ids (at most 10) of each kind, in the array's order (removed: the stored order), and of the people unlinked. */
  examples: { added: string[]; removed: string[]; changed: string[]; unlinked: PersonShown[] };
}

/** The check of a jobs import: as OrganisationCheck, with the competencies new to the catalogue. */
export interface JobsCheck extends OrganisationCheck {
  competencies: { added: number };
  examples: OrganisationCheck['examples'] & { competencies: string[] };
}

/** The counts of a check, as the history keeps them (no examples). */
const countsOf = (check: OrganisationCheck | JobsCheck): Record<string, unknown> => {
  const { verify: _verify, examples: _examples, ...counts } = check;
  return counts;
};

async function checkReplacement<T, Check extends OrganisationCheck>(
  sql: SqlClient,
  principal: Principal,
  kind: 'organisation' | 'jobs',
  check: () => ImportCheck<T[]>,
  compare: (tx: SqlClient, tenantId: string, items: T[]) => Promise<Check>,
  onCommitting: OnCommitting<Check> | undefined,
): Promise<Check> {
  const startedAt = new Date();
  const checked = check();
  if (!checked.ok) throw OrganisationImportErrors.invalidImport(kind, checked.problems, checked.body);
  // One transaction: the counts read one moment of the stored data, and the run is recorded with them.
  return sql.transaction(async (tx) => {
    const summary = await compare(tx, principal.tenant.id, checked.value);
    await recordImportRun(tx, { kind, verify: true, principal, startedAt, summary: countsOf(summary) });
    await onCommitting?.(tx, summary);
    return summary;
  });
}

/**
 * `PUT /api/import/organisation?verify=true`: the same checks as importOrganisation (the same
 * 400 with every problem), then what the replacement would change and whom it would unlink, in a
 * few set-based statements whatever the counts; nothing is written but the run's line in the
 * history (`verify: true`).
 */
export function checkOrganisationReplacement(
  sql: SqlClient,
  principal: Principal,
  body: unknown,
  onCommitting?: OnCommitting<OrganisationCheck>,
): Promise<OrganisationCheck> {
  return checkReplacement(
    sql,
    principal,
    'organisation',
    () => checkOrganisationImport(body),
    async (tx, tenantId, entries) => {
      const { examples, ...changes } = await compareOrganisation(tx, tenantId, entries);
      const people = await peopleLinkedToEntries(
        tx,
        tenantId,
        entries.map((entry) => entry.id),
        CHANGE_EXAMPLES,
      );
      return {
        verify: true,
        entries: entries.length,
        ...changes,
        people: { linked: people.linked, unlinked: people.unlinked },
        examples: { ...examples, unlinked: people.examples },
      };
    },
    onCommitting,
  );
}

/** `PUT /api/import/jobs?verify=true`: as checkOrganisationReplacement, for the job architecture. */
export function checkJobsReplacement(
  sql: SqlClient,
  principal: Principal,
  body: unknown,
  onCommitting?: OnCommitting<JobsCheck>,
): Promise<JobsCheck> {
  return checkReplacement(
    sql,
    principal,
    'jobs',
    () => checkJobsImport(body),
    async (tx, tenantId, jobs) => {
      const { examples, competencies, ...changes } = await compareJobArchitecture(tx, tenantId, jobs);
      const people = await peopleLinkedToJobs(
        tx,
        tenantId,
        jobs.map((job) => job.id),
        CHANGE_EXAMPLES,
      );
      return {
        verify: true,
        entries: jobs.length,
        ...changes,
        people: { linked: people.linked, unlinked: people.unlinked },
        competencies: { added: competencies.added },
        examples: { ...examples, unlinked: people.examples, competencies: competencies.examples },
      };
    },
    onCommitting,
  );
}
