import { resolve } from 'node:path';
import { compile as compileTrust } from '@fastify/proxy-addr';
import { Errors, type XStatic } from 'typebox/schema';
import { normalisePublicUrl } from './platform/http/public-url.js';

// The schema is JSON Schema written out, the objects TypeBox's Type.* builders would make, and
// typebox/schema validates it: every command validates its config as it starts, and loading
// TypeBox's builders and Value took 0.2 s of the 0.4 s a command takes; the validator alone loads
// in a quarter of that. The errors are the same (Value.Errors is this validator).

/** An integer schema (Type.Integer). */
const integer = <const Range extends { minimum: number; maximum?: number }>(range: Range) => ({ type: 'integer', ...range }) as const;
/** A string schema (Type.String). */
const string = <const Rules extends { minLength?: number; pattern?: string }>(rules: Rules) => ({ type: 'string', ...rules }) as const;
/** One of `values` (Type.Union of Type.Literal). */
const oneOf = <const Values extends readonly string[]>(...values: Values) => ({
  anyOf: values.map((value) => ({ type: 'string', const: value })) as unknown as {
    [K in keyof Values]: { type: 'string'; const: Values[K] };
  },
});

const DatabaseConfig = {
  anyOf: [
    { type: 'object', required: ['kind'], properties: { kind: { type: 'string', const: 'pglite' }, dataDir: string({ minLength: 1 }) } },
    {
      type: 'object',
      required: ['kind', 'url'],
      properties: { kind: { type: 'string', const: 'postgres' }, url: string({ pattern: '^postgres(ql)?://' }) },
    },
  ],
} as const;

/** 32 bytes as 64 hex digits, or base64 (either alphabet, the padding optional). */
export const SECRETS_KEY_PATTERN = '^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$';

/** A duration in ms; at most a day, as Node's timers overflow past 2^31 ms (and then fire at once). */
const Milliseconds = (minimum: number) => integer({ minimum, maximum: 86_400_000 });

