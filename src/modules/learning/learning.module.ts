import { declareModule } from '../../kernel/module-declaration.js';
import { WorkQueue } from '../../platform/http/work-queue.js';
import { competencyRoutes } from './competencies/competency.routes.js';
import { skillsGapRoutes } from './skills-gaps/skills-gap.routes.js';
import { assignmentRoutes } from './assignments/assignment.routes.js';
import { reportRoutes } from './reports/report.routes.js';
import { assignmentPeopleChanges } from './assignments/assignment-membership.service.js';
import { KeptCounts } from './reports/kept-counts.service.js';

/** What learning's build makes: the reports' queue and kept counts (the command line's `reports verify` and `rebuild` use them). */
export interface LearningServices {
  reports: WorkQueue;
  counts: KeptCounts;
}

/** Reports waiting for a place at most, in one process; one more is refused with 503 (docs/operations.md, "Reports in flight"). */
const REPORTS_WAITING = 50;

/**
 * What the organisation's data is imported for (docs/learning.md): the competency catalogue and
 * the activities developing each competency, and on them skills gaps, recommendations,
 * assignments, managers' views and reports. Its dynamic assignments hear of every person written
 * (the port `peopleChanged`).
 */
export const learningDeclaration = declareModule<LearningServices>({
  name: 'learning',
  cascadesFrom: ['actors'],
  needs: ['activities', 'actors', 'completions', 'organisation', 'tenancy', 'xapi'],
  build: ({ config, sql, log }) => {
    const counts = new KeptCounts({ sql, baseDomain: config.baseDomain, log, inlinePeople: config.keptCountsInlinePeople });
    const assignments = assignmentPeopleChanges(config.baseDomain);
    return {
      // Reports, and an assignment's counts and people, cost the database up to seconds each (the
      // statuses are read when asked): a few at once, the others waiting their turn.
      services: { reports: new WorkQueue('reports', config.reportsInFlight, REPORTS_WAITING, 5), counts },
      fills: {
        // The dynamic assignments follow the people, then the kept counts do, the locks of both taken first.
        peopleChanged: counts.peopleChangesAround(assignments),
        statementProjection: counts.projection,
        activitiesChanged: counts.activitiesChanged,
      },
      workers: [counts.rebuilding()],
    };
  },
  routes: async (app, { config, sql, services: { reports } }) => {
    await app.register(competencyRoutes, { sql });
    await app.register(skillsGapRoutes, { sql, baseDomain: config.baseDomain });
    await app.register(assignmentRoutes, { sql, baseDomain: config.baseDomain, reports });
    await app.register(reportRoutes, { sql, baseDomain: config.baseDomain, reports });
  },
});
