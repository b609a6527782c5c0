import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import { competencyRoutes } from './competency.routes.js';
import { skillsGapRoutes } from './skills-gap.routes.js';
import { assignmentRoutes } from './assignment.routes.js';
import { reportRoutes } from './report.routes.js';

/**
 * What the organisation's data is imported for (docs/learning.md): the competency catalogue and
 * the activities developing each competency, and on them skills gaps, recommendations,
 * assignments, managers' views and reports.
 */
export const learningModule: FastifyPluginAsync<ModuleOptions> = async (app, { config, sql }) => {
  await app.register(competencyRoutes, { sql });
  await app.register(skillsGapRoutes, { sql, baseDomain: config.baseDomain });
  await app.register(assignmentRoutes, { sql, baseDomain: config.baseDomain });
  await app.register(reportRoutes, { sql, baseDomain: config.baseDomain });
};
