import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import type { AppConfig } from './config.js';
import { migrate } from './platform/database/migrate.js';
import { PostgresNotifications } from './platform/database/notifications.js';
import { openDatabase } from './platform/database/open-database.js';
import type { Database } from './platform/database/sql-client.js';
import { seedDemo, type DemoSeed } from './modules/tenancy/demo-seed.js';

/**
 * `learnbase serve`: opens the database, migrates, seeds the demo tenant on an empty
 * database, listens, and on SIGTERM/SIGINT stops taking requests, drains the ones in
 * flight and closes the database.
 */
export async function serve(config: AppConfig): Promise<{ app: FastifyInstance; db: Database }> {
  const db = await openDatabase(config.database);
  let notifications: PostgresNotifications | undefined;
  let app: FastifyInstance | undefined;
  try {
    await migrate(db);
    const demo = await seedDemo(db, demoRedirectUris(config));
    // Several processes may share a PostgreSQL database: they hear each other's cache invalidations.
    let log: FastifyInstance['log'] | undefined;
    notifications =
      config.database.kind === 'postgres'
        ? new PostgresNotifications(config.database.url, db, {
            onError: (error) => log?.warn({ err: error }, 'the LISTEN connection failed; reconnecting'),
          })
        : undefined;
    const started = await buildApp(config, db, { notifications });
    app = started;
    log = started.log;
    await started.listen({ port: config.port, host: config.host });
    printBanner(config, started, demo);

    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      started.log.info({ signal }, 'draining and shutting down');
      await started.close();
      await notifications?.close();
      await db.close();
      process.exit(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
    return { app: started, db };
  } catch (error) {
    // A start-up failure (the port taken, say) must not leave a connection holding the process open.
    await app?.close().catch(() => {});
    await notifications?.close().catch(() => {});
    await db.close().catch(() => {});
    throw error;
  }
}

/** Where the demo client's codes land: the server's own page that shows the code and how to exchange it. */
function demoRedirectUris(config: AppConfig): string[] {
  const port = config.port === 0 ? '' : `:${config.port}`;
  return [`http://127.0.0.1${port}/auth/demo/callback`, `http://localhost${port}/auth/demo/callback`];
}

function printBanner(config: AppConfig, app: FastifyInstance, demo: DemoSeed | undefined): void {
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const storage = config.database.kind === 'pglite' ? `PGlite in ${config.database.dataDir ?? 'memory'}` : 'PostgreSQL';
  const lines = [`learnbase is listening on ${base} (${storage}). API reference: ${base}/docs`];
  if (demo) {
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:learner@example.com' }));
    const activity = encodeURIComponent('https://example.com/courses/intro');
    const url = `${base}/xapi/activities/state?activityId=${activity}&agent=${agent}&stateId=bookmark`;
    const auth = `-u '${demo.apiKey.key}:${demo.apiKey.secret}' -H 'X-SVC-Tenant: ${demo.tenant}' -H 'X-Experience-API-Version: 2.0.0'`;
    lines.push(
      '',
      `Created the "${demo.tenant}" tenant and an API key. The secret is shown only this once:`,
      `  key:    ${demo.apiKey.key}`,
      `  secret: ${demo.apiKey.secret}`,
      '',
      `An admin and an OAuth client (docs/oauth.md walks through the flow):`,
      `  admin:        ${demo.admin.email} / ${demo.admin.password}`,
      `  clientId:     ${demo.client.clientId}`,
      `  clientSecret: ${demo.client.clientSecret}`,
      `  redirect URI: ${demo.client.redirectUris[0]}`,
      `  sign in at:   ${base}/auth/oauth/authorize?response_type=code&client_id=${demo.client.clientId}&redirect_uri=${encodeURIComponent(demo.client.redirectUris[0])}`,
      '',
      'Store a state document, then read it back:',
      `  curl -X PUT '${url}' ${auth} -H 'Content-Type: application/json' -d '{"page":3}'`,
      `  curl '${url}' ${auth}`,
      '',
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
