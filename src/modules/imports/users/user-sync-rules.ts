/**
 * The rules of a users import's `sync` mode (docs/identity.md, "A sync: people left out are
 * deactivated") as pure functions: what a sync may deactivate, and its refusals.
 */
import { type AppError, badRequest } from '../../../platform/http/app-error.js';
import { outOfScope } from '../../../kernel/principal.js';
import type { UserImportSummary } from './user-import.js';

/**
 * What a users import does with the tenant's people its file leaves out: `merge` (the default)
 * leaves them as they are; `sync` deactivates them, the file being the whole list of the people.
 */
export const USER_IMPORT_MODES = ['merge', 'sync'] as const;
export type UserImportMode = (typeof USER_IMPORT_MODES)[number];

export const isUserImportMode = (value: unknown): value is UserImportMode => (USER_IMPORT_MODES as readonly unknown[]).includes(value);

/**
 * The mode of an import asked for outside its body (the query's `mode`, the import folder's
 * `users-sync…` name) and in it: an outer `sync` wins, an outer `merge` or none leaves the body's.
 */
export const importModeOf = (outer: UserImportMode | undefined, body: UserImportMode): UserImportMode => (outer === 'sync' ? 'sync' : body);

/**
 * The most people a sync may deactivate of the tenant's `active` people: `maxShare` of them, rounded
 * down (with a hair of tolerance, so that 0.29 of 100 allows 29 although 0.29 × 100 is 28.999…).
 */
export const allowedDeactivations = (active: number, maxShare: number): number => Math.floor(maxShare * active + 1e-9);

/** `0.812` as `81.2%`: a share for a message. */
export const percent = (share: number): string => `${(share * 100).toLocaleString('en-US', { maximumFractionDigits: 1 })}%`;

/** What a sync found: the tenant's active people, and how many of them the file leaves out. */
export interface SyncPlan {
  active: number;
  deactivating: number;
}

const rowsOf = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}`;

export const UserSyncErrors = {
  /**
   * The guard against a truncated export: a file that leaves out more than the allowed share of the
   * people is more likely cut short than the organisation halved. Refused whole.
   */
  guard: (plan: SyncPlan, maxShare: number) => {
    const share = plan.active === 0 ? 1 : plan.deactivating / plan.active;
    const count = (n: number) => n.toLocaleString('en-US');
    return badRequest(
      'imports.sync_guard',
      `The sync would deactivate ${count(plan.deactivating)} of ${count(plan.active)} people (${percent(share)}), more than the ` +
        `allowed ${percent(maxShare)} (LEARNBASE_IMPORT_SYNC_MAX_SHARE): is the file cut short? Nothing was imported and nobody deactivated.`,
      { deactivating: plan.deactivating, activePeople: plan.active, share, maxShare },
    );
  },
  /**
   * A sync whose rows have errors: a skipped row's person would count as left out and be
   * deactivated, so the file is refused whole, its errors listed as the summary lists them.
   */
  rowErrors: (summary: Pick<UserImportSummary, 'errorCount' | 'skipped' | 'errors'>) =>
    badRequest(
      'imports.sync_invalid_rows',
      `${rowsOf(summary.skipped)} of the sync ${summary.skipped === 1 ? 'has' : 'have'} errors (listed in details.errors): a sync imports every row or none, ` +
        'as a row skipped would deactivate its person. Nothing was imported and nobody deactivated.',
      { errorCount: summary.errorCount, errors: summary.errors },
    ),
  /** A credential limited to an organisation subtree cannot tell who is left out of the whole tenant. */
  scoped: (): AppError =>
    outOfScope(
      'A sync deactivates every person of the tenant its file leaves out: it needs a credential of the whole tenant, not one limited to an organisation subtree.',
    ),
  /** `learnbase import` adds and updates only: a sync is the folder's and the API's, which revoke credentials in every process. */
  unavailable: () =>
    badRequest(
      'imports.sync_unavailable',
      '"mode": "sync" is for POST /api/import/users and the import folder (docs/identity.md); `learnbase import` adds and updates only.',
      { field: 'mode' },
    ),
};

/** The refusal of a sync that found `plan`, or undefined when it may deactivate that many. */
export function syncRefusal(plan: SyncPlan, maxShare: number): AppError | undefined {
  return plan.deactivating > allowedDeactivations(plan.active, maxShare) ? UserSyncErrors.guard(plan, maxShare) : undefined;
}

/** The summary of a sync: the import's, with how many people it deactivated (or, with verify, would) after `existing`. */
export function withDeactivated(summary: UserImportSummary, deactivated: number): UserImportSummary {
  const { rows, new: created, existing, ...rest } = summary;
  return { rows, new: created, existing, deactivated, ...rest };
}