/** Every setting; those not in `required` may be absent. */
export const AppConfig = {
  type: 'object',
  required: [
    'database',
    'port',
    'host',
    'baseDomain',
    'serviceDomain',
    'documentLimitBytes',
    'importLimitBytes',
    'xapiAttachmentLimitBytes',
    'importsInFlight',
    'importsInFlightPerTenant',
    'attachmentUploadsInFlight',
    'attachmentUploadsInFlightPerTenant',
    'reportsInFlight',
    'keptCountsInlinePeople',
    'statementBatchLimit',
    'logLevel',
    'cacheTtlMs',
    'credentialTtlS',
    'xapiDefaultVersion',
    'xapiVersionHeader',
    'launchTokenTtlS',
    'refreshTokenTtlS',
    'ssoAdminSessionS',
    'headersTimeoutMs',
    'requestTimeoutMs',
    'keepAliveTimeoutMs',
    'maxConnections',
    'shutdownGraceMs',
    'rateLimitAuthorizePerMinute',
    'rateLimitTokenPerMinute',
    'rateLimitFailedAuthPerMinute',
    'importDropIntervalMs',
    'importDropStableMs',
    'importSyncMaxShare',
    'outboundAllowPrivate',
  ],
  properties: {
    database: DatabaseConfig,
    port: integer({ minimum: 0, maximum: 65535 }),
    host: string({ minLength: 1 }),
    /** `{tenant}.{baseDomain}` names a tenant in the Host header. */
    baseDomain: string({ minLength: 1, pattern: '^[a-z0-9.-]+$' }),
    /**
     * The host of the actor extension keys, `http://{serviceDomain}/api/ext/agent/attributes`
     * (interface 2.6); a port may follow. Default: `baseDomain`.
     */
    serviceDomain: string({ minLength: 1, pattern: '^[a-z0-9.-]+(:[0-9]{1,5})?$' }),
    /**
     * The server's address as clients know it (`https://lrs.example.com`, a path allowed): statement
     * authorities, the OAuth metadata and launched content's xAPI endpoint use it. Absent: each
     * request's own scheme and host.
     */
    publicUrl: string({ pattern: '^https?://[^/?#@\\s]+(/[^?#\\s]*)?$' }),
    /** Largest document body accepted, in bytes (413 above it). */
    documentLimitBytes: integer({ minimum: 1 }),
    /** Largest import body accepted (users, organisation, jobs), in bytes (413 above it). */
    importLimitBytes: integer({ minimum: 1 }),
    /**
     * Largest multipart/mixed statement request (statements and attachment data together) accepted,
     * in bytes (413 above it). Default: DEFAULTS.xapiAttachmentLimitBytes.
     */
    xapiAttachmentLimitBytes: integer({ minimum: 1 }),
    /**
     * Bulk imports (users, organisation, jobs) whose body is read at once, in flight in this process
     * at most: a further one is refused with 503 and Retry-After before its body is read. Default:
     * DEFAULTS.importsInFlight. A body of at most 1 MiB is not counted (admission.ts).
     */
    importsInFlight: integer({ minimum: 1, maximum: 1_000 }),
    /** The same, per tenant: a tenant's further import is refused with 429. Default: DEFAULTS.importsInFlightPerTenant. */
    importsInFlightPerTenant: integer({ minimum: 1, maximum: 1_000 }),
    /**
     * Statement requests with attachment data (multipart/mixed) in flight in this process at most:
     * a further one is refused with 503 and Retry-After before its body is read. Default:
     * DEFAULTS.attachmentUploadsInFlight. A body of at most 1 MiB is not counted.
     */
    attachmentUploadsInFlight: integer({ minimum: 1, maximum: 1_000 }),
    /** The same, per tenant: 429. Default: DEFAULTS.attachmentUploadsInFlightPerTenant. */
    attachmentUploadsInFlightPerTenant: integer({ minimum: 1, maximum: 1_000 }),
    /**
     * Reports (GET /api/reports/…) computed at once in this process at most; up to fifty more wait
     * their turn, a further one is refused with 503 and Retry-After (work-queue.ts). Default:
     * DEFAULTS.reportsInFlight.
     */
    reportsInFlight: integer({ minimum: 1, maximum: 1_000 }),
    /**
     * Up to how many people a change of many (a change of everyone, of the registry, of many people
     * at once) re-derives the reports' kept counts in its own transaction; above, the background
     * rebuild does, the reports recounting meanwhile (docs/learning.md, "Counts kept as the writes
     * happen"). Default: DEFAULTS.keptCountsInlinePeople.
     */
    keptCountsInlinePeople: integer({ minimum: 0, maximum: 100_000_000 }),
    /** Statements one POST /xapi/statements may carry at most (413 above it). Default: DEFAULTS.statementBatchLimit. */
    statementBatchLimit: integer({ minimum: 1, maximum: 1_000_000 }),
    logLevel: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    /** How long a verified credential or a resolved tenant is reused by one process, in ms. */
    cacheTtlMs: integer({ minimum: 0 }),
    /** Lifetime of a learner credential (POST /api/auth/basic), in seconds. Default: DEFAULTS.credentialTtlS. */
    credentialTtlS: integer({ minimum: 1 }),
    /**
     * The xAPI version a `/xapi/` answer states (`X-Experience-API-Version`) when the request named
     * none or one this LRS does not speak (xAPI 2.0 Part 3 §1.3). Default: DEFAULTS.xapiDefaultVersion.
     */
    xapiDefaultVersion: oneOf('1.0.3', '2.0.0'),
    /**
     * `required`: a `/xapi/` request without `X-Experience-API-Version` is refused (400), as xAPI
     * requires and the conformance suite checks; `optional`: it is served at xapiDefaultVersion, for
     * integrations written from the interface alone, which never names the header. Default:
     * DEFAULTS.xapiVersionHeader.
     */
    xapiVersionHeader: oneOf('required', 'optional'),
    /** Lifetime of a launch token handed to content (GET /api/activities/launch), in seconds. Default: DEFAULTS.launchTokenTtlS. */
    launchTokenTtlS: integer({ minimum: 1 }),
    /**
     * Lifetime of an OAuth refresh token, in seconds, from its issue; each refresh issues a new one
     * (sliding). At least an hour, the access token's lifetime. Default: DEFAULTS.refreshTokenTtlS.
     */
    refreshTokenTtlS: integer({ minimum: 3600, maximum: 366 * 24 * 3600 }),
    /**
     * How long after signing in at their identity provider an admin single sign-on made may refresh
     * their tokens, in seconds; then they sign in at the provider again, where the connection's
     * claim is checked again (docs/identity.md). Default: DEFAULTS.ssoAdminSessionS.
     */
    ssoAdminSessionS: integer({ minimum: 1, maximum: 366 * 24 * 3600 }),
    /**
     * Which reverse proxies' `X-Forwarded-For` / `-Proto` / `-Host` to believe (Fastify's
     * `trustProxy`): the client address the sign-in throttle counts, the scheme and host of the
     * OAuth metadata. Unset: none, the connection's peer is the client.
     */
    trustProxy: { anyOf: [{ type: 'boolean' }, { type: 'array', items: string({ minLength: 1 }) }] },
    /**
     * How long a client may take to send a request's headers, in ms (408, then the connection is
     * closed). Legitimate clients send them in one packet; a slow sender holds a connection open.
     * At most `requestTimeoutMs`.
     */
    headersTimeoutMs: Milliseconds(100),
    /**
     * How long a client may take to send a whole request, headers and body, in ms (408, then the
     * connection is closed). Time spent in the handler does not count.
     */
    requestTimeoutMs: Milliseconds(100),
    /** How long an idle keep-alive connection stays open between requests, in ms (Node adds 1 s). */
    keepAliveTimeoutMs: Milliseconds(1),
    /** Open connections at most: Node closes any further one as soon as it is accepted. */
    maxConnections: integer({ minimum: 1 }),
    /**
     * On SIGTERM/SIGINT, how long requests in flight may still finish, in ms; then every remaining
     * connection is closed and the process exits.
     */
    shutdownGraceMs: Milliseconds(0),
    /**
     * A bearer token that opens `GET /metrics` to clients on other hosts (a Prometheus server);
     * without it only loopback clients are served. At least 32 characters of RFC 6750's token
     * alphabet (`openssl rand -hex 32`).
     */
    metricsToken: string({ pattern: '^[A-Za-z0-9._~+/=-]{32,512}$' }),
    /**
     * Where the rate limits count: `memory` (this process only), `postgres` (the database, shared by
     * every process on it; PostgreSQL only), `redis` (`redisUrl`, shared). Absent: redis when
     * `redisUrl` is set, else postgres on PostgreSQL, else memory.
     */
    rateLimitStore: oneOf('memory', 'postgres', 'redis'),
    /** The Redis server of the rate limits' counts (`redis://[:password@]host:port[/db]`, or `rediss://` for TLS). */
    redisUrl: string({ pattern: '^rediss?://[^\\s]+$' }),
    /**
     * Requests a minute per client address to the sign-in page (`GET /auth/oauth/authorize`), and
     * as many to its form (`POST`). 0: no limit. Default: DEFAULTS.rateLimitAuthorizePerMinute.
     */
    rateLimitAuthorizePerMinute: integer({ minimum: 0, maximum: 1_000_000 }),
    /**
     * Requests a minute per client address to `POST /auth/oauth/token`, and as many to
     * `/auth/oauth/revoke`. 0: no limit. Default: DEFAULTS.rateLimitTokenPerMinute.
     */
    rateLimitTokenPerMinute: integer({ minimum: 0, maximum: 1_000_000 }),
    /**
     * Failed authentications (401 answers to requests that presented a credential) a minute per
     * client address; at the limit the address's credential-checking requests are refused (429)
     * until its minute ends. 0: no limit. Default: DEFAULTS.rateLimitFailedAuthPerMinute.
     */
    rateLimitFailedAuthPerMinute: integer({ minimum: 0, maximum: 1_000_000 }),
    /**
     * The import folder (docs/identity.md, "The import folder"): an absolute path, one sub-folder
     * per tenant named as the tenant, whose complete files are imported once each. Absent: no
     * folder is watched.
     */
    importDropDir: string({ minLength: 1 }),
    /** How often the import folder is looked at, in ms. Default: DEFAULTS.importDropIntervalMs. */
    importDropIntervalMs: Milliseconds(100),
    /**
     * How long a file of the import folder must have been left unchanged (size and modification
     * time) before it is taken as complete, in ms. Default: DEFAULTS.importDropStableMs.
     */
    importDropStableMs: Milliseconds(0),
    /**
     * The largest share (0 to 1) of a tenant's active people one users sync may deactivate
     * (docs/identity.md, "A sync: people left out are deactivated"): a sync that would deactivate
     * more is refused whole, as a truncated export. Default: DEFAULTS.importSyncMaxShare.
     */
    importSyncMaxShare: { type: 'number', minimum: 0, maximum: 1 },
    /**
     * Whether the requests the server makes (a SAML metadata URL, an OpenID provider) may reach
     * private addresses: RFC 1918, carrier-grade NAT, unique-local IPv6 (docs/operations.md, "Requests
     * the server makes"). Loopback, link-local and the metadata services stay refused. Default: false.
     */
    outboundAllowPrivate: { type: 'boolean' },
    /**
     * The key stored secrets are encrypted under (docs/operations.md, "Secrets at rest"): 32 bytes,
     * base64 or hex. At most one of it and `secretsKeyFile`.
     */
    secretsKey: string({ pattern: SECRETS_KEY_PATTERN }),
    /** A file holding the key (its text, base64 or hex). */
    secretsKeyFile: string({ minLength: 1 }),
    /** The key before the current one, while `learnbase secrets rotate` re-encrypts under the current one. */
    secretsKeyPrevious: string({ pattern: SECRETS_KEY_PATTERN }),
    secretsKeyPreviousFile: string({ minLength: 1 }),
  },
} as const;
export type AppConfig = XStatic<typeof AppConfig>;
/** The database the schema above reads (`database`), as the platform opens it. */
export type { DatabaseConfig } from './platform/database/open-database.js';

