import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppConfig } from '../config.js';
import type { SqlClient } from '../platform/database/sql-client.js';
import { LocalNotifyBus, type NotifyBus } from '../platform/database/notify-bus.js';
import { OutboundHttp } from '../platform/outbound-http.js';
import { configuredSecretBox, type SecretBox } from '../platform/secret-box.js';
import { registerErrorHandler } from '../platform/http/error-handler.js';
import { registerStrictQueryIntegers } from '../platform/http/strict-query-integers.js';
import { registerInputGuards } from '../platform/http/input-guards.js';
import { registerPublicUrl } from '../platform/http/public-url.js';
import { registerMetrics } from '../platform/http/metrics.js';
import { registerHealth } from '../platform/http/health.js';
import { apiReferenceOptions, PRODUCT, REFERENCE_DESCRIPTION } from '../platform/http/api-reference.js';
import { registerGuides } from '../platform/http/guides.js';
import { registerHomePage } from '../platform/http/home-page.js';
import { type ConsoleOptions, registerConsole } from '../platform/http/console.js';
import { describeCheckErrors, prefixOperationIds, withServer } from '../platform/http/openapi.js';
import { chooseRateLimitStore, rateLimits } from '../platform/http/rate-limits.js';
import { Admission, registerAdmission } from '../platform/http/admission.js';
import { clientAddress } from '../platform/http/client-address.js';
import { sharedCompilers } from '../platform/http/shared-compilers.js';
import { registerModules } from './composition.js';
import { xapiPlugin } from '../modules/xapi/index.js';
import { TENANT_NAME, tenantNameOfHost } from '../modules/tenancy/index.js';
import type { SignInPolicy } from '../modules/auth/index.js';

export interface BuildOptions {
  /** Where the console's build is read from (tests give one of their own); console/dist by default. */
  console?: ConsoleOptions;
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
  /**
   * The keys of the stored secrets, as the server's start prepared them (identity's
   * prepareStoredSecrets: the key file beside a PGlite folder, a check of what is stored). Default:
   * the keys the configuration names (LEARNBASE_SECRETS_KEY…), as the tests give them.
   */
  secrets?: SecretBox;
  /**
   * TEST ONLY: outbound requests may reach loopback addresses (the tests' identity providers on
   * 127.0.0.1). No setting of the configuration reaches it; `serve` sets it only for a process the
   * tests spawn (outbound-http.ts, testLoopbackAllowance). Default: false.
   */
  outboundLoopback?: boolean;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Query parameters that carry a credential: their values never reach the logs. */
const SECRET_QUERY = /([?&](?:code|access_token|refresh_token|client_secret|auth)=)[^&#]*/gi;
export const redactQuerySecrets = (url: string): string => url.replace(SECRET_QUERY, '$1[redacted]');

/**
 * Builds the whole application on one database: platform plugins first, then the modules. The
 * config has every default filled in: loadConfig's, or withDefaults of one made in code.
 */
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
    // Compiled schemas are shared by the apps of a process (shared-compilers.ts).
    schemaController: sharedCompilers,
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
      info: { title: PRODUCT.name, version: PRODUCT.version, description: REFERENCE_DESCRIPTION },
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
  await app.register(swaggerUi, apiReferenceOptions);
  registerGuides(app, { baseDomain: config.baseDomain });
  registerHomePage(app);
  registerConsole(app, {
    // The console's page names the tenant of a `{tenant}.{base domain}` address (docs/console.md).
    tenantOf: (request) => {
      const name = tenantNameOfHost(request.headers.host, config.baseDomain);
      return name !== undefined && TENANT_NAME.test(name) ? name : undefined;
    },
    publicPath: config.publicUrl === undefined ? '' : new URL(config.publicUrl).pathname.replace(/\/$/, ''),
    ...options.console,
  });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async (request) =>
    withServer(app.swagger(), request.publicBaseUrl),
  );

  // Built once: every module on this app hears the other processes through the same bus.
  const bus = options.notifications ?? LocalNotifyBus.of(sql);
  // Before authentication: an address at its failed-authentication limit is refused before any credential is checked.
  await app.register(rateLimits, {
    limits: {
      authorize: options.signInPolicy?.authorizeRequestsPerMinute ?? config.rateLimitAuthorizePerMinute,
      token: config.rateLimitTokenPerMinute,
      failedAuthentication: config.rateLimitFailedAuthPerMinute,
      windowMs: options.rateLimitWindowMs ?? 60_000,
    },
    store: chooseRateLimitStore(config.rateLimitStore, config.redisUrl, config.database.kind),
    sql,
    redisUrl: config.redisUrl,
    notifications: bus,
    clientAddress: (request) => clientAddress(request.ip, request.socket?.remoteAddress),
  });
  // Before authentication too: every /xapi/ answer, a 401 included, carries the version header and CORS.
  await app.register(xapiPlugin, { defaultVersion: config.xapiDefaultVersion, versionHeader: config.xapiVersionHeader });
  // Before the routes: those naming a budget in `config.admission` get its hook (docs/operations.md, "Memory").
  const importAdmission = new Admission('imports', { perProcess: config.importsInFlight, perTenant: config.importsInFlightPerTenant }, 10);
  registerAdmission(app, {
    admissions: {
      imports: importAdmission,
      attachments: new Admission(
        'attachments',
        { perProcess: config.attachmentUploadsInFlight, perTenant: config.attachmentUploadsInFlightPerTenant },
        5,
      ),
    },
    tenantOf: (request) => request.principal?.tenant.id,
  });

  // The modules, through the composition root (composition.ts): each registered in its order,
  // handed the shared services, every port, and what the entry tunes.
  const outbound = new OutboundHttp(
    { allowPrivate: config.outboundAllowPrivate, allowLoopback: options.outboundLoopback ?? false },
    app.log,
  );
  await registerModules(app, {
    config,
    sql,
    bus,
    outbound,
    secrets: options.secrets ?? configuredSecretBox(config),
    // The import folder's files take their places among the imports in flight, as the API's do.
    importAdmission,
    signInPolicy: options.signInPolicy,
  });
}
