import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DEFAULTS, type AppConfig } from '../config.js';
import type { SqlClient } from '../platform/database/sql-client.js';
import { registerErrorHandler } from '../platform/http/error-handler.js';
import { registerStrictQueryIntegers } from '../platform/http/strict-query-integers.js';
import { registerInputGuards } from '../platform/http/input-guards.js';
import { registerPublicUrl } from '../platform/http/public-url.js';
import { registerMetrics } from '../platform/http/metrics.js';
import { registerHealth } from '../platform/http/health.js';
import { registerGuides } from '../platform/http/guides.js';
import { registerHomePage } from '../platform/http/home-page.js';
import { describeCheckErrors, prefixOperationIds, withServer } from '../platform/http/openapi.js';
import { chooseRateLimitStore, rateLimits } from '../platform/http/rate-limits.js';
import { Admission, registerAdmission } from '../platform/http/admission.js';
import { authPlugin } from '../modules/auth/auth.plugin.js';
import { authRoutes } from '../modules/auth/auth.routes.js';
import { documentsPlugin } from '../modules/xapi/documents/document.plugin.js';
import { TenancyService } from '../modules/tenancy/tenancy.service.js';
import { ApiKeyService } from '../modules/auth/api-keys/api-key.service.js';
import { xapiPlugin } from '../modules/xapi/xapi.plugin.js';
import { statementsRoutes } from '../modules/xapi/statements/statement.routes.js';
import { attachmentStoreFor } from '../modules/xapi/statements/attachment.store.js';
import { activitiesRoutes } from '../modules/xapi/activity-definitions/activity-definition.routes.js';
import { agentsRoutes } from '../modules/xapi/agents/agent.routes.js';
import { importHistoryRoutes } from '../modules/imports/import-history.routes.js';
import { organisationRoutes } from '../modules/organisation/organisation.routes.js';
import { organisationImportRoutes } from '../modules/imports/organisation-import.routes.js';
import { tenantSettingsRoutes } from '../modules/actors/tenant-settings.routes.js';
import { usersImportRoutes } from '../modules/imports/user-import.routes.js';
import { actorsRoutes } from '../modules/actors/actor.routes.js';
import { actorsSearchRoutes } from '../modules/actors/actor-search.routes.js';
import { auditRoutes } from '../modules/audit/audit.routes.js';
import { completionRoutes } from '../modules/completions/completion.routes.js';
import { CredentialService } from '../modules/auth/credentials/credential.service.js';
import { credentialRoutes } from '../modules/auth/credentials/credential.routes.js';
import { apiKeyRoutes } from '../modules/auth/api-keys/api-key.routes.js';
import { clientRoutes } from '../modules/auth/oauth/client.routes.js';
import { LaunchSessionService } from '../modules/launch/launch-session.service.js';
import { launchRoutes } from '../modules/launch/launch.routes.js';
import { activityRegistryRoutes } from '../modules/activities/activity-registry.routes.js';
import { notificationRoutes } from '../modules/notifications/notification.routes.js';
import { LocalNotifyBus, type NotifyBus } from '../platform/database/notify-bus.js';
import { TokenService } from '../modules/auth/oauth/token.service.js';
import { oauthTokenEndpoints } from '../modules/auth/oauth/token.routes.js';
import { authorizeRoutes } from '../modules/auth/oauth/authorize.routes.js';
import { AuthorizeService } from '../modules/auth/oauth/authorize.service.js';
import { purgeExpiredOAuthRows } from '../modules/auth/oauth/oauth-housekeeping.js';
import { clientAddress } from '../platform/http/client-address.js';
import { DEFAULT_SIGN_IN_POLICY, SignInThrottle, type SignInPolicy } from '../modules/auth/oauth/sign-in-throttle.js';

