import type { ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, redactQuerySecrets } from './app.js';
import { DEFAULTS, type AppConfig } from '../config.js';
import { migrate } from '../platform/database/migrate.js';
import { PostgresNotifyBus } from '../platform/database/notify-bus.js';
import { openDatabase } from '../platform/database/open-database.js';
import type { Database } from '../platform/database/sql-client.js';
import { listenForCommands, type CommandOutput, type ControlSocket, type HandedOffCommand } from '../platform/control-socket.js';
import { seedDemo, type DemoSeed } from './demo-seed.js';
import { countTenants, findTenantByName } from '../modules/tenancy/index.js';
import { prepareStoredSecrets } from '../modules/identity/index.js';
import { testLoopbackAllowance } from '../platform/outbound-http.js';
import { keyFileCreated, type SecretBox } from '../platform/secret-box.js';

/** After the grace period, how long closing the app and the database may take before the process exits regardless. */
const CLOSE_DEADLINE_MS = 5_000;
/** A refused connection is logged at most once in this period: under a flood, a line each would be a second flood. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;

export interface ServeOptions {
  /**
   * A worker of `serve --workers N` (src/server/workers.ts): the primary has migrated, seeded and prints
   * the banner, so the worker only serves (and exits when the primary tells it to).
   */
  worker?: boolean;
  /**
   * Runs a command the command line hands over while this server holds the PGlite folder
   * (platform/control-socket.ts); the command line (cli/server.ts) passes it. Without it, commands wait until the server stops.
   */
  commands?: (db: Database, config: AppConfig, secrets: SecretBox, command: HandedOffCommand, output: CommandOutput) => Promise<number>;
}

/**
 * `learnbase serve`: opens the database, migrates, seeds the demo tenant on an empty
 * database, listens, and on SIGTERM/SIGINT stops taking requests, drains the ones in
 * flight for at most `shutdownGraceMs`, closes the database and exits.
 */
export async function serve(config: AppConfig, options: ServeOptions = {}): Promise<{ app: FastifyInstance; db: Database }> {
  // The app's logger exists only once the app is built; failures before that have no one to tell.
  let log: FastifyInstance['log'] | undefined;
  const db = await openDatabase(config.database, {
    onError: (error) => log?.warn({ err: error }, 'a pooled PostgreSQL connection dropped while idle; the next request opens a new one'),
  });
  let notifications: PostgresNotifyBus | undefined;
  let app: FastifyInstance | undefined;
  let control: ControlSocket | undefined;
  try {
    const demo = options.worker ? undefined : await prepareDatabase(db, config);
    // Before anything reads a stored secret: refused without the key they are sealed under, and
    // those an earlier version left plain sealed now (docs/operations.md, "Secrets at rest").
    const secrets = await prepareStoredSecrets(db, config, !options.worker);
    // Several processes may share a PostgreSQL database: they hear each other's cache invalidations.
    notifications =
      config.database.kind === 'postgres'
        ? new PostgresNotifyBus(config.database.url, db, {
            onError: (error) => log?.warn({ err: error }, 'the LISTEN connection failed; reconnecting'),
          })
        : undefined;
    const started = await buildApp(config, db, {
      notifications,
      secrets: secrets.box,
      // Only ever true in a process the tests spawn (NODE_ENV=test and its own variable).
      outboundLoopback: testLoopbackAllowance(),
    });
    app = started;
    log = started.log;
    if (secrets.created) started.log.warn({ keyFile: secrets.created }, keyFileCreated(secrets.created));
    if (secrets.sealed > 0) started.log.info({ sealed: secrets.sealed }, 'encrypted the stored secrets an earlier version kept as issued');
    // Past the cap Node closes each new connection as soon as it is accepted, and the ones already
    // open are served as before: idle connections cannot use up the process's file descriptors.
    started.server.maxConnections = config.maxConnections;
    logRefusedConnections(started, config.maxConnections);
    const inFlight = trackResponses(started);
    await started.listen({ port: config.port, host: config.host });
    const { commands } = options;
    if (commands && config.database.kind === 'pglite' && config.database.dataDir !== undefined) {
      control = await listenForCommands(
        resolve(config.database.dataDir),
        (command, output) => commands(db, config, secrets.box, command, output),
        (message) => started.log.warn(message),
      );
    }
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      started.log.info({ signal, graceMs: config.shutdownGraceMs }, 'draining and shutting down');
      // Whatever hangs (a handler stuck on the database, a close that never returns), the process ends.
      setTimeout(() => {
        started.log.error({ afterMs: config.shutdownGraceMs + CLOSE_DEADLINE_MS }, 'shutdown did not finish: exiting anyway');
        process.exit(1);
      }, config.shutdownGraceMs + CLOSE_DEADLINE_MS).unref();
      let code = 0;
      try {
        await control?.close();
        await drain(started, inFlight, config.shutdownGraceMs);
        await notifications?.close();
        await db.close();
      } catch (error) {
        started.log.error({ err: error }, 'shutdown failed');
        code = 1;
      }
      process.exit(code);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
    // Printed once the signals are handled: whoever reads the banner and stops the server at once
    // (a script, a test) must get the graceful stop, not the default SIGTERM death.
    if (!options.worker)
      printBanner(config, listeningPort(started, config), demo, 1, secrets.created ? [keyFileCreated(secrets.created)] : []);
    return { app: started, db };
  } catch (error) {
    // A start-up failure (the port taken, say) must not leave a connection holding the process open.
    await control?.close().catch(() => {});
    await app?.close().catch(() => {});
    await notifications?.close().catch(() => {});
    await db.close().catch(() => {});
    throw error;
  }
}