export const DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  baseDomain: 'localhost',
  dataDir: './data',
  documentLimitBytes: 16 * 1024 * 1024,
  // 100,000 users with ten attributes each are about 30 MiB of JSON.
  importLimitBytes: 100 * 1024 * 1024,
  // Attachment data is held in memory while a request is checked and stored in the database:
  // a few videos' worth per request, not an archive.
  xapiAttachmentLimitBytes: 64 * 1024 * 1024,
  // A maximum-size import holds its body, its parsed rows and the work on them: about 300 MB of
  // heap at the default import limit, so one at a time fits the 512 MB heap docs/operations.md
  // recommends ("Memory"). Imports are rare and take seconds; a refused one retries.
  importsInFlight: 1,
  importsInFlightPerTenant: 1,
  // A maximum-size attachment request holds about twice its size outside the heap while it is
  // parsed and stored: two at once stay near 300 MB.
  attachmentUploadsInFlight: 2,
  attachmentUploadsInFlightPerTenant: 1,
  // A report over a whole tenant of 100,000 people keeps a core busy for about a second: two at
  // once keep the other requests' share of the cores and of the connection pool (docs/performance.md,
  // "Reports at 100,000 people").
  reportsInFlight: 2,
  // A rebuild of 20,000 people's counts takes a few hundred milliseconds: in the request that
  // changed them; above, in the background (docs/performance.md, "Kept counts").
  keptCountsInlinePeople: 20_000,
  // Far above what xAPI clients send (TinCanJS and the ADL conformance suite send at most tens);
  // a batch is one transaction, and 10,000 small statements are about 1.5 MB and a few seconds.
  statementBatchLimit: 10_000,
  logLevel: 'info',
  cacheTtlMs: 5_000,
  // A learner credential is made per person by the integration and lasts a month (docs/provisioning.md).
  credentialTtlS: 30 * 24 * 3600,
  // The newest version; a deployment serving 1.0.3 content only may pin 1.0.3 (docs/xapi-statements.md).
  xapiDefaultVersion: '2.0.0',
  // xAPI's rule, which the conformance suite checks; `optional` is a deployment's choice.
  xapiVersionHeader: 'required',
  // A launch token lasts one long sitting of one piece of content.
  launchTokenTtlS: 4 * 3600,
  refreshTokenTtlS: 30 * 24 * 3600,
  // A working day: an admin the provider no longer makes one loses the admin's tokens by the next
  // morning at the latest, without signing in at the provider more than once a day.
  ssoAdminSessionS: 12 * 3600,
  // Node's own default is 60 s; 10 s is ample for any real client, even on a high-latency link.
  headersTimeoutMs: 10_000,
  // Bounds a trickled body. The largest document (16 MiB) still arrives in 60 s at about 2.3 Mbit/s;
  // behind a proxy that buffers request bodies (nginx does by default) requests arrive at LAN speed.
  requestTimeoutMs: 60_000,
  // Node's default. Behind a load balancer it must be longer than the balancer's idle timeout.
  keepAliveTimeoutMs: 5_000,
  // Each connection is a file descriptor: keep this under the hard limit (`ulimit -Hn`, which Node
  // raises its own limit to; 65536 or more on most hosts), with room for the database and files.
  maxConnections: 10_000,
  // Within Kubernetes' default 30 s termination grace, with room for closing the database.
  shutdownGraceMs: 10_000,
  // Rate limits per client address and minute; docs/operations.md ("Rate limits") gives the reasoning.
  // One sign-in is a GET and a POST or two: 60 leaves room for retries, reloads and a few people behind one NAT.
  rateLimitAuthorizePerMinute: 60,
  // A busy server-side client exchanges and refreshes tokens for all its users from one address.
  rateLimitTokenPerMinute: 600,
  // Expired tokens and revoked keys fail now and then; a client failing twice a second is guessing or broken.
  rateLimitFailedAuthPerMinute: 120,
  // A file dropped in the import folder is imported within a few seconds of being complete.
  importDropIntervalMs: 2_000,
  // A copy that stalls for longer than this looks complete: writers that cannot rename a finished
  // file in (docs/identity.md, "The import folder") should not pause for seconds.
  importDropStableMs: 3_000,
  // A nightly export loses a few leavers, not a tenth of the organisation: more is likely a file cut short.
  importSyncMaxShare: 0.1,
  // The providers a tenant connects to are on the internet; on premises an operator opens the private networks.
  outboundAllowPrivate: false,
} as const;

