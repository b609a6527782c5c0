import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import { activitiesRoutes } from './activity-definitions/activity-definition.routes.js';
import { agentsRoutes } from './agents/agent.routes.js';
import { documentsPlugin } from './documents/document.plugin.js';
import { attachmentStoreFor } from './statements/attachment.store.js';
import { statementsRoutes } from './statements/statement.routes.js';

/**
 * The xAPI resources: documents, statements, activities and agents. What every `/xapi/` request
 * shares (CORS, the version header) is xapi.plugin.ts, registered before authentication.
 */
export const xapiModule: FastifyPluginAsync<ModuleOptions> = async (app, { config, sql }) => {
  await app.register(documentsPlugin, { sql, documentLimitBytes: config.documentLimitBytes });
  await app.register(statementsRoutes, {
    sql,
    attachmentLimitBytes: config.xapiAttachmentLimitBytes,
    attachmentStore: attachmentStoreFor(config.database),
    batchLimit: config.statementBatchLimit,
  });
  await app.register(activitiesRoutes, { sql });
  await app.register(agentsRoutes, { sql });
};
