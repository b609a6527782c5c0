import { declareModule } from '../../kernel/module-declaration.js';
import { outOfScope } from '../../kernel/principal.js';
import { activitiesRoutes } from './activity-definitions/activity-definition.routes.js';
import { agentsRoutes } from './agents/agent.routes.js';
import { documentsPlugin } from './documents/document.plugin.js';
import { attachmentStoreFor } from './statements/attachments/attachment.store.js';
import { statementsRoutes } from './statements/statement.routes.js';
import { eraseTenantStatements } from './statements/statement.service.js';

/**
 * The xAPI resources: documents, statements, activities and agents. What every `/xapi/` request
 * shares (CORS, the version header) is xapi.plugin.ts, registered before authentication. It erases
 * the tenant's statement keys and tallies, which have no foreign key to tenants.
 */
export const xapiDeclaration = declareModule<undefined>({
  name: 'xapi',
  needs: ['activities', 'actors'],
  build: () => ({ services: undefined, fills: { tenantEraser: eraseTenantStatements } }),
  routes: async (app, { config, sql, ports }) => {
    // The LRS is closed to an admin or API key limited to an organisation subtree (docs/learning.md,
    // "Scoped administration and managers"): statements, documents and agents are about anyone, and
    // scoped credentials administer people; content reports through learner credentials and launch
    // tokens. Added here, it runs on these routes only, after authentication.
    app.addHook('onRequest', async (request) => {
      if (request.principal?.scope) {
        throw outOfScope('This credential is limited to an organisation subtree; the LRS (/xapi/) needs an unscoped one.');
      }
    });
    await app.register(documentsPlugin, { sql, documentLimitBytes: config.documentLimitBytes });
    await app.register(statementsRoutes, {
      sql,
      projections: ports.statementProjections,
      attachmentLimitBytes: config.xapiAttachmentLimitBytes,
      attachmentStore: attachmentStoreFor(config.database),
      batchLimit: config.statementBatchLimit,
    });
    await app.register(activitiesRoutes, { sql });
    await app.register(agentsRoutes, { sql });
  },
});