interface InFlight {
  responses: Set<ServerResponse>;
  draining: boolean;
}

/**
 * Keeps the responses not yet done, to name them if the grace period cuts them off. While
 * draining, a kept-alive connection is closed as soon as its response is done: Node closes the
 * idle ones only once, when the server closes.
 */
function trackResponses(app: FastifyInstance): InFlight {
  const inFlight: InFlight = { responses: new Set(), draining: false };
  app.server.on('request', (_request, response: ServerResponse) => {
    inFlight.responses.add(response);
    response.once('close', () => {
      inFlight.responses.delete(response);
      if (inFlight.draining) app.server.closeIdleConnections();
    });
  });
  return inFlight;
}

/**
 * Stops accepting connections, closes the idle ones at once (a request arriving on a kept-alive
 * connection gets a 503 and `Connection: close`), lets the requests in flight finish, and after
 * `graceMs` closes every connection still open: a slow upload, a handler that does not return, a
 * connection that never sent a request. That last step is what bounds the drain: once the server
 * is closed, Node no longer enforces the headers and request timeouts.
 */
async function drain(app: FastifyInstance, inFlight: InFlight, graceMs: number): Promise<void> {
  inFlight.draining = true;
  const cutOff = setTimeout(() => {
    app.server.getConnections((_error, connections) => {
      const requests = [...inFlight.responses].map(({ req }) => `${req.method} ${redactQuerySecrets(req.url ?? '')}`);
      app.log.warn(
        { connections, requests: requests.slice(0, 20), requestCount: requests.length },
        'grace period over: closing the connections still open',
      );
      app.server.closeAllConnections();
    });
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cutOff);
  }
}

/** Logs that the connection cap was reached at most once a minute, with how many connections were refused since the last such line. */
function logRefusedConnections(app: FastifyInstance, maxConnections: number): void {
  let refused = 0;
  let quiet: NodeJS.Timeout | undefined;
  app.server.on('drop', () => {
    refused += 1;
    if (quiet) return;
    app.log.warn({ maxConnections, refused }, 'at the connection cap: new connections are closed at once');
    refused = 0;
    quiet = setTimeout(() => (quiet = undefined), REFUSAL_LOG_INTERVAL_MS);
    quiet.unref();
  });
}

/** A database that already had tenants, as the banner describes it. */
export interface ExistingTenants {
  count: number;
  /** A tenant named `demo` is among them (seeded by an earlier start, most likely). */
  demo: boolean;
}

/** Migrates, and on an empty database seeds the demo tenant (answered once, to print); else says what tenants there are. */
export async function prepareDatabase(db: Database, config: AppConfig): Promise<DemoSeed | ExistingTenants> {
  await migrate(db);
  const seeded = await seedDemo(db, demoRedirectUris(config));
  if (seeded) return seeded;
  return { count: await countTenants(db), demo: (await findTenantByName(db, 'demo')) !== undefined };
}

