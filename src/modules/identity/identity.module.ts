import type { FastifyPluginAsync } from 'fastify';
import { everyHour, purgeHourly } from '../../platform/housekeeping.js';
import type { ModuleContext, ModuleDeclaration } from '../../kernel/module-declaration.js';
import { DropFolder } from './import-folder/drop-folder.service.js';
import { hrWebhookInbox, hrWebhookRoutes } from './hr-webhooks/hr-webhook.routes.js';
import { refreshDueMetadata } from './sso/saml-metadata.service.js';
import { purgeAppliedHrMessages } from './hr-webhooks/hr-webhook.repository.js';
import { HrMessageApplier } from './hr-webhooks/hr-webhook.service.js';
import { personStateRoutes } from './person-state.routes.js';
import { scimAuthenticationScheme } from './scim/scim-scheme.js';
import { hrWebhookAuthenticationScheme } from './hr-webhooks/hr-webhook-scheme.js';
import { scimRoutes } from './scim/scim.routes.js';
import { scimTokenRoutes } from './scim/scim-token.routes.js';
import { ssoRoutes } from './sso/sso.routes.js';
import { SingleSignOn } from './sso/sso.service.js';

/** How often stored HR webhook messages are looked at besides when one arrives here. */
const HR_MESSAGES_INTERVAL_MS = 2_000;

/**
 * Accounts from identity systems (docs/identity.md): the SCIM 2.0 service provider at `/scim/v2/`
 * and its tokens, an admin's deactivation and reactivation of one person (`PATCH /api/actors/item`), the HR webhooks with the applier of their messages, single sign-on (handed to the
 * launch route), and the import folder when `importDropDir` is set. The applier and the folder run
 * from the app's start to its close, which waits for the message or file in hand. Needs
 * `app.tenancy`, `app.auth` (deactivating a person revokes their learner credentials) and
 * `app.launch` (a sign-in launches).
 */
export const identityModule: FastifyPluginAsync<ModuleContext> = async (
  app,
  { config, sql, ports, importAdmission, outbound, secrets },
) => {
  // What hears of people written here (SCIM, HR webhooks, single sign-on, the import folder).
  const { peopleChanges } = ports;
  const domains = { baseDomain: config.baseDomain, serviceDomain: config.serviceDomain };
  const credentials = app.auth.credentials;
  await app.register(scimTokenRoutes, { sql });
  await app.register(scimRoutes, { sql, domains, peopleChanges, credentials });
  await app.register(personStateRoutes, { sql, domains, peopleChanges, credentials });

  const applier = new HrMessageApplier({
    sql,
    tenancy: app.tenancy,
    domains,
    peopleChanges,
    credentials,
    intervalMs: HR_MESSAGES_INTERVAL_MS,
    onError: (error) => app.log.warn({ err: error }, 'could not apply an HR webhook message; it stays and is tried again'),
  });
  app.addHook('onReady', async () => applier.start());
  app.addHook('onClose', async () => applier.stop());
  purgeHourly(app, 'applied HR webhook messages past their retention', () => purgeAppliedHrMessages(sql));
  await app.register(hrWebhookRoutes, { sql, secrets });
  await app.register(hrWebhookInbox, { sql, secrets, applier, tenancy: app.tenancy, baseDomain: config.baseDomain });

  const signOn = new SingleSignOn({
    sql,
    tenancy: app.tenancy,
    domains,
    peopleChanges,
    credentials,
    launches: app.launch.launches,
    finishAdminSignOn: app.auth.finishAdminSignOn,
    outbound,
    secrets,
    announceRevokedTokens: app.auth.announceRevokedTokens,
  });
  app.launch.acceptSignOn(signOn);
  app.auth.acceptAdminSignOn(signOn);
  await app.register(ssoRoutes, {
    sql,
    signOn,
    tenancy: app.tenancy,
    baseDomain: config.baseDomain,
    outbound,
    secrets,
    announceRevokedTokens: app.auth.announceRevokedTokens,
  });
  everyHour(
    app,
    () =>
      refreshDueMetadata(
        sql,
        outbound,
        (tenantId) => app.tenancy.findById(tenantId),
        (source, problem) =>
          app.log.warn(
            { tenantId: source.tenantId, connection: source.name, metadataUrl: source.metadataUrl },
            `the SAML metadata of connection "${source.name}" was not taken: ${problem}; the connection is as it was`,
          ),
      ),
    { done: 'read the SAML metadata URLs due', failed: 'could not read the SAML metadata URLs due' },
  );

  if (config.importDropDir !== undefined) {
    const dropFolder = new DropFolder({
      dir: config.importDropDir,
      intervalMs: config.importDropIntervalMs,
      stableMs: config.importDropStableMs,
      importLimitBytes: config.importLimitBytes,
      admission: importAdmission,
      sql,
      tenancy: app.tenancy,
      baseDomain: config.baseDomain,
      peopleChanges,
      sync: { maxShare: config.importSyncMaxShare, credentials },
      log: app.log,
    });
    app.addHook('onReady', () => dropFolder.start());
    app.addHook('onClose', () => dropFolder.stop());
  }
};

/** The identity module as a declared unit. */
export const identityDeclaration: ModuleDeclaration = {
  name: 'identity',
  needs: ['actors', 'audit', 'auth', 'imports', 'launch', 'organisation', 'tenancy'],
  fills: {
    authenticationSchemes: ({ sql, config, secrets }) => [
      scimAuthenticationScheme(sql, config.baseDomain),
      hrWebhookAuthenticationScheme(sql, secrets, config.baseDomain),
    ],
  },
  plugin: identityModule,
};
