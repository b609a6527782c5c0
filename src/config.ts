import { compile as compileTrust } from '@fastify/proxy-addr';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

const DatabaseConfig = Type.Union([
  Type.Object({ kind: Type.Literal('pglite'), dataDir: Type.Optional(Type.String({ minLength: 1 })) }),
  Type.Object({ kind: Type.Literal('postgres'), url: Type.String({ pattern: '^postgres(ql)?://' }) }),
]);

export const AppConfig = Type.Object({
  database: DatabaseConfig,
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  host: Type.String({ minLength: 1 }),
  /** `{tenant}.{baseDomain}` names a tenant in the Host header. */
  baseDomain: Type.String({ minLength: 1, pattern: '^[a-z0-9.-]+$' }),
  /** Largest document body accepted, in bytes (413 above it). */
  documentLimitBytes: Type.Integer({ minimum: 1 }),
  logLevel: Type.Union([
    Type.Literal('fatal'),
    Type.Literal('error'),
    Type.Literal('warn'),
    Type.Literal('info'),
    Type.Literal('debug'),
    Type.Literal('trace'),
    Type.Literal('silent'),
  ]),
  /** How long a verified credential or a resolved tenant is reused by one process, in ms. */
  cacheTtlMs: Type.Integer({ minimum: 0 }),
  /**
   * Which reverse proxies' `X-Forwarded-For` / `-Proto` / `-Host` to believe (Fastify's
   * `trustProxy`): the client address the sign-in throttle counts, the scheme and host of the
   * OAuth metadata. Unset: none, the connection's peer is the client.
   */
  trustProxy: Type.Optional(Type.Union([Type.Boolean(), Type.Array(Type.String({ minLength: 1 }))])),
});
export type AppConfig = Static<typeof AppConfig>;
export type DatabaseConfig = Static<typeof DatabaseConfig>;

export const DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  baseDomain: 'localhost',
  dataDir: './data',
  documentLimitBytes: 16 * 1024 * 1024,
  logLevel: 'info',
  cacheTtlMs: 5_000,
} as const;

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
  return text.split(',').map((item) => item.trim()).filter((item) => item !== '');
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
    documentLimitBytes: Number(env.LEARNBASE_DOCUMENT_LIMIT_BYTES ?? DEFAULTS.documentLimitBytes),
    logLevel: env.LOG_LEVEL ?? DEFAULTS.logLevel,
    cacheTtlMs: Number(env.LEARNBASE_CACHE_TTL_MS ?? DEFAULTS.cacheTtlMs),
    trustProxy: parseTrustProxy(env.LEARNBASE_TRUST_PROXY),
  };
  const problems = [...Value.Errors(AppConfig, candidate)].map((error) => `${error.instancePath || '/'} ${error.message}`);
  if (Array.isArray(candidate.trustProxy)) {
    for (const entry of candidate.trustProxy.filter((item) => !isProxyAddress(item))) {
      problems.push(`/trustProxy "${entry}" is not an IP address, a CIDR range, or one of loopback, linklocal, uniquelocal`);
    }
  }
  if (problems.length > 0) throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return Object.freeze(candidate as AppConfig);
}
