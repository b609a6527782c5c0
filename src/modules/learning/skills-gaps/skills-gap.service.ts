import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Principal } from '../../../kernel/principal.js';
import {
  findPersonWithLinks,
  jobOfPosition,
  type PersonWithLinks,
  getTenantSettings,
  readableActorCondition,
  scopeEntryIds,
  peopleSql,
  readSearchCriteria,
  type Criteria,
} from '../../actors/index.js';
import {
  competenciesById,
  jobCompetencies,
  type Competency,
  existingOrganisationIds,
  findJobs,
  OrganisationErrors,
  type Job,
  type OrgEntry,
} from '../../organisation/index.js';
import { personAsked, type PersonQuery as PersonParameters } from '../person-query.service.js';
import { SkillsGapErrors } from './skills-gap.errors.js';
import { countGroupGap, findEvidence, type PeopleStatement } from './skills-gap.repository.js';
import { gapOf, MAX_EVIDENCE, readGroupBody, readTarget, type GroupSelection, type TargetAsked } from './skills-gap-rules.js';

/** What a person's gap or recommendations are about: the person, the job measured against, and how it was chosen. */
export interface ResolvedTarget {
  person: PersonWithLinks;
  /** `current`: the person's current job; `next`: the job of their position's parent; `job`: the jobId asked for. */
  kind: TargetAsked['kind'];
  job: Job;
  /** With `next`: the position whose job it is (the person's position's parent). */
  position?: OrgEntry;
  /** The job's competencies, in the job's order. */
  competencies: Competency[];
}

export interface PersonQuery extends PersonParameters {
  target?: 'current' | 'next';
  jobId?: string;
}

/**
 * The person a request asks about (who may read whom: person-access.service.ts) and the job
 * their gap is measured against, with its competencies; the 4xx of docs/learning.md for a person,
 * a job or a position the data does not have.
 */
export async function resolveTarget(sql: SqlClient, principal: Principal, query: PersonQuery, baseDomain: string): Promise<ResolvedTarget> {
  const asked = readTarget(query);
  const agentKey = await personAsked(sql, principal, query);
  const tenantId = principal.tenant.id;
  const person = await findPersonWithLinks(sql, principal.tenant, agentKey, baseDomain);
  if (!person) throw SkillsGapErrors.personNotFound(agentKey);
  const chosen = await targetJob(sql, tenantId, person, asked);
  const competencies = (await jobCompetencies(sql, tenantId, [chosen.job.id])).get(chosen.job.id) ?? [];
  return { person, kind: asked.kind, ...chosen, competencies };
}

async function targetJob(
  sql: SqlClient,
  tenantId: string,
  person: PersonWithLinks,
  asked: TargetAsked,
): Promise<{ job: Job; position?: OrgEntry }> {
  switch (asked.kind) {
    case 'job': {
      const job = (await findJobs(sql, tenantId, [asked.jobId])).get(asked.jobId);
      if (!job) throw SkillsGapErrors.jobNotFound(asked.jobId);
      return { job };
    }
    case 'current':
      if (!person.links.job) throw SkillsGapErrors.noCurrentJob(person.agentKey);
      return { job: person.links.job };
    case 'next': {
      const position = person.links.organisation;
      if (!position) throw SkillsGapErrors.noPosition(person.agentKey);
      // Imports keep every parentId naming an entry, so a position with a parent has it first among its ancestors.
      const parent = position.ancestors[0];
      if (position.entry.parentId === undefined || !parent) throw SkillsGapErrors.rootPosition(position.entry.id);
      const job = await jobOfPosition(sql, tenantId, parent, person.settings);
      if (!job) throw SkillsGapErrors.noParentJob(position.entry.id, parent.id);
      return { job, position: parent };
    }
  }
}

/** The shared head of a gap and of recommendations: the person, the target, the job. */
export function targetHead(target: ResolvedTarget) {
  return {
    actor: target.person.agent,
    target: target.kind,
    ...(target.position ? { position: { id: target.position.id, attributes: target.position.attributes } } : {}),
    job: { id: target.job.id, name: target.job.name },
  };
}

