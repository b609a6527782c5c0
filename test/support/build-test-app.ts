import { after, before, describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../src/server/app.js';
import { DEFAULTS, withDefaults, type AppConfig } from '../../src/config.js';
import type { Database } from '../../src/platform/database/sql-client.js';
import { BACKENDS, type TestBackend } from './backends.js';
import { Given } from './given.js';
import { TEST_SECRETS_KEY } from './secrets-key.js';
import { TEST_PASSWORD_COST } from './test-env.js';

// Every test process that builds an app hashes passwords at the low test cost (passwords.ts).
Object.assign(process.env, TEST_PASSWORD_COST);

export interface TestContext {
  backend: TestBackend['name'];
  app: FastifyInstance;
  db: Database;
  config: AppConfig;
  given: Given;
  /** The base URL of the app on a real loopback socket (listens on first use). */
  url(): Promise<string>;
}

export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return withDefaults({
    database: { kind: 'pglite' },
    port: 0,
    host: '127.0.0.1',
    baseDomain: DEFAULTS.baseDomain,
    documentLimitBytes: DEFAULTS.documentLimitBytes,
    importLimitBytes: DEFAULTS.importLimitBytes,
    logLevel: 'silent',
    cacheTtlMs: DEFAULTS.cacheTtlMs,
    headersTimeoutMs: DEFAULTS.headersTimeoutMs,
    requestTimeoutMs: DEFAULTS.requestTimeoutMs,
    keepAliveTimeoutMs: DEFAULTS.keepAliveTimeoutMs,
    maxConnections: DEFAULTS.maxConnections,
    shutdownGraceMs: DEFAULTS.shutdownGraceMs,
    secretsKey: TEST_SECRETS_KEY,
    ...overrides,
  });
}

/**
 * Declares `title` once per backend (`title [pglite]`, `title [postgres]`): each gets a fresh
 * migrated database (a copy of the template, templates.ts) and an app on it. Tests isolate
 * themselves by creating their own tenant with `ctx.given.tenant()`. The app's outbound requests
 * may reach loopback (the tests' identity providers listen on 127.0.0.1) unless `buildOptions`
 * says `outboundLoopback: false`, as the tests of the guard do.
 */
export function describeEachBackend(
  title: string,
  body: (ctx: TestContext) => void,
  overrides: Partial<AppConfig> = {},
  buildOptions: Omit<BuildOptions, 'logger'> = {},
): void {
  for (const backend of BACKENDS) {
    describe(`${title} [${backend.name}]`, () => {
      const ctx = { backend: backend.name } as TestContext;
      let dispose: () => Promise<void> = async () => {};
      let listening: Promise<string> | undefined;

      before(async () => {
        const opened = await backend.openMigrated();
        dispose = opened.dispose;
        ctx.db = opened.db;
        ctx.config = testConfig(overrides);
        ctx.app = await buildApp(ctx.config, opened.db, { outboundLoopback: true, ...buildOptions, logger: false });
        ctx.given = new Given(ctx.app, opened.db);
        ctx.url = () => (listening ??= ctx.app.listen({ port: 0, host: '127.0.0.1' }));
      });

      after(async () => {
        await ctx.app?.close();
        await dispose();
      });

      body(ctx);
    });
  }
}
