import { declareModule, type Running } from '../../kernel/module-declaration.js';
import { purging } from '../../platform/housekeeping.js';
import type { AuthServices } from '../auth/index.js';
import type { LaunchServices } from '../launch/index.js';
import type { TenancyService } from '../tenancy/index.js';
import { DropFolder } from './import-folder/drop-folder.service.js';
import { hrWebhookInbox, hrWebhookRoutes } from './hr-webhooks/hr-webhook.routes.js';
import { refreshDueMetadata } from './sso/saml-metadata.service.js';
import { purgeAppliedHrMessages } from './hr-webhooks/hr-webhook.repository.js';
import { HrMessageApplier } from './hr-webhooks/hr-webhook.service.js';
import type { IdentityPeople } from './identity-person.service.js';
import { personStateRoutes } from './person-state.routes.js';
import { scimAuthenticationScheme } from './scim/scim-scheme.js';
import { hrWebhookAuthenticationScheme } from './hr-webhooks/hr-webhook-scheme.js';
import { scimRoutes } from './scim/scim.routes.js';
import { scimTokenRoutes } from './scim/scim-token.routes.js';
import { ssoRoutes } from './sso/sso.routes.js';
import { SingleSignOn } from './sso/sso.service.js';

/** How often stored HR webhook messages are looked at besides when one arrives here. */
const HR_MESSAGES_INTERVAL_MS = 2_000;

interface IdentityServices {
  applier: HrMessageApplier;
  signOn: SingleSignOn;
  people: IdentityPeople;
}

type IdentityBelow = {
  tenancy: TenancyService;
  auth: Pick<AuthServices, 'credentials' | 'finishAdminSignOn' | 'announceRevokedTokens'>;
  launch: LaunchServices;
};

/**
 * Accounts from identity systems (docs/identity.md): the SCIM 2.0 service provider at `/scim/v2/`
 * and its tokens, an admin's deactivation and reactivation of one person (`PATCH
 * /api/actors/item`), the HR webhooks with the applier of their messages, single sign-on (for
 * launch links and the authorize page, through the ports it fills), and the import folder when
 * `importDropDir` is set. The applier and the folder run from the app's start to its close, which
 * waits for the message or file in hand. Deactivating a person revokes their learner credentials
 * (auth's); a sign-in launches (launch's).
 */
export const identityDeclaration = declareModule<IdentityServices, IdentityBelow>({
  name: 'identity',
  needs: ['actors', 'audit', 'auth', 'imports', 'launch', 'organisation', 'tenancy'],
  build: ({ config, sql, ports, importAdmission, outbound, secrets, log }, { tenancy, auth, launch }) => {
    // How every channel writes people (SCIM, HR webhooks, single sign-on, PATCH /api/actors/item):
    // the port peopleChanges hears of each person written, and a deactivation revokes credentials.
    const people: IdentityPeople = {
      sql,
      domains: { baseDomain: config.baseDomain, serviceDomain: config.serviceDomain },
      peopleChanges: ports.peopleChanges,
      credentials: auth.credentials,
    };
    const applier = new HrMessageApplier({
      people,
      tenancy,
      intervalMs: HR_MESSAGES_INTERVAL_MS,
      onError: (error) => log.warn({ err: error }, 'could not apply an HR webhook message; it stays and is tried again'),
    });
    const signOn = new SingleSignOn({
      ...people,
      tenancy,
      launches: launch.launches,
      finishAdminSignOn: auth.finishAdminSignOn,
      outbound,
      secrets,
      announceRevokedTokens: auth.announceRevokedTokens,
    });
    const workers: Running[] = [applier];
    if (config.importDropDir !== undefined) {
      workers.push(
        new DropFolder({
          dir: config.importDropDir,
          intervalMs: config.importDropIntervalMs,
          stableMs: config.importDropStableMs,
          importLimitBytes: config.importLimitBytes,
          admission: importAdmission,
          sql,
          tenancy,
          baseDomain: config.baseDomain,
          peopleChanges: ports.peopleChanges,
          sync: { maxShare: config.importSyncMaxShare, credentials: auth.credentials },
          log,
        }),
      );
    }
    return {
      services: { applier, signOn, people },
      fills: {
        authenticationSchemes: [
          scimAuthenticationScheme(sql, config.baseDomain),
          hrWebhookAuthenticationScheme(sql, secrets, config.baseDomain),
        ],
        adminSignOn: signOn,
        launchSignOn: signOn,
      },
      workers,
      hourly: [
        purging('applied HR webhook messages past their retention', () => purgeAppliedHrMessages(sql)),
        {
          run: () =>
            refreshDueMetadata(
              sql,
              outbound,
              (tenantId) => tenancy.findById(tenantId),
              (source, problem) =>
                log.warn(
                  { tenantId: source.tenantId, connection: source.name, metadataUrl: source.metadataUrl },
                  `the SAML metadata of connection "${source.name}" was not taken: ${problem}; the connection is as it was`,
                ),
            ),
          done: 'read the SAML metadata URLs due',
          failed: 'could not read the SAML metadata URLs due',
        },
      ],
    };
  },
  routes: async (app, { config, sql, outbound, secrets, services, below }) => {
    const { tenancy, auth } = below;
    await app.register(scimTokenRoutes, { sql });
    await app.register(scimRoutes, { ...services.people });
    await app.register(personStateRoutes, { ...services.people });
    await app.register(hrWebhookRoutes, { sql, secrets });
    await app.register(hrWebhookInbox, { sql, secrets, applier: services.applier, tenancy, baseDomain: config.baseDomain });
    await app.register(ssoRoutes, {
      sql,
      signOn: services.signOn,
      tenancy,
      baseDomain: config.baseDomain,
      outbound,
      secrets,
      announceRevokedTokens: auth.announceRevokedTokens,
    });
  },
});