/** The settings a config given in code (a test's) may leave out: withDefaults fills them. */
type Defaulted =
  | 'serviceDomain'
  | 'xapiAttachmentLimitBytes'
  | 'importsInFlight'
  | 'importsInFlightPerTenant'
  | 'attachmentUploadsInFlight'
  | 'attachmentUploadsInFlightPerTenant'
  | 'reportsInFlight'
  | 'keptCountsInlinePeople'
  | 'statementBatchLimit'
  | 'credentialTtlS'
  | 'xapiDefaultVersion'
  | 'xapiVersionHeader'
  | 'launchTokenTtlS'
  | 'refreshTokenTtlS'
  | 'ssoAdminSessionS'
  | 'rateLimitAuthorizePerMinute'
  | 'rateLimitTokenPerMinute'
  | 'rateLimitFailedAuthPerMinute'
  | 'importDropIntervalMs'
  | 'importDropStableMs'
  | 'importSyncMaxShare'
  | 'outboundAllowPrivate';

export type PartialAppConfig = Omit<AppConfig, Defaulted> & Partial<Pick<AppConfig, Defaulted>>;

/** The config with each setting it left out at its default, as loadConfig would have it. */
export function withDefaults(config: PartialAppConfig): AppConfig {
  return {
    ...config,
    serviceDomain: config.serviceDomain ?? config.baseDomain,
    xapiAttachmentLimitBytes: config.xapiAttachmentLimitBytes ?? DEFAULTS.xapiAttachmentLimitBytes,
    importsInFlight: config.importsInFlight ?? DEFAULTS.importsInFlight,
    importsInFlightPerTenant: config.importsInFlightPerTenant ?? DEFAULTS.importsInFlightPerTenant,
    attachmentUploadsInFlight: config.attachmentUploadsInFlight ?? DEFAULTS.attachmentUploadsInFlight,
    attachmentUploadsInFlightPerTenant: config.attachmentUploadsInFlightPerTenant ?? DEFAULTS.attachmentUploadsInFlightPerTenant,
    reportsInFlight: config.reportsInFlight ?? DEFAULTS.reportsInFlight,
    keptCountsInlinePeople: config.keptCountsInlinePeople ?? DEFAULTS.keptCountsInlinePeople,
    statementBatchLimit: config.statementBatchLimit ?? DEFAULTS.statementBatchLimit,
    credentialTtlS: config.credentialTtlS ?? DEFAULTS.credentialTtlS,
    xapiDefaultVersion: config.xapiDefaultVersion ?? DEFAULTS.xapiDefaultVersion,
    xapiVersionHeader: config.xapiVersionHeader ?? DEFAULTS.xapiVersionHeader,
    launchTokenTtlS: config.launchTokenTtlS ?? DEFAULTS.launchTokenTtlS,
    refreshTokenTtlS: config.refreshTokenTtlS ?? DEFAULTS.refreshTokenTtlS,
    ssoAdminSessionS: config.ssoAdminSessionS ?? DEFAULTS.ssoAdminSessionS,
    rateLimitAuthorizePerMinute: config.rateLimitAuthorizePerMinute ?? DEFAULTS.rateLimitAuthorizePerMinute,
    rateLimitTokenPerMinute: config.rateLimitTokenPerMinute ?? DEFAULTS.rateLimitTokenPerMinute,
    rateLimitFailedAuthPerMinute: config.rateLimitFailedAuthPerMinute ?? DEFAULTS.rateLimitFailedAuthPerMinute,
    importDropIntervalMs: config.importDropIntervalMs ?? DEFAULTS.importDropIntervalMs,
    importDropStableMs: config.importDropStableMs ?? DEFAULTS.importDropStableMs,
    importSyncMaxShare: config.importSyncMaxShare ?? DEFAULTS.importSyncMaxShare,
    outboundAllowPrivate: config.outboundAllowPrivate ?? DEFAULTS.outboundAllowPrivate,
  };
}

