import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Principal } from '../../../kernel/principal.js';
import { getTenantSettings, peopleSql, type Criteria, readableActorCondition } from '../../actors/index.js';
import { registeredActivitiesSql } from '../../activities/index.js';
import { completionRecordsSql } from '../../completions/index.js';
import {
  type EntryTree,
  entryTree,
  existingJobIds,
  listJobs,
  type OrgEntry,
  organisationStructure,
  subtreeOf,
} from '../../organisation/index.js';
import { statementTalliesSql, statementTotals } from '../../xapi/index.js';
import { assignmentSeen } from '../assignments/assignment.service.js';
import { readComplianceCounts } from './kept-compliance.repository.js';
import { readUnitCounts } from './kept-counts.repository.js';
import { ReportErrors } from './report.errors.js';
import {
  activityFigures,
  countAssignmentStatuses,
  countCompletions,
  countTallies,
  FEW_PEOPLE,
  type CompletionSources,
  type TallyCounts,
} from './report.repository.js';
import {
  COMPLIANCE,
  COMPLIANCE_OF_STATUS,
  complianceFigures,
  dateRange,
  figures,
  fillIntervals,
  isRangeProblem,
  noCompliance,
  rollUp,
  unitPage,
  weekStartOf,
  type CompletionCounts,
  type ComplianceCounts,
  type Interval,
} from './report-rules.js';
import {
  type ActivityOverTimeQuery,
  type AssignmentComplianceQuery,
  type CompletionReportQuery,
  UNIT_PAGE,
  type UnitReportQuery,
} from './report.schemas.js';

/**
 * The reports (docs/learning.md, "Reports"): completion per organisation entry (rolled up the
 * structure), per job and per activity, activity over time, and assignment compliance per
 * organisation entry. Each is one statement over the owner modules' fragments, read when asked (no
 * batch, no stale cache): right the moment the writes that change it are acknowledged. Every report is a
 * `Report`: its JSON body, and the items its CSV has a row for, with the columns a CSV has even
 * when there are none.
 */
export interface Report {
  body: Record<string, unknown>;
  rows: Record<string, unknown>[];
  columns: string[];
  /** A report by entry: the page shown, and how many entries there are in all. */
  page?: { limit: number; skip: number; shown: number; total: number };
}

/**
 * Who asks: a principal of the tenant (an admin or API key, of the whole tenant or limited to an
 * organisation subtree: then the report counts only the people it reaches, person-access.service.ts),
 * and the base domain its settings' default homePage is made of.
 */
export interface ReportContext {
  sql: SqlClient;
  principal: Principal;
  baseDomain: string;
  /** Up to how many people a report reads their rows person by person (FEW_PEOPLE; a test lowers it to try the other way). */
  fewPeople?: number;
  /**
   * Runs a count from the records (seconds at 100,000 people) in its turn, beside a few others
   * at most (the route's WorkQueue); a read of the kept counts runs at once. Unset: at once.
   */
  queued?: <T>(work: () => Promise<T>) => Promise<T>;
}

/** Which people a report counts. */
export interface PeopleFilters {
  organisationId?: string;
  jobId?: string;
}

/**
 * The one place that says which people a report counts, in the actor search's criteria language
 * (compiled by the actors module, so `organisation.*` and `job.*` mean what they mean in a
 * search): those placed in the `organisationId` entry or below it, whose current job is `jobId`.
 * A scope (an admin limited to a subtree) is one more condition, added by selectPeople.
 */
export function peopleCriteria(filters: PeopleFilters): Criteria {
  const conditions: Criteria[] = [];
  if (filters.organisationId !== undefined) {
    conditions.push({
      or: [
        { field: 'organisation.id', op: 'eq', value: filters.organisationId },
        { field: 'organisation.ancestors.id', op: 'eq', value: filters.organisationId },
      ],
    });
  }
  if (filters.jobId !== undefined) conditions.push({ field: 'job.id', op: 'eq', value: filters.jobId });
  return conditions.length === 0 ? { all: true } : { and: conditions };
}

