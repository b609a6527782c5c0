import type { SqlClient } from '../../platform/database/sql-client.js';
import { badRequest } from '../../platform/http/app-error.js';
import type { Principal } from '../../kernel/principal.js';
import { checkJobsImport } from '../organisation/job-role-rules.js';
import { checkOrganisationImport, type ImportCheck, type ImportProblem } from '../organisation/org-unit-rules.js';
import { refreshOrganisationStatistics, replaceJobArchitecture, replaceOrganisation } from '../organisation/organisation.service.js';
import { type OnCommitting, recordImportRun } from './import-run.service.js';
import type { PeopleChanges } from '../actors/people-changes.js';

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