/** What the command line and the environment may set; flags win over the environment. */
export interface ConfigInput {
  database?: string;
  data?: string;
  port?: string;
  host?: string;
  baseDomain?: string;
}

/**
 * `LEARNBASE_TRUST_PROXY`: `true` (every peer is a proxy: only when nothing reaches the server
 * but through the proxy), or a comma-separated list of proxy addresses and CIDR ranges
 * (`127.0.0.1,10.0.0.0/8`, or `loopback`).
 */
function parseTrustProxy(value: string | undefined): boolean | string[] | undefined {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return undefined;
  if (text === 'true') return true;
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** What Fastify's trustProxy accepts: an address, a CIDR or netmask range, or a proxy-addr name. */
function isProxyAddress(entry: string): boolean {
  try {
    compileTrust([entry]);
    return true;
  } catch {
    return false;
  }
}

/** A number from the environment; unset or blank is the default, anything else must parse (the schema refuses NaN). */
function numberFrom(value: string | undefined, fallback: number): number {
  return value === undefined || value.trim() === '' ? fallback : Number(value);
}

/** `true` or `false` from the environment; unset or blank is the default, anything else is left for the schema to refuse. */
function booleanFrom(value: string | undefined, fallback: boolean): boolean | string {
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '') return fallback;
  return text === 'true' ? true : text === 'false' ? false : text;
}