/**
 * What a report's filters select, checked: the tree of the entries it reports on (the structure,
 * or the subtree of `organisationId`, and for a scoped principal only the entries of its subtree:
 * an entry above it would show the roll-up of people outside), and whether it is narrowed to
 * them (a subtree or a scope) or is the whole tenant.
 */
interface Selection {
  tree: EntryTree<OrgEntry>;
  narrowed: boolean;
}

/**
 * The filters checked (404 for an entry or a job that does not exist, or an entry outside a
 * scoped principal's subtree), and what checking them read: the structure (this process's copy)
 * and a scoped principal's entries. A report that counts people from the records needs no more.
 */
async function checkFilters(
  context: ReportContext,
  filters: PeopleFilters,
): Promise<{ structure: EntryTree<OrgEntry>; scope: ReadonlySet<string> | undefined }> {
  const { sql, principal } = context;
  const { tenant } = principal;
  const structure = await organisationStructure(sql, tenant.id);
  if (filters.jobId !== undefined && !(await existingJobIds(sql, tenant.id, [filters.jobId])).size) {
    throw ReportErrors.jobNotFound(filters.jobId);
  }
  const scope =
    principal.scope === undefined ? undefined : new Set(subtreeOf(structure, principal.scope.organisationId).map((entry) => entry.id));
  if (
    filters.organisationId !== undefined &&
    !(scope === undefined ? structure.index.has(filters.organisationId) : scope.has(filters.organisationId))
  ) {
    throw ReportErrors.organisationNotFound(filters.organisationId);
  }
  return { structure, scope };
}

/**
 * The entries a report's filters select, after checking that the entry and the job named exist
 * (404). For a scoped principal an entry outside its subtree is the same 404 as an entry that does
 * not exist: nothing tells the two apart. The whole structure is this process's copy of it
 * (organisation-copy.service.ts), read again only when it was replaced.
 */
async function selectEntries(context: ReportContext, filters: PeopleFilters): Promise<Selection> {
  const { structure, scope } = await checkFilters(context, filters);
  if (filters.organisationId === undefined && scope === undefined) return { tree: structure, narrowed: false };
  const entries = filters.organisationId === undefined ? structure.entries : subtreeOf(structure, filters.organisationId);
  return { tree: entryTree(scope === undefined ? entries : entries.filter((entry) => scope.has(entry.id))), narrowed: true };
}

/**
 * The people a report counts, as SQL (peopleSql's columns), narrowed to those the principal
 * reaches; read only by a report that counts from the records.
 */
async function selectPeople(
  context: ReportContext,
  filters: PeopleFilters,
  parameters: SqlValues,
  /** false: the people's `job_id` is not read (NULL), for a report that groups them by position only. */
  jobs = true,
): Promise<string> {
  const { sql, principal } = context;
  // As POST /api/actors/search reads the criteria: the tenant's settings, the principal's reach.
  const settings = await getTenantSettings(sql, principal.tenant, context.baseDomain);
  const reach = readableActorCondition(principal, 'a', '$1', (value) => parameters.bind(value));
  return peopleSql(settings, peopleCriteria(filters), parameters, { reach, jobs });
}

/**
 * The activity set of a completion report, as SQL (`id`, `requires_success`, `name`,
 * `registered`): `activityId`, registered or not (an activity outside the registry completes with
 * `completedAt`), else the registered activities with `tag`, else every registered activity.
 */
function activitySet(query: CompletionReportQuery, parameters: SqlValues): string {
  if (query.activityId !== undefined && query.tag !== undefined) throw ReportErrors.activityAndTag();
  if (query.activityId !== undefined) {
    const id = parameters.bind(query.activityId);
    return `SELECT w.id, COALESCE(x.requires_success, false) AS requires_success, x.name, x.id IS NOT NULL AS registered
              FROM (SELECT ${id}::text COLLATE "C" AS id) w LEFT JOIN (${registeredActivitiesSql('$1', { id })}) x ON true`;
  }
  const tag = query.tag === undefined ? undefined : parameters.bind(query.tag);
  return `SELECT x.id, x.requires_success, x.name, true AS registered FROM (${registeredActivitiesSql('$1', { tag })}) x`;
}

