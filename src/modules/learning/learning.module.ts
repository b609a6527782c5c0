import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import { competencyRoutes } from './competency.routes.js';
import { reportRoutes } from './report.routes.js';

/**
 * What the organisation's data is imported for (docs/learning.md): the competency catalogue and
 * the activities developing each competency, and on them skills gaps, recommendations,
 * assignments, managers' views and reports.
 */
export const learningModule: FastifyPluginAsync<ModuleOptions> = async (app, { sql, config }) => {
  await app.register(competencyRoutes, { sql });
  await app.register(reportRoutes, { sql, baseDomain: config.baseDomain });
};
