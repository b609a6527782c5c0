import type { FastifyBaseLogger } from 'fastify';
import { lockForTransaction } from '../../../platform/database/advisory-lock.js';
import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { ActivitiesChanged } from '../../../kernel/activities-changed.port.js';
import type { Running } from '../../../kernel/module-declaration.js';
import type { PeopleChanges } from '../../../kernel/people-changes.port.js';
import type { Tenant } from '../../../kernel/principal.js';
import type { StatementProjection } from '../../../kernel/statement-projection.port.js';
import { getTenantSettings, peopleSql } from '../../actors/index.js';
import { recordsTouchedBy } from '../../completions/index.js';
import { findTenantById } from '../../tenancy/index.js';
import {
  compareClasses,
  compareProgress,
  foldClasses,
  recountClasses,
  refreshProgress,
  tenantsToFold,
} from '../assignments/assignment-progress.repository.js';
import { compareCompliance, complianceToFold, foldCompliance, recountCompliance } from './kept-compliance.repository.js';
import {
  compareCounts,
  countCountedPeople,
  countPeopleWithRecordsOf,
  type CountDifferences,
  lockCounts,
  lockKeptRows,
  movePeople,
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

/**
 * The member rows now whose progress a statement write may change (over `m`; `$2`, `$3`: the
 * touched pairs' agent keys and activity ids): the rows of the people whose records changed, in
 * the assignments of the activities they changed, and no other.
 */
const TOUCHED_MEMBERS = `m.left_at IS NULL AND (m.assignment_id, m.agent_key) IN (
  SELECT x.assignment_id, p.agent_key FROM unnest($2::text[], $3::text[]) AS p(agent_key, activity_id)
    JOIN learning_assignment_activities x ON x.tenant_id = $1 AND x.activity_id = p.activity_id)`;

const pairArrays = (pairs: ReadonlyArray<{ agentKey: string; activityId: string }>) => [
  pairs.map((pair) => pair.agentKey),
  pairs.map((pair) => pair.activityId),
];

/** How often the background rebuild looks for requests that no process of its own made (another process's, an upgrade's). */
const REBUILD_POLL_MS = 10_000;

/**
 * How many people a change of everyone places again (movePeople: their entry and job, no records
 * read but the newly counted's) for the cost of re-deriving one person from their records.
 */
const MOVES_PER_PERSON = 5;

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

  /**
   * The statement write's part: the progress of the members now whose records the statements
   * changed, then the evidence of the counted people among them.
   */
  readonly projection: StatementProjection = async (tx, tenantId, inserted) => {
    const touched = await recordsTouchedBy(tx, tenantId, inserted);
    if (touched.length === 0) return;
    const agentKeys = [...new Set(touched.map((pair) => pair.agentKey))];
    if (agentKeys.length > PERSON_LOCKS) await lockCounts(tx, tenantId, { tenant: 'exclusive', assignments: 'shared' });
    else await lockCounts(tx, tenantId, { tenant: 'shared', assignments: 'shared', people: { agentKeys, mode: 'shared' } });
    const kept = await lockKeptRows(tx, tenantId, touched);
    if (kept.rebuilding) return;
    if (kept.members) await refreshProgress(tx, TOUCHED_MEMBERS, [tenantId, ...pairArrays(touched)]);
    if (kept.counted.length > 0) await refreshEvidence(tx, tenantId, kept.counted);
  };

  /**
   * The writers of people's part, around the dynamic assignments' refresh (`assignments`): the
   * locks first (the tenant's and the assignments' shared and each person's alone, or the
   * tenant's and the assignments' alone for everyone or many), then the refresh of the
   * memberships, then the progress of the people's member rows and whether and where they are
   * counted.
   */
  peopleChangesAround(assignments: PeopleChanges): PeopleChanges {
    return {
      changed: async (tx, tenant, change) => {
        const agentKeys = change.kind === 'people' ? [...new Set(change.agentKeys)] : undefined;
        if (agentKeys?.length === 0) return;
        if (agentKeys !== undefined && agentKeys.length <= PERSON_LOCKS) {
          await lockCounts(tx, tenant.id, { tenant: 'shared', assignments: 'shared', people: { agentKeys, mode: 'exclusive' } });
        } else await lockCounts(tx, tenant.id, { tenant: 'exclusive', assignments: 'exclusive' });
        await assignments.changed(tx, tenant, change);
        await this.peopleChanged(tx, tenant, agentKeys);
      },
    };
  }

  /** The registry's part: the progress of the members of assignments of the activities stored, and the evidence of the people with records of them. */
  readonly activitiesChanged: ActivitiesChanged = async (tx, tenantId, activityIds) => {
    if (activityIds.length === 0) return;
    await lockCounts(tx, tenantId, { tenant: 'exclusive', assignments: 'exclusive' });
    if (await rebuildRequested(tx, tenantId)) return;
    if ((await countPeopleWithRecordsOf(tx, tenantId, activityIds)) > this.inlinePeople) return this.requestRebuild(tx, tenantId);
    await refreshProgress(
      tx,
      `m.left_at IS NULL AND m.assignment_id IN (
         SELECT a.assignment_id FROM learning_assignment_activities a WHERE a.tenant_id = $1 AND a.activity_id = ANY($2::text[]))`,
      [tenantId, [...activityIds]],
    );
    await refreshEvidenceOfActivities(tx, tenantId, activityIds);
  };

  private async peopleChanged(tx: SqlClient, tenant: Pick<Tenant, 'id' | 'name'>, agentKeys: readonly string[] | undefined): Promise<void> {
    if (await rebuildRequested(tx, tenant.id)) return;
    // A change of everyone moves people without reading their records: five times as many inline.
    const many = agentKeys === undefined ? (await countCountedPeople(tx, tenant.id)) / MOVES_PER_PERSON : agentKeys.length;
    if (many > this.inlinePeople) return this.requestRebuild(tx, tenant.id);
    const parameters = new SqlValues([tenant.id]);
    const people = peopleSql(await getTenantSettings(tx, tenant, this.options.baseDomain), { all: true }, parameters);
    if (agentKeys === undefined) {
      // A change of everyone moves people and changes no record: the progress of the member rows
      // that joined or left in this transaction (the others' does not depend on where people are
      // placed), and each person's entry and job, the evidence of those newly counted alone.
      await refreshProgress(tx, '(m.joined_at = now() OR m.left_at = now())', [tenant.id]);
      await movePeople(tx, tenant.id, people, parameters);
    } else {
      await refreshProgress(tx, 'm.agent_key = ANY($2::text[])', [tenant.id, agentKeys]);
      await refreshPeople(tx, tenant.id, people, parameters, agentKeys);
    }
  }

  private async requestRebuild(tx: SqlClient, tenantId: string): Promise<void> {
    await requestRebuild(tx, tenantId);
    // Once the request commits: the background rebuild looks again in a moment, and finds it.
    setTimeout(() => this.wake?.(), 100).unref();
  }

  /**
   * Makes the tenant's counts and its members' progress again from the records and the people,
   * in one transaction holding the tenant's and the assignments' locks (its statement writes wait
   * meanwhile); the request, if any, is done.
   */
  async rebuild(tenant: Pick<Tenant, 'id' | 'name'>): Promise<void> {
    await this.options.sql.transaction(async (tx) => {
      await lockCounts(tx, tenant.id, { tenant: 'exclusive', assignments: 'exclusive' });
      const parameters = new SqlValues([tenant.id]);
      const people = peopleSql(await getTenantSettings(tx, tenant, this.options.baseDomain), { all: true }, parameters);
      await refreshProgress(tx, 'true', [tenant.id]);
      await recountClasses(tx, 'true', [tenant.id]);
      await rebuildCounts(tx, tenant.id, people, parameters);
      await recountCompliance(tx, 'true', [tenant.id]);
    });
  }

  /**
   * Folds the tenant's rows of deltas of assignment classes and compliance, with the tenant's and
   * the assignments' locks shared (a recount of an assignment's rows, which holds them alone,
   * never deletes rows beside a fold) and the fold's own alone (two processes fold one after the
   * other; the second finds nothing left). Statement writes only insert rows: they never wait.
   */
  async fold(tenantId: string): Promise<void> {
    await this.options.sql.transaction(async (tx) => {
      await lockCounts(tx, tenantId, { tenant: 'shared', assignments: 'shared' });
      await lockForTransaction(tx, `learning-counts-fold:${tenantId}`);
      await foldClasses(tx, tenantId);
      await foldCompliance(tx, tenantId);
    });
  }

  /** The kept counts and progress compared with a recount (at most `limit` differences of each kind). */
  async verify(tenant: Pick<Tenant, 'id' | 'name'>, limit = 20): Promise<CountDifferences & { rebuilding: boolean }> {
    return this.options.sql.transaction(async (tx) => {
      // The locks alone: what is compared is never half a write (a repeatable snapshot would not
      // see the writes that commit while the recount runs; the locks make them wait).
      await lockCounts(tx, tenant.id, { tenant: 'exclusive', assignments: 'exclusive' });
      const rebuilding = (await rebuildRequested(tx, tenant.id)) !== undefined;
      const parameters = new SqlValues([tenant.id]);
      const people = peopleSql(await getTenantSettings(tx, tenant, this.options.baseDomain), { all: true }, parameters);
      const counts = await compareCounts(tx, people, parameters, limit);
      return {
        rebuilding,
        ...counts,
        members: await compareProgress(tx, tenant.id, limit),
        classes: await compareClasses(tx, tenant.id, limit),
        compliance: await compareCompliance(tx, tenant.id, limit),
      };
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
      // The assignments' deltas folded: an assignment's counts stay a read of one row or a few.
      const folding = new Set([...(await tenantsToFold(this.options.sql)), ...(await complianceToFold(this.options.sql))]);
      for (const tenantId of folding) {
        if (stopped) return;
        await this.fold(tenantId);
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
          // Unreferenced: a timer of its own never keeps a process alive (an app a test left open).
          if (!stopped) timer = setTimeout(run, again ? 0 : REBUILD_POLL_MS).unref();
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