async function completionSources(
  context: ReportContext,
  query: CompletionReportQuery,
  parameters: SqlValues,
  jobs = true,
): Promise<CompletionSources> {
  return {
    people: await selectPeople(context, query, parameters, jobs),
    fewPeople: context.fewPeople ?? FEW_PEOPLE,
    activities: activitySet(query, parameters),
    records: completionRecordsSql('$1'),
  };
}

const NONE: CompletionCounts = { people: 0, completed: 0 };

/** The entries a report by entry shows (`depth`, then the page: docs/learning.md, "Paging and depth"), and the page. */
function pageOfUnits<Entry extends { id: string; parentId?: string }>(
  tree: EntryTree<Entry>,
  query: { depth?: number; limit?: number; skip?: number },
): { shown: Entry[]; page: NonNullable<Report['page']> } {
  const limit = query.limit ?? UNIT_PAGE.default;
  const skip = query.skip ?? 0;
  const { shown, total } = unitPage(tree, { depth: query.depth, limit, skip });
  return { shown, page: { limit, skip, shown: shown.length, total } };
}

/** The figures of a completion report per group, and how many activities they are over. */
interface GroupedCompletions {
  activities: number;
  groups: Map<string, CompletionCounts>;
  counts: 'kept' | 'recounted';
}

/**
 * The completion figures per entry or per job of the selected people: read from the kept counts
 * (kept-counts.repository.ts) when they hold them, else recounted from the records. The kept counts
 * are per (entry, job) over the registered activities: they serve the whole tenant, a subtree
 * (`positions`: its entries, also a scoped principal's), a job, and any of these together, not a
 * tag or one activity; nor a tenant whose counts are being rebuilt.
 */
async function groupedCompletions(
  context: ReportContext,
  query: CompletionReportQuery,
  group: 'position_id' | 'job_id',
  positions: readonly string[] | undefined,
): Promise<GroupedCompletions> {
  const { sql, principal } = context;
  if (query.tag === undefined && query.activityId === undefined) {
    const parameters = new SqlValues([principal.tenant.id]);
    const kept = await readUnitCounts(sql, parameters, group, {
      jobId: query.jobId === undefined ? undefined : parameters.bind(query.jobId),
      positionIds: positions === undefined ? undefined : parameters.bind([...positions]),
    });
    if (kept !== undefined) return { ...kept, counts: 'kept' };
  }
  const queued = context.queued ?? ((work) => work());
  const parameters = new SqlValues([principal.tenant.id]);
  // Grouped by position, the people's jobs are not read (a jobId filter is a criterion of its own).
  const sources = await completionSources(context, query, parameters, group === 'job_id');
  return { ...(await queued(() => countCompletions(sql, parameters, sources, group))), counts: 'recounted' };
}

/**
 * `GET /api/reports/completion-by-unit`: every entry of the structure (or of the subtree of
 * `organisationId`) with the people placed directly in it and in its whole subtree, and their
 * completion of the activity set.
 */
export async function completionByUnit(context: ReportContext, query: UnitReportQuery): Promise<Report> {
  const { tree, narrowed } = await selectEntries(context, query);
  const { activities, groups, counts } = await groupedCompletions(
    context,
    query,
    'position_id',
    narrowed ? tree.entries.map((entry) => entry.id) : undefined,
  );
  const subtrees = rollUp(tree, groups, NONE);
  const { shown, page } = pageOfUnits(tree, query);
  const units = shown.map((entry) => ({
    id: entry.id,
    parentId: entry.parentId ?? null,
    direct: figures(groups.get(entry.id) ?? NONE, activities),
    subtree: figures(subtrees(entry.id), activities),
    attributes: entry.attributes,
  }));
  return {
    body: { activities, counts, units },
    rows: units,
    columns: ['id', 'parentId', 'direct.people', 'direct.completed', 'direct.rate', 'subtree.people', 'subtree.completed', 'subtree.rate'],
    page,
  };
}

