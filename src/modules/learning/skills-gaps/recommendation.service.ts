import { SqlValues } from '../../../platform/database/sql-filters.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { Principal } from '../../../kernel/principal.js';
import { peopleSql, readableActorCondition } from '../../actors/index.js';
import { findEvidence, findRecommendations } from './skills-gap.repository.js';
import { resolveTarget, targetHead, type PersonQuery } from './skills-gap.service.js';
import { DEFAULT_RECOMMENDATIONS } from './skills-gap-rules.js';

/**
 * GET /api/recommendations: the registered activities that develop the competencies the person
 * misses for the target job and that they have not completed, ranked (findRecommendations), each
 * with the missing competencies it covers (in the job's order) and how many people of the
 * person's current job completed it.
 */
export async function recommendations(sql: SqlClient, principal: Principal, query: PersonQuery & { limit?: number }, baseDomain: string) {
  const target = await resolveTarget(sql, principal, query, baseDomain);
  const tenantId = principal.tenant.id;
  // Held or not is all that matters here: one record of evidence is enough.
  const evidence = await findEvidence(
    sql,
    tenantId,
    target.person.agentKey,
    target.competencies.map((competency) => competency.id),
    1,
  );
  const missing = target.competencies.filter((competency) => !evidence.has(competency.id));
  // Peers: the people of the person's CURRENT job, whatever the target; none without one. For an
  // admin or API key limited to a subtree, only those it reaches: a count over the others would
  // tell it what they completed. A learner (a manager or not) sees the job's popularity whole.
  const currentJob = target.person.links.job;
  const parameters = new SqlValues([tenantId]);
  const reach = principal.scope === undefined ? undefined : readableActorCondition(principal, 'a', '$1', (value) => parameters.bind(value));
  const peers = currentJob
    ? {
        sql: peopleSql(target.person.settings, { field: 'job.id', op: 'eq', value: currentJob.id }, parameters, { jobs: false, reach }),
        parameters,
      }
    : undefined;
  const found = await findRecommendations(
    sql,
    tenantId,
    target.person.agentKey,
    missing.map((competency) => competency.id),
    peers,
    query.limit ?? DEFAULT_RECOMMENDATIONS,
  );
  return {
    ...targetHead(target),
    missing: missing.map(({ id, name }) => ({ id, name })),
    recommendations: found.map((activity) => {
      const covered = new Set(activity.competencyIds);
      return {
        activity: {
          id: activity.activityId,
          ...(activity.name ? { name: activity.name } : {}),
          ...(activity.launchUrl ? { launchUrl: activity.launchUrl } : {}),
        },
        covers: missing.filter((competency) => covered.has(competency.id)).map(({ id, name }) => ({ id, name })),
        peers: activity.peers,
      };
    }),
  };
}
