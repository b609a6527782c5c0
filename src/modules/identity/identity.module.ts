import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../platform/module-options.js';
import type { PeopleChanges } from '../actors/people-changes.js';
import { hrWebhookInbox, hrWebhookRoutes } from './hr-webhook.routes.js';
import { HrMessageApplier } from './hr-webhook.service.js';
import { scimRoutes } from './scim.routes.js';
import { scimTokenRoutes } from './scim-token.routes.js';
import { ssoRoutes } from './sso.routes.js';
import { SingleSignOn } from './sso.service.js';

export interface IdentityModuleOptions extends ModuleOptions {
  /** What hears of people written here (SCIM, HR webhooks): the entry hands it in (actors' people-changes.ts). */
  peopleChanges: PeopleChanges;
}

/** How often stored HR webhook messages are looked at besides when one arrives here. */
const HR_MESSAGES_INTERVAL_MS = 2_000;

/**
 * Accounts from identity systems (docs/identity.md): the SCIM 2.0 service provider at `/scim/v2/`
 * and its tokens, the HR webhooks with the applier of their messages (stopped, and the message in
 * flight finished, when the app closes), and single sign-on, which it hands the launch route. Needs
 * `app.tenancy`, `app.auth` (deactivating a person revokes their learner credentials) and
 * `app.launch` (a sign-in launches).
 */
export const identityModule: FastifyPluginAsync<IdentityModuleOptions> = async (app, { config, sql, peopleChanges }) => {
  const domains = { baseDomain: config.baseDomain, serviceDomain: config.serviceDomain };
  const credentials = app.auth.credentials;
  await app.register(scimTokenRoutes, { sql });
  await app.register(scimRoutes, { sql, tenancy: app.tenancy, baseDomain: config.baseDomain, domains, peopleChanges, credentials });
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
  await app.register(hrWebhookRoutes, { sql });
  await app.register(hrWebhookInbox, { sql, applier });
  const signOn = new SingleSignOn({ sql, tenancy: app.tenancy, domains, peopleChanges, credentials, launches: app.launch.launches });
  app.launch.acceptSignOn(signOn);
  await app.register(ssoRoutes, { sql, signOn });
};