function listeningPort(app: FastifyInstance, config: AppConfig): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : config.port;
}

/** Where the demo client's codes land: the server's own page that shows the code and how to exchange it. */
function demoRedirectUris(config: AppConfig): string[] {
  const port = config.port === 0 ? '' : `:${config.port}`;
  return [`http://127.0.0.1${port}/auth/demo/callback`, `http://localhost${port}/auth/demo/callback`];
}

/**
 * What a newcomer needs on start: where the server listens and, on a fresh database, the demo
 * credentials; on one that had tenants, how to make a new key (the secrets were printed only once).
 */
export function printBanner(
  config: AppConfig,
  port: number,
  started: DemoSeed | ExistingTenants | undefined,
  workers = 1,
  notes: readonly string[] = [],
): void {
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const storage = config.database.kind === 'pglite' ? `PGlite in ${config.database.dataDir ?? 'memory'}` : 'PostgreSQL';
  const processes = workers > 1 ? `, ${workers} worker processes` : '';
  const lines = [`learnbase is listening on ${base} (${storage}${processes}). API reference: ${base}/docs`];
  if (started && 'apiKey' in started) {
    const demo = started;
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:learner@example.com' }));
    const activity = encodeURIComponent('https://example.com/courses/intro');
    const url = `${base}/xapi/activities/state?activityId=${activity}&agent=${agent}&stateId=bookmark`;
    const auth = `-u '${demo.apiKey.key}:${demo.apiKey.secret}' -H 'X-SVC-Tenant: ${demo.tenant}' -H 'X-Experience-API-Version: 2.0.0'`;
    lines.push(
      '',
      `Open the console at ${base}/console/?tenant=${demo.tenant} and sign in as ${demo.admin.email} / ${demo.admin.password}`,
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
      'Store a state document (POST merges into what is stored, so it can be repeated), then read it back:',
      `  curl -X POST '${url}' ${auth} -H 'Content-Type: application/json' -d '{"page":3}'`,
      `  curl '${url}' ${auth}`,
      'Replace it: a PUT over a stored document names what it replaces in If-Match (the ETag the GET',
      'answered, or * for whatever is stored); with neither If-Match nor If-None-Match it answers 409:',
      `  curl -X PUT '${url}' ${auth} -H 'If-Match: *' -H 'Content-Type: application/json' -d '{"page":4}'`,
      '',
    );
  } else if (started) {
    // On a PGlite folder the running server carries the command out (README, "Command line").
    const database = databaseFlag(config);
    const tenants = `${started.count} tenant${started.count === 1 ? '' : 's'}`;
    lines.push(
      '',
      started.demo
        ? `The "demo" tenant exists${started.count > 1 ? ` (one of ${tenants})` : ''}. Its API key's secret was shown once, when it was created.`
        : `This database has ${tenants}; \`./bin/learnbase tenant list${database}\` names ${started.count === 1 ? 'it' : 'them'}.`,
      `The console: ${base}/console/${started.demo ? '?tenant=demo' : ''} (its admins sign in there).`,
      'To make a new API key (from another terminal; the server can keep running):',
      `  ./bin/learnbase apikey create --tenant ${started.demo ? 'demo' : 'NAME'}${database}`,
      '',
    );
  }
  if (notes.length > 0) lines.push('', ...notes);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * The database flag a command needs to reach this server's database, or '' for the default
 * folder. A PostgreSQL URL is printed without its password: the banner goes to the logs.
 */
function databaseFlag(config: AppConfig): string {
  if (config.database.kind === 'pglite') {
    const dir = config.database.dataDir;
    return dir === undefined || dir === DEFAULTS.dataDir ? '' : ` --data ${shellWord(dir)}`;
  }
  let url: URL;
  try {
    url = new URL(config.database.url);
  } catch {
    return ' --database URL';
  }
  if (url.password) url.password = 'PASSWORD';
  return ` --database ${shellWord(url.toString())}`;
}

/** `text` as one shell word: as it is when plain, else in single quotes. */
const shellWord = (text: string) => (/^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);
