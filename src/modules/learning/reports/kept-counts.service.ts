import type { FastifyBaseLogger } from 'fastify';
import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { ActivitiesChanged } from '../../../kernel/activities-changed.port.js';
import type { Running } from '../../../kernel/module-declaration.js';
import type { PeopleChange, PeopleChanges } from '../../../kernel/people-changes.port.js';
import type { Tenant } from '../../../kernel/principal.js';
import type { StatementProjection } from '../../../kernel/statement-projection.port.js';
import { getTenantSettings, peopleSql } from '../../actors/index.js';
import { agentKeysRecordedBy } from '../../completions/index.js';
import { findTenantById } from '../../tenancy/index.js';
import {
  compareCounts,
  countCountedPeople,
  countPeopleWithRecordsOf,
  type CountDifferences,
  lockCountedPeople,
  lockCounts,
  rebuildCounts,
  rebuildRequested,
  refreshEvidence,
  refreshEvidenceOfActivities,
  refreshPeople,
  requestedRebuilds,
  requestRebuild,
} from './kept-counts.repository.js';

/**
 * Up to how many people a write locks one by one; above, it takes the tenant's lock alone
 * (exclusively): a lock per person takes a slot of PostgreSQL's shared lock table, which holds a
 * few thousand.
 */
const PERSON_LOCKS = 1_000;

/** How often the background rebuild looks for requests that no process of its own made (another process's, an upgrade's). */
const REBUILD_POLL_MS = 10_000;

export interface KeptCountsOptions {
  sql: SqlClient;
  baseDomain: string;
  log: FastifyBaseLogger;
  /**
   * Up to how many people a change re-derives in its own transaction (a change of everyone: the
   * settings, the organisation, the jobs; of the registry; of many people at once); above, it asks
   * for a rebuild, which the background rebuild does once the change commits, the reports
   * recounting meanwhile (LEARNBASE_KEPT_COUNTS_INLINE_PEOPLE).
   */
  inlinePeople: number;
}

/**
 * The reports' kept counts (kept-counts.repository.ts): brought up to date in the transactions of
 * the writes that change them, through the ports learning fills: the statement write
 * (`projection`), the writers of people (`peopleChanges`), the registry (`activitiesChanged`); and
 * rebuilt from the records when asked (`rebuilding`, the background rebuild, and `learnbase
 * reports rebuild`).
 */
export class KeptCounts {
  private readonly inlinePeople: number;
  private wake: (() => void) | undefined;

  constructor(private readonly options: KeptCountsOptions) {
    this.inlinePeople = options.inlinePeople;
  }

  /** The statement write's part: the evidence of the counted people whose records the statements changed. */
  readonly projection: StatementProjection = async (tx, tenantId, inserted) => {
    const agentKeys = await agentKeysRecordedBy(tx, tenantId, inserted);
    if (agentKeys.length === 0) return;
    if (agentKeys.length > PERSON_LOCKS) await lockCounts(tx, tenantId, 'exclusive');
    else await lockCounts(tx, tenantId, 'shared', { agentKeys, mode: 'shared' });
    const counted = await lockCountedPeople(tx, tenantId, agentKeys);
    if (counted.length > 0) await refreshEvidence(tx, tenantId, counted);
  };

  /** The writers of people's part: whether and where the people changed are counted. */
  readonly peopleChanges: PeopleChanges = {
    changed: (tx, tenant, change) => this.peopleChanged(tx, tenant, change),
  };

  /** The registry's part: the evidence of the people with records of the activities stored. */
  readonly activitiesChanged: ActivitiesChanged = async (tx, tenantId, activityIds) => {
    if (activityIds.length === 0) return;
    await lockCounts(tx, tenantId, 'exclusive');
    if (await rebuildRequested(tx, tenantId)) return;
    if ((await countPeopleWithRecordsOf(tx, tenantId, activityIds)) > this.inlinePeople) await this.requestRebuild(tx, tenantId);
    else await refreshEvidenceOfActivities(tx, tenantId, activityIds);
  };

