import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError, badRequest } from '../../../platform/http/app-error.js';
import { findJsonProblem } from '../../../platform/json-guard.js';
// The xAPI identifier limits are one definition; issue 26 moves them to the kernel below every module.
import { lengthProblem, MAX_ACCOUNT_PART_BYTES } from '../../../kernel/limits.js';
import type { Tenant } from '../../../kernel/principal.js';
import {
  findIdentifierConflicts,
  findStoredSettings,
  lockPeopleIdentities,
  lockPersonKeys,
  lockTenantIdentities,
  repositionActors,
  findOverlongIdentifierValues,
  rebuildIdentifiers,
  upsertStoredSettings,
} from './tenant-settings.repository.js';
import type { TenantSettingsBody } from './tenant-settings.schemas.js';
import type { PeopleChanges } from '../../../kernel/people-changes.port.js';

/** A tenant's settings with every default filled in (docs/imports.md, "Model and settings"). */
export interface TenantSettings {
  /** The ordered attribute names that identify a person; the first one a user has names its account. */
  uniqueAttributes: string[];
  /** `account.homePage` of the agents made from imported users. */
  accountHomePage: string;
  /** The user attribute whose value is an organisation entry id, or null. */
  organisationAttribute: string | null;
  /** The user attribute whose value is a job id, or null. */
  jobAttribute: string | null;
  /**
   * The organisation entry attribute whose value is the id of the job of that position, or null:
   * a person's current job comes from it when their own jobAttribute names no job (actor-job-rules.ts).
   */
  positionJobAttribute: string | null;
}

export { lockPeopleIdentities, lockPersonKeys, lockTenantIdentities };

/** The tenant's own address, `http://{tenant}.{base-domain}`: the default account homePage. */
export const tenantAddress = (tenant: Pick<Tenant, 'name'>, baseDomain: string) => `http://${tenant.name}.${baseDomain}`;

export function effectiveSettings(
  stored: Record<string, unknown> | undefined,
  tenant: Pick<Tenant, 'name'>,
  baseDomain: string,
): TenantSettings {
  const given = (stored ?? {}) as TenantSettingsBody;
  return {
    uniqueAttributes: given.uniqueAttributes ?? ['email'],
    accountHomePage: given.accountHomePage ?? tenantAddress(tenant, baseDomain),
    organisationAttribute: given.organisationAttribute ?? null,
    jobAttribute: given.jobAttribute ?? null,
    positionJobAttribute: given.positionJobAttribute ?? null,
  };
}

export async function getTenantSettings(sql: SqlClient, tenant: Pick<Tenant, 'id' | 'name'>, baseDomain: string): Promise<TenantSettings> {
  return effectiveSettings(await findStoredSettings(sql, tenant.id), tenant, baseDomain);
}

/**
 * The rules TypeBox cannot say: the homePage is an absolute http(s) URL (it becomes every
 * imported agent's account.homePage, an IRL in xAPI), and no text holds what PostgreSQL cannot store.
 */
function checkSettings(body: TenantSettingsBody): void {
  const problem = findJsonProblem(body, 'body');
  if (problem) throw badRequest('settings.invalid', `${problem.path} ${problem.why}.`, { field: problem.path });
  if (body.accountHomePage !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(body.accountHomePage);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || /\s|\|/.test(body.accountHomePage)) {
      throw badRequest('settings.invalid', 'accountHomePage must be an absolute http or https URL (no spaces or "|").', {
        field: 'accountHomePage',
      });
    }
    // It becomes every imported agent's account.homePage, which agents hold to this length.
    const tooLong = lengthProblem(body.accountHomePage, MAX_ACCOUNT_PART_BYTES);
    if (tooLong) throw badRequest('settings.invalid', `accountHomePage ${tooLong}.`, { field: 'accountHomePage' });
  }
}

/**
 * PUT semantics: `body` replaces the stored settings; keys left out take their defaults. When the
 * unique attributes change, the tenant's identifiers are rebuilt from its users' attributes in the
 * same transaction; if two users then share a value the change is refused (409) and nothing changes.
 * The settings link people to the organisation and the jobs, so `peopleChanges` hears of every
 * tenant's people as changed, in the same transaction.
 */
export async function replaceTenantSettings(
  sql: SqlClient,
  tenant: Pick<Tenant, 'id' | 'name'>,
  body: TenantSettingsBody,
  baseDomain: string,
  peopleChanges: PeopleChanges,
): Promise<TenantSettings> {
  checkSettings(body);
  return sql.transaction(async (tx) => {
    await lockTenantIdentities(tx, tenant.id);
    const before = effectiveSettings(await findStoredSettings(tx, tenant.id), tenant, baseDomain);
    const after = effectiveSettings(body, tenant, baseDomain);
    if (before.uniqueAttributes.join('\u0000') !== after.uniqueAttributes.join('\u0000')) {
      const conflicts = await findIdentifierConflicts(tx, tenant.id, after.uniqueAttributes);
      if (conflicts.length > 0) {
        const first = conflicts[0];
        throw new AppError(
          'settings.unique_conflict',
          409,
          `Users share the value "${first.value}" of "${first.attribute}", so it cannot identify one person; nothing was changed.`,
          { details: { field: 'uniqueAttributes', conflicts } },
        );
      }
      const overlong = await findOverlongIdentifierValues(tx, tenant.id, after.uniqueAttributes, MAX_ACCOUNT_PART_BYTES);
      if (overlong.length > 0) {
        const first = overlong[0]!;
        throw new AppError(
          'settings.value_too_long',
          409,
          `The user ${first.agentKey} has a value of "${first.attribute}" of ${first.bytes} bytes; a unique attribute's values are at most ${MAX_ACCOUNT_PART_BYTES} bytes of UTF-8 (docs/imports.md), so it cannot identify people here; nothing was changed.`,
          { details: { field: 'uniqueAttributes', values: overlong } },
        );
      }
      await rebuildIdentifiers(tx, tenant.id, after.uniqueAttributes);
    }
    await upsertStoredSettings(tx, tenant.id, body as Record<string, unknown>);
    if (before.organisationAttribute !== after.organisationAttribute) await repositionActors(tx, tenant.id, after.organisationAttribute);
    await peopleChanges.changed(tx, tenant, { kind: 'everyone' });
    return after;
  });
}