export interface BuildOptions {
  /** Pino logger options, or false for none (tests). */
  logger?: boolean | Record<string, unknown>;
  /**
   * How this process hears cache invalidations from the others (PostgreSQL LISTEN/NOTIFY when
   * several processes share a database). Default: in-process, for one process on its database.
   */
  notifications?: NotifyBus;
  /**
   * How failed sign-ins are slowed and refused, and the sign-in page's own limits (requests a
   * minute per address, pending requests per client); tests lower them.
   */
  signInPolicy?: Partial<SignInPolicy>;
  /** The rate limits' window in ms (a minute); tests shorten it to see a limit recover. */
  rateLimitWindowMs?: number;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Query parameters that carry a credential: their values never reach the logs. */
const SECRET_QUERY = /([?&](?:code|access_token|refresh_token|client_secret|auth)=)[^&#]*/gi;
export const redactQuerySecrets = (url: string): string => url.replace(SECRET_QUERY, '$1[redacted]');

/** Builds the whole application on one database: platform plugins first, then the modules. */
export async function buildApp(config: AppConfig, sql: SqlClient, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = createFastify(config, options);
  try {
    await assemble(app, config, sql, options);
  } catch (error) {
    // What was started before the failure (listeners on the notifications port, a Redis client, timers) is stopped.
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}

/** The Fastify instance with the server's settings: logging, request ids, limits and timeouts. */
function createFastify(config: AppConfig, options: BuildOptions): FastifyInstance {
  return Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
              censor: '[redacted]',
            },
            serializers: {
              // Fastify's request fields, with an authorization code in the query (the demo callback) masked.
              req: (request: FastifyRequest) => ({
                method: request.method,
                url: redactQuerySecrets(request.url),
                host: request.host,
                remoteAddress: request.ip,
                remotePort: request.socket?.remotePort,
              }),
            },
            ...(typeof options.logger === 'object' ? options.logger : {}),
          },
    // An incoming X-Request-Id (from a load balancer) is kept, so one id follows a request across hops.
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    bodyLimit: config.documentLimitBytes,
    // Slow and idle clients must not hold connections: Fastify leaves the request timeout off and
    // keeps idle keep-alive connections 72 s. A client too slow with its headers or its whole request
    // gets a 408 and the connection closed; an idle keep-alive connection is closed after
    // keepAliveTimeoutMs (plus Node's 1 s margin). Node checks the first two only every
    // connectionsCheckingInterval (30 s by default), so the check runs at a quarter of the headers
    // timeout, at least once a second. The connection cap and the shutdown drain are in main.ts.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      // Given here too: Node checks headersTimeout ≤ requestTimeout when it creates the server.
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(config.headersTimeoutMs / 4)),
    },
    // On close, idle keep-alive connections are closed at once; requests still arriving get a 503.
    forceCloseConnections: 'idle',
    trustProxy: config.trustProxy ?? false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: true } },
    // A "__proto__" or "constructor" key is data (an xAPI extension may hold one, an attribute may
    // be named so): JSON.parse makes it an own property, and the code that copies parsed JSON
    // defines keys rather than assigning them (json-guard.ts, "Keys are data").
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
  }).withTypeProvider<TypeBoxTypeProvider>();
}