/** An absolute path from the environment, or undefined when unset or blank. */
const pathFrom = (value: string | undefined) => (value?.trim() ? resolve(value.trim()) : undefined);

/**
 * Reads flags and environment once into a frozen, validated config. Throws with every
 * problem named; `main` prints it and exits.
 */
export function loadConfig(flags: ConfigInput, env: NodeJS.ProcessEnv = process.env): AppConfig {
  const databaseUrl = flags.database ?? (flags.data ? undefined : env.DATABASE_URL);
  const candidate = {
    database: databaseUrl
      ? { kind: 'postgres', url: databaseUrl }
      : { kind: 'pglite', dataDir: flags.data ?? env.LEARNBASE_DATA ?? DEFAULTS.dataDir },
    port: Number(flags.port ?? env.PORT ?? DEFAULTS.port),
    host: flags.host ?? env.HOST ?? DEFAULTS.host,
    baseDomain: (flags.baseDomain ?? env.LEARNBASE_BASE_DOMAIN ?? DEFAULTS.baseDomain).toLowerCase(),
    serviceDomain: (
      env.LEARNBASE_SERVICE_DOMAIN?.trim() ||
      flags.baseDomain ||
      env.LEARNBASE_BASE_DOMAIN ||
      DEFAULTS.baseDomain
    ).toLowerCase(),
    publicUrl: normalisePublicUrl(env.LEARNBASE_PUBLIC_URL),
    documentLimitBytes: numberFrom(env.LEARNBASE_DOCUMENT_LIMIT_BYTES, DEFAULTS.documentLimitBytes),
    importLimitBytes: numberFrom(env.LEARNBASE_IMPORT_LIMIT_BYTES, DEFAULTS.importLimitBytes),
    xapiAttachmentLimitBytes: numberFrom(env.LEARNBASE_XAPI_ATTACHMENT_LIMIT_BYTES, DEFAULTS.xapiAttachmentLimitBytes),
    importsInFlight: numberFrom(env.LEARNBASE_IMPORTS_IN_FLIGHT, DEFAULTS.importsInFlight),
    importsInFlightPerTenant: numberFrom(env.LEARNBASE_IMPORTS_IN_FLIGHT_PER_TENANT, DEFAULTS.importsInFlightPerTenant),
    attachmentUploadsInFlight: numberFrom(env.LEARNBASE_ATTACHMENT_UPLOADS_IN_FLIGHT, DEFAULTS.attachmentUploadsInFlight),
    attachmentUploadsInFlightPerTenant: numberFrom(
      env.LEARNBASE_ATTACHMENT_UPLOADS_IN_FLIGHT_PER_TENANT,
      DEFAULTS.attachmentUploadsInFlightPerTenant,
    ),
    reportsInFlight: numberFrom(env.LEARNBASE_REPORTS_IN_FLIGHT, DEFAULTS.reportsInFlight),
    keptCountsInlinePeople: numberFrom(env.LEARNBASE_KEPT_COUNTS_INLINE_PEOPLE, DEFAULTS.keptCountsInlinePeople),
    statementBatchLimit: numberFrom(env.LEARNBASE_STATEMENT_BATCH_LIMIT, DEFAULTS.statementBatchLimit),
    logLevel: env.LOG_LEVEL ?? DEFAULTS.logLevel,
    cacheTtlMs: numberFrom(env.LEARNBASE_CACHE_TTL_MS, DEFAULTS.cacheTtlMs),
    credentialTtlS: numberFrom(env.LEARNBASE_CREDENTIAL_TTL_S, DEFAULTS.credentialTtlS),
    launchTokenTtlS: numberFrom(env.LEARNBASE_LAUNCH_TOKEN_TTL_S, DEFAULTS.launchTokenTtlS),
    refreshTokenTtlS: numberFrom(env.LEARNBASE_REFRESH_TOKEN_TTL_S, DEFAULTS.refreshTokenTtlS),
    ssoAdminSessionS: numberFrom(env.LEARNBASE_SSO_ADMIN_SESSION_S, DEFAULTS.ssoAdminSessionS),
    xapiDefaultVersion: env.LEARNBASE_XAPI_DEFAULT_VERSION?.trim() || DEFAULTS.xapiDefaultVersion,
    xapiVersionHeader: env.LEARNBASE_XAPI_VERSION_HEADER?.trim() || DEFAULTS.xapiVersionHeader,
    trustProxy: parseTrustProxy(env.LEARNBASE_TRUST_PROXY),
    headersTimeoutMs: numberFrom(env.LEARNBASE_HEADERS_TIMEOUT_MS, DEFAULTS.headersTimeoutMs),
    requestTimeoutMs: numberFrom(env.LEARNBASE_REQUEST_TIMEOUT_MS, DEFAULTS.requestTimeoutMs),
    keepAliveTimeoutMs: numberFrom(env.LEARNBASE_KEEP_ALIVE_TIMEOUT_MS, DEFAULTS.keepAliveTimeoutMs),
    maxConnections: numberFrom(env.LEARNBASE_MAX_CONNECTIONS, DEFAULTS.maxConnections),
    shutdownGraceMs: numberFrom(env.LEARNBASE_SHUTDOWN_GRACE_MS, DEFAULTS.shutdownGraceMs),
    metricsToken: env.LEARNBASE_METRICS_TOKEN?.trim() || undefined,
    rateLimitStore: env.LEARNBASE_RATE_LIMIT_STORE?.trim() || undefined,
    redisUrl: env.REDIS_URL?.trim() || undefined,
    rateLimitAuthorizePerMinute: numberFrom(env.LEARNBASE_RATE_LIMIT_AUTHORIZE_PER_MINUTE, DEFAULTS.rateLimitAuthorizePerMinute),
    rateLimitTokenPerMinute: numberFrom(env.LEARNBASE_RATE_LIMIT_TOKEN_PER_MINUTE, DEFAULTS.rateLimitTokenPerMinute),
    rateLimitFailedAuthPerMinute: numberFrom(env.LEARNBASE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE, DEFAULTS.rateLimitFailedAuthPerMinute),
    importDropDir: env.LEARNBASE_IMPORT_DROP_DIR?.trim() ? resolve(env.LEARNBASE_IMPORT_DROP_DIR.trim()) : undefined,
    importDropIntervalMs: numberFrom(env.LEARNBASE_IMPORT_DROP_INTERVAL_MS, DEFAULTS.importDropIntervalMs),
    importDropStableMs: numberFrom(env.LEARNBASE_IMPORT_DROP_STABLE_MS, DEFAULTS.importDropStableMs),
    importSyncMaxShare: numberFrom(env.LEARNBASE_IMPORT_SYNC_MAX_SHARE, DEFAULTS.importSyncMaxShare),
    outboundAllowPrivate: booleanFrom(env.LEARNBASE_OUTBOUND_ALLOW_PRIVATE, DEFAULTS.outboundAllowPrivate),
    secretsKey: env.LEARNBASE_SECRETS_KEY?.trim() || undefined,
    secretsKeyFile: pathFrom(env.LEARNBASE_SECRETS_KEY_FILE),
    secretsKeyPrevious: env.LEARNBASE_SECRETS_KEY_PREVIOUS?.trim() || undefined,
    secretsKeyPreviousFile: pathFrom(env.LEARNBASE_SECRETS_KEY_PREVIOUS_FILE),
  };
  const problems = Errors(AppConfig, candidate)[1].map((error) => `${error.instancePath || '/'} ${error.message}`);
  if (Array.isArray(candidate.trustProxy)) {
    for (const entry of candidate.trustProxy.filter((item) => !isProxyAddress(item))) {
      problems.push(`/trustProxy "${entry}" is not an IP address, a CIDR range, or one of loopback, linklocal, uniquelocal`);
    }
  }
  // Node refuses to create a server whose headers may take longer than the whole request.
  if (candidate.headersTimeoutMs > candidate.requestTimeoutMs) {
    problems.push('/headersTimeoutMs must not exceed /requestTimeoutMs (LEARNBASE_HEADERS_TIMEOUT_MS ≤ LEARNBASE_REQUEST_TIMEOUT_MS)');
  }
  if (candidate.secretsKey !== undefined && candidate.secretsKeyFile !== undefined) {
    problems.push('/secretsKey is set twice: LEARNBASE_SECRETS_KEY or LEARNBASE_SECRETS_KEY_FILE, not both');
  }
  if (candidate.secretsKeyPrevious !== undefined && candidate.secretsKeyPreviousFile !== undefined) {
    problems.push('/secretsKeyPrevious is set twice: LEARNBASE_SECRETS_KEY_PREVIOUS or LEARNBASE_SECRETS_KEY_PREVIOUS_FILE, not both');
  }
  problems.push(...rateLimitStoreProblems(candidate.rateLimitStore, candidate.redisUrl, candidate.database.kind));
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return Object.freeze(candidate as AppConfig);
}

/** A store the deployment cannot have: Redis without its URL, PostgreSQL on the embedded database. */
function rateLimitStoreProblems(store: string | undefined, redisUrl: string | undefined, database: string): string[] {
  if (store === 'redis' && !redisUrl) return ['/rateLimitStore redis needs REDIS_URL (LEARNBASE_RATE_LIMIT_STORE=redis)'];
  if (store === 'postgres' && database !== 'postgres') {
    return [
      '/rateLimitStore postgres needs PostgreSQL (DATABASE_URL or --database): the embedded database serves one process, whose counts the memory store keeps (leave LEARNBASE_RATE_LIMIT_STORE unset, or set it to memory)',
    ];
  }
  return [];
}