/** GET /api/skills-gap: the target job's competencies, each held (with its evidence) or missing. */
export async function personGap(sql: SqlClient, principal: Principal, query: PersonQuery, baseDomain: string) {
  const target = await resolveTarget(sql, principal, query, baseDomain);
  const evidence = await findEvidence(
    sql,
    principal.tenant.id,
    target.person.agentKey,
    target.competencies.map((competency) => competency.id),
    MAX_EVIDENCE,
  );
  return { ...targetHead(target), ...gapOf(target.competencies, evidence) };
}

/**
 * The criteria of the actor search that select the people of an organisation entry (it and every
 * entry below it) or of a job, once the entry or job is known to exist (404 otherwise). For a
 * principal limited to a subtree, an entry outside it is not found either: what it does not
 * reach, it is never told about, even as a count.
 */
async function criteriaOf(sql: SqlClient, principal: Principal, people: Exclude<GroupSelection, { criteria: unknown }>): Promise<Criteria> {
  const tenantId = principal.tenant.id;
  if ('organisationId' in people) {
    const id = people.organisationId;
    const inScope = (await scopeEntryIds(sql, principal)) ?? (await existingOrganisationIds(sql, tenantId, [id]));
    if (!inScope.has(id)) throw OrganisationErrors.entryNotFound(id);
    return {
      or: [
        { field: 'organisation.id', op: 'eq', value: id },
        { field: 'organisation.ancestors.id', op: 'eq', value: id },
      ],
    };
  }
  if (!(await findJobs(sql, tenantId, [people.jobId])).has(people.jobId)) throw SkillsGapErrors.jobNotFound(people.jobId);
  return { field: 'job.id', op: 'eq', value: people.jobId };
}

/**
 * POST /api/skills-gap/group: the people a body selects (imported or upserted ones only) among those
 * the principal reaches, and per competency their target jobs require, how many it is required of,
 * hold it and lack it.
 */
export async function groupGap(sql: SqlClient, principal: Principal, body: unknown, baseDomain: string) {
  const { tenant } = principal;
  const asked = readGroupBody(body);
  // Every 400 before any 404: the criteria are read before the ids are looked up.
  const { people: chosen } = asked;
  const read: { criteria: Criteria } | { ids: Exclude<GroupSelection, { criteria: unknown }> } =
    'criteria' in chosen ? { criteria: readSearchCriteria(chosen.criteria, '/people/criteria') } : { ids: chosen };
  const targetJob = asked.jobId === undefined ? undefined : (await findJobs(sql, tenant.id, [asked.jobId])).get(asked.jobId);
  if (asked.jobId !== undefined && !targetJob) throw SkillsGapErrors.jobNotFound(asked.jobId);
  const criteria = 'criteria' in read ? read.criteria : await criteriaOf(sql, principal, read.ids);
  const settings = await getTenantSettings(sql, tenant, baseDomain);
  const parameters = new SqlValues([tenant.id]);
  const reach = readableActorCondition(principal, 'a', '$1', (value) => parameters.bind(value));
  const people: PeopleStatement = { sql: peopleSql(settings, criteria, parameters, { reach }), parameters };
  const counts = await countGroupGap(sql, people, targetJob?.id);
  // One target job: its competencies in its order, each listed even when nobody is selected.
  // Each person's own: the competencies some selected person's job requires, in catalogue order.
  const listed = targetJob
    ? ((await jobCompetencies(sql, tenant.id, [targetJob.id])).get(targetJob.id) ?? [])
    : await competenciesById(
        sql,
        tenant.id,
        counts.competencies.map((counted) => counted.competencyId),
      );
  const countOf = new Map(counts.competencies.map((counted) => [counted.competencyId, counted]));
  return {
    selected: counts.selected,
    withTargetJob: counts.withTargetJob,
    ...(targetJob ? { job: { id: targetJob.id, name: targetJob.name } } : {}),
    competencies: listed.map(({ id, name }) => {
      const required = countOf.get(id)?.required ?? 0;
      const held = countOf.get(id)?.held ?? 0;
      return { id, name, required, held, missing: required - held };
    }),
  };
}