/** Platform plugins first, then the modules. */
async function assemble(app: FastifyInstance, config: AppConfig, sql: SqlClient, options: BuildOptions): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  registerErrorHandler(app);
  registerStrictQueryIntegers(app);
  registerInputGuards(app);
  registerPublicUrl(app, config.publicUrl);
  // Before any route: its onResponse hook measures every one.
  registerMetrics(app, sql, { token: config.metricsToken });
  registerHealth(app, sql);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'learnbase',
        version: '1',
        description:
          'Multi-tenant learning platform API and xAPI Learning Record Store. Name the tenant with the ' +
          '`X-SVC-Tenant` header or the `{tenant}.{base-domain}` sub-domain.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An access token of the OAuth authorization code flow (docs/oauth.md).' },
          basic: { type: 'http', scheme: 'basic', description: 'API key and secret (deprecated), or an actor credential.' },
        },
      },
      security: [{ bearer: [] }, { basic: [] }],
    },
    transform: describeCheckErrors,
    transformObject: prefixOperationIds,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  registerGuides(app);
  registerHomePage(app);
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async (request) =>
    withServer(app.swagger(), request.publicBaseUrl),
  );

  const notifications = options.notifications ?? LocalNotifyBus.of(sql);
  const tenancy = new TenancyService(sql, config.cacheTtlMs, notifications, (error) =>
    app.log.warn({ err: error }, 'could not announce a tenant deletion to the other processes'),
  );
  await tenancy.start();
  app.addHook('onClose', async () => tenancy.stop());
  const apiKeys = new ApiKeyService(sql, tenancy, notifications, {
    cacheTtlMs: config.cacheTtlMs,
    onError: (error) => app.log.warn({ err: error }, 'could not announce an API key revocation or record its use'),
  });
  await apiKeys.start();
  app.addHook('onClose', async () => apiKeys.stop());

  const refreshLifetimeSeconds = config.refreshTokenTtlS ?? DEFAULTS.refreshTokenTtlS;
  const tokens = new TokenService(sql, tenancy, options.notifications ?? LocalNotifyBus.of(sql), {
    cacheTtlMs: config.cacheTtlMs,
    refreshLifetimeSeconds,
    onError: (error) => app.log.warn({ err: error }, 'could not announce a token revocation to the other processes'),
  });
  await tokens.start();
  app.addHook('onClose', async () => tokens.stop());
  const credentials = new CredentialService(sql, options.notifications ?? LocalNotifyBus.of(sql), {
    cacheTtlMs: config.cacheTtlMs,
    lifetimeSeconds: config.credentialTtlS ?? DEFAULTS.credentialTtlS,
    onError: (error) => app.log.warn({ err: error }, 'could not announce a credential revocation to the other processes'),
  });
  await credentials.start();
  app.addHook('onClose', async () => credentials.stop());
  const launches = new LaunchSessionService(sql, credentials, {
    cacheTtlMs: config.cacheTtlMs,
    lifetimeSeconds: config.launchTokenTtlS ?? DEFAULTS.launchTokenTtlS,
  });

  // Before the auth plugin: an address at its failed-authentication limit is refused before any credential is checked.
  await app.register(rateLimits, {
    limits: {
      authorize:
        options.signInPolicy?.authorizeRequestsPerMinute ?? config.rateLimitAuthorizePerMinute ?? DEFAULTS.rateLimitAuthorizePerMinute,
      token: config.rateLimitTokenPerMinute ?? DEFAULTS.rateLimitTokenPerMinute,
      failedAuthentication: config.rateLimitFailedAuthPerMinute ?? DEFAULTS.rateLimitFailedAuthPerMinute,
      windowMs: options.rateLimitWindowMs ?? 60_000,
    },
    store: chooseRateLimitStore(config.rateLimitStore, config.redisUrl, config.database.kind),
    sql,
    redisUrl: config.redisUrl,
    notifications,
    clientAddress: (request) => clientAddress(request.ip, request.socket?.remoteAddress),
  });
  await app.register(xapiPlugin, {
    defaultVersion: config.xapiDefaultVersion ?? DEFAULTS.xapiDefaultVersion,
    versionHeader: config.xapiVersionHeader ?? DEFAULTS.xapiVersionHeader,
  });
  await app.register(authPlugin, {
    sql,
    tenancy,
    baseDomain: config.baseDomain,
    cacheTtlMs: config.cacheTtlMs,
    tokens,
    credentials,
    launches,
    apiKeys,
  });
  await app.register(oauthTokenEndpoints, { tokens });
  const signInPolicy = { ...DEFAULT_SIGN_IN_POLICY, ...options.signInPolicy };
  const throttle = new SignInThrottle(sql, signInPolicy);
  // Expired codes, tokens, pending sign-ins and failure counts are deleted hourly (the first time a
  // minute after start), so attempts from ever new addresses cannot grow the tables without bound.
  const purge = () =>
    purgeExpiredOAuthRows(sql, signInPolicy, refreshLifetimeSeconds).then(
      (purged) => app.log.debug({ purged }, 'purged expired OAuth rows'),
      (error) => app.log.warn({ err: error }, 'could not purge expired OAuth rows'),
    );
  const firstPurge = setTimeout(purge, 60_000).unref();
  const hourlyPurge = setInterval(purge, 3_600_000).unref();
  app.addHook('onClose', async () => {
    clearTimeout(firstPurge);
    clearInterval(hourlyPurge);
  });
  await app.register(authorizeRoutes, { authorize: new AuthorizeService(sql, tenancy, throttle, config.baseDomain) });

  // Before the routes: those naming a budget in `config.admission` get its hook (docs/operations.md, "Memory").
  registerAdmission(app, {
    admissions: {
      imports: new Admission(
        'imports',
        {
          perProcess: config.importsInFlight ?? DEFAULTS.importsInFlight,
          perTenant: config.importsInFlightPerTenant ?? DEFAULTS.importsInFlightPerTenant,
        },
        10,
      ),
      attachments: new Admission(
        'attachments',
        {
          perProcess: config.attachmentUploadsInFlight ?? DEFAULTS.attachmentUploadsInFlight,
          perTenant: config.attachmentUploadsInFlightPerTenant ?? DEFAULTS.attachmentUploadsInFlightPerTenant,
        },
        5,
      ),
    },
    tenantOf: (request) => request.principal?.tenant.id,
  });
  await app.register(authRoutes);
  await app.register(documentsPlugin, { sql, documentLimitBytes: config.documentLimitBytes });
  await app.register(statementsRoutes, {
    sql,
    attachmentLimitBytes: config.xapiAttachmentLimitBytes ?? DEFAULTS.xapiAttachmentLimitBytes,
    attachmentStore: attachmentStoreFor(config.database),
    batchLimit: config.statementBatchLimit ?? DEFAULTS.statementBatchLimit,
  });
  await app.register(activitiesRoutes, { sql });
  await app.register(agentsRoutes, { sql });
  await app.register(tenantSettingsRoutes, { sql, baseDomain: config.baseDomain });
  await app.register(usersImportRoutes, { sql, importLimitBytes: config.importLimitBytes, baseDomain: config.baseDomain });
  await app.register(actorsRoutes, { sql, baseDomain: config.baseDomain, serviceDomain: config.serviceDomain ?? config.baseDomain });
  await app.register(importHistoryRoutes, { sql });
  await app.register(auditRoutes, { sql });
  await app.register(completionRoutes, { sql });
  await app.register(actorsSearchRoutes, { sql, baseDomain: config.baseDomain, serviceDomain: config.serviceDomain ?? config.baseDomain });
  await app.register(credentialRoutes, { credentials });
  await app.register(apiKeyRoutes, { sql, apiKeys });
  await app.register(clientRoutes, { sql, tokens });
  await app.register(launchRoutes, { launches, tenancy, baseDomain: config.baseDomain });
  await app.register(activityRegistryRoutes, { sql, importLimitBytes: config.importLimitBytes });
  await app.register(organisationImportRoutes, { sql, importLimitBytes: config.importLimitBytes });
  await app.register(organisationRoutes, { sql });
  await app.register(notificationRoutes, { sql, cacheTtlMs: config.cacheTtlMs });
}