/** `GET /api/reports/completion-by-job`: every job (or `jobId`'s) with the selected people whose current job it is. */
export async function completionByJob(context: ReportContext, query: CompletionReportQuery): Promise<Report> {
  const { tree, narrowed } = await selectEntries(context, query);
  const jobs = (await listJobs(context.sql, context.principal.tenant.id)).filter(
    (job) => query.jobId === undefined || job.id === query.jobId,
  );
  // The people of a subtree (organisationId, a scoped principal's) are those placed in its entries.
  const positions = narrowed ? tree.entries.map((entry) => entry.id) : undefined;
  const { activities, groups, counts } = await groupedCompletions(context, query, 'job_id', positions);
  const items = jobs.map((job) => ({ id: job.id, name: job.name, ...figures(groups.get(job.id) ?? NONE, activities) }));
  return { body: { activities, counts, jobs: items }, rows: items, columns: ['id', 'name', 'people', 'completed', 'rate'] };
}

/** `GET /api/reports/completion-by-activity`: per activity of the set, what the selected people did of it. */
export async function completionByActivity(context: ReportContext, query: CompletionReportQuery): Promise<Report> {
  await checkFilters(context, query);
  const parameters = new SqlValues([context.principal.tenant.id]);
  const sources = await completionSources(context, query, parameters, false);
  const { people, activities } = await activityFigures(context.sql, parameters, sources);
  const items = activities.map(({ name, ...figures }) => (name === null ? figures : { ...figures, name }));
  return {
    body: { people, activities: items },
    rows: items,
    columns: [
      'id',
      'registered',
      'requiresSuccess',
      'attempted',
      'completed',
      'passed',
      'averageScore',
      'scores',
      'medianSecondsToComplete',
    ],
  };
}

/**
 * `GET /api/reports/activity-over-time`: statements per interval and verb, and active learners per
 * interval, from the statement tallies the xapi module keeps. Without a filter, the tenant's
 * totals (every actor, people or not); with `organisationId` or `jobId`, or for a scoped
 * principal, only those people's statements (the tallies per learner); with `activityId`, only
 * the statements whose object is that activity.
 */
export async function activityOverTime(context: ReportContext, query: ActivityOverTimeQuery): Promise<Report> {
  const interval: Interval = query.interval ?? 'day';
  const range = dateRange(query.from, query.to, interval);
  if (isRangeProblem(range)) throw ReportErrors.invalidRange(range.parameter, range.message);
  const week = interval === 'week';
  let counts: TallyCounts;
  const byPeople = query.organisationId !== undefined || query.jobId !== undefined || context.principal.scope !== undefined;
  if (!byPeople && query.activityId === undefined) {
    const totals = await statementTotals(context.sql, context.principal.tenant.id, range.first, range.last, week);
    counts = {
      statements: totals
        .filter((row) => row.kind === 's')
        .map((row) => ({ start: week ? weekStartOf(row.start) : row.start, verbId: row.verbId, count: row.total })),
      learners: totals.filter((row) => row.kind !== 's').map((row) => ({ start: row.start, count: row.total })),
    };
  } else {
    const parameters = new SqlValues([context.principal.tenant.id]);
    if (byPeople) await checkFilters(context, query);
    const people = byPeople ? await selectPeople(context, query, parameters, false) : undefined;
    const tallies = statementTalliesSql('$1', {
      from: parameters.bind(range.first),
      to: parameters.bind(range.last),
      activity: query.activityId === undefined ? undefined : parameters.bind(query.activityId),
    });
    counts = await countTallies(context.sql, parameters, { tallies, people, fewPeople: context.fewPeople ?? FEW_PEOPLE }, week);
  }
  const { verbs, intervals } = fillIntervals(range, counts.statements, counts.learners);
  return {
    body: { from: range.first, to: range.last, interval, verbs, intervals },
    rows: intervals.map((row) => ({ ...row })),
    columns: ['start', 'end', 'statements', 'activeLearners'],
  };
}