  private async peopleChanged(tx: SqlClient, tenant: Pick<Tenant, 'id' | 'name'>, change: PeopleChange): Promise<void> {
    const agentKeys = change.kind === 'people' ? [...new Set(change.agentKeys)] : undefined;
    if (agentKeys?.length === 0) return;
    if (agentKeys !== undefined && agentKeys.length <= PERSON_LOCKS) {
      await lockCounts(tx, tenant.id, 'shared', { agentKeys, mode: 'exclusive' });
    } else await lockCounts(tx, tenant.id, 'exclusive');
    if (await rebuildRequested(tx, tenant.id)) return;
    const many = agentKeys === undefined ? await countCountedPeople(tx, tenant.id) : agentKeys.length;
    if (many > this.inlinePeople) return this.requestRebuild(tx, tenant.id);
    const parameters = new SqlValues([tenant.id]);
    const people = peopleSql(await getTenantSettings(tx, tenant, this.options.baseDomain), { all: true }, parameters);
    if (agentKeys === undefined) await rebuildCounts(tx, tenant.id, people, parameters);
    else await refreshPeople(tx, tenant.id, people, parameters, agentKeys);
  }

  private async requestRebuild(tx: SqlClient, tenantId: string): Promise<void> {
    await requestRebuild(tx, tenantId);
    // Once the request commits: the background rebuild looks again in a moment, and finds it.
    setTimeout(() => this.wake?.(), 100).unref();
  }

  /**
   * Makes the tenant's counts again from the records and the people, in one transaction holding
   * the tenant's lock (its statement writes wait meanwhile); the request, if any, is done.
   */
  async rebuild(tenant: Pick<Tenant, 'id' | 'name'>): Promise<void> {
    await this.options.sql.transaction(async (tx) => {
      await lockCounts(tx, tenant.id, 'exclusive');
      const parameters = new SqlValues([tenant.id]);
      const people = peopleSql(await getTenantSettings(tx, tenant, this.options.baseDomain), { all: true }, parameters);
      await rebuildCounts(tx, tenant.id, people, parameters);
    });
  }

  /** The kept counts compared with a recount (at most `limit` differences of each kind). */
  async verify(tenant: Pick<Tenant, 'id' | 'name'>, limit = 20): Promise<CountDifferences & { rebuilding: boolean }> {
    return this.options.sql.transaction(async (tx) => {
      // The tenant's lock, shared with its writers of a few people but not with a change of
      // everyone: what is compared is never half a change (a repeatable snapshot would not see
      // the writes that commit while the recount runs; the lock makes them wait).
      await lockCounts(tx, tenant.id, 'exclusive');
      const rebuilding = (await rebuildRequested(tx, tenant.id)) !== undefined;
      const parameters = new SqlValues([tenant.id]);
      const people = peopleSql(await getTenantSettings(tx, tenant, this.options.baseDomain), { all: true }, parameters);
      return { rebuilding, ...(await compareCounts(tx, tenant.id, people, parameters, limit)) };
    });
  }

  /** The background rebuild: takes up every tenant whose rebuild was asked for, now and then and when woken. */
  rebuilding(): Running {
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    let again = false;
    let stopped = false;
    const pass = async () => {
      for (const tenantId of await requestedRebuilds(this.options.sql)) {
        if (stopped) return;
        const tenant = await findTenantById(this.options.sql, tenantId);
        if (tenant === undefined) continue;
        const started = Date.now();
        await this.rebuild(tenant);
        this.options.log.info({ tenant: tenant.name, ms: Date.now() - started }, 'kept report counts rebuilt');
      }
    };
    const run = () => {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      again = false;
      running = pass()
        .catch((error: unknown) =>
          this.options.log.error({ err: error }, 'the rebuild of the kept report counts failed; it is tried again'),
        )
        .finally(() => {
          running = undefined;
          if (!stopped) timer = setTimeout(run, again ? 0 : REBUILD_POLL_MS);
        });
    };
    return {
      start: () => {
        this.wake = () => {
          clearTimeout(timer);
          run();
        };
        run();
      },
      stop: async () => {
        stopped = true;
        this.wake = undefined;
        clearTimeout(timer);
        await running;
      },
    };
  }
}