/**
 * `GET /api/reports/assignment-compliance`: every entry of the structure (or of the subtree of
 * `organisationId`) with the (person, assignment activity) pairs of the assignments' members now
 * placed directly in it and in its whole subtree, by compliance (the assignments' statuses, read
 * now), with `assignmentId` of that assignment only and `activityId` of that activity only. Read
 * from the compliance counts kept per (entry, job, assignment) (kept-compliance.repository.ts),
 * but with `activityId` (they are over every activity of an assignment) or while a rebuild is
 * asked for: then counted from the records, in the queue.
 */
export async function assignmentCompliance(context: ReportContext, query: AssignmentComplianceQuery): Promise<Report> {
  const { tree, narrowed } = await selectEntries(context, query);
  if (query.assignmentId !== undefined && !(await assignmentSeen(context.sql, context.principal, query.assignmentId))) {
    throw ReportErrors.assignmentNotFound(query.assignmentId);
  }
  const { direct, counts } = await complianceByEntry(context, query, narrowed ? tree.entries.map((entry) => entry.id) : undefined);
  const subtrees = rollUp(tree, direct, noCompliance());
  const { shown, page } = pageOfUnits(tree, query);
  const units = shown.map((entry) => ({
    id: entry.id,
    parentId: entry.parentId ?? null,
    direct: complianceFigures(direct.get(entry.id) ?? noCompliance()),
    subtree: complianceFigures(subtrees(entry.id)),
    attributes: entry.attributes,
  }));
  const figureColumns = (set: string) => [...COMPLIANCE, 'total', 'complianceRate'].map((field) => `${set}.${field}`);
  return {
    body: { counts, units },
    rows: units,
    columns: ['id', 'parentId', ...figureColumns('direct'), ...figureColumns('subtree')],
    page,
  };
}

/** The compliance per entry of the people placed directly in it: kept, or recounted (in the queue). */
async function complianceByEntry(
  context: ReportContext,
  query: AssignmentComplianceQuery,
  positions: readonly string[] | undefined,
): Promise<{ direct: Map<string, ComplianceCounts>; counts: 'kept' | 'recounted' }> {
  const { sql, principal } = context;
  if (query.activityId === undefined) {
    const parameters = new SqlValues([principal.tenant.id]);
    const kept = await readComplianceCounts(sql, parameters, {
      jobId: query.jobId === undefined ? undefined : parameters.bind(query.jobId),
      assignmentId: query.assignmentId === undefined ? undefined : parameters.bind(query.assignmentId),
      positionIds: positions === undefined ? undefined : parameters.bind([...positions]),
    });
    if (kept !== undefined) return { direct: kept, counts: 'kept' };
  }
  const queued = context.queued ?? ((work) => work());
  const parameters = new SqlValues([principal.tenant.id]);
  const people = await selectPeople(context, query, parameters, false);
  const counted = await queued(() =>
    countAssignmentStatuses(sql, parameters, {
      people,
      assignment: query.assignmentId === undefined ? undefined : parameters.bind(query.assignmentId),
      activity: query.activityId === undefined ? undefined : parameters.bind(query.activityId),
    }),
  );
  const direct = new Map<string, ComplianceCounts>();
  for (const { positionId, status, pairs } of counted) {
    const counts = direct.get(positionId) ?? noCompliance();
    counts[COMPLIANCE_OF_STATUS[status]] += pairs;
    direct.set(positionId, counts);
  }
  return { direct, counts: 'recounted' };
}
