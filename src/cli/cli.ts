import { Readable } from 'node:stream';
import { loadConfig, type AppConfig } from '../config.js';
import { type CommandOutput, type HandedOffCommand, writableTo } from '../platform/control-socket.js';
import type { Database } from '../platform/database/sql-client.js';
import { testLoopbackAllowance } from '../platform/outbound-http.js';
import { isWorker, releaseWorker, WorkersRefused } from '../server/workers.js';
import {
  type CommandContext,
  type DatabaseCommand,
  NotConfirmed,
  parseCommandLine,
  type PasswordInput,
  type ProgressStream,
  UsageError,
  type Values,
} from './command.js';
import { migrateCommand, withDatabase } from './database.js';
import { keyFileCreated, type SecretBox } from '../platform/secret-box.js';
import { handOffToServer, NOT_HANDED_OFF } from './pglite-handoff.js';

/**
 * `learnbase`: the command line (README.md, "Command line"). This file reads the arguments and
 * dispatches to one file per noun; a command on the database runs here, or in the server that
 * holds the PGlite folder (pglite-handoff.ts).
 */

const USAGE = `Usage: learnbase <command> [options]

Commands:
  serve [--port 8080] [--host 127.0.0.1] [--base-domain localhost] [--workers N|auto]
                                  migrate, then serve the API and the xAPI endpoints; with
                                  --workers (or LEARNBASE_WORKERS), N processes on one port
                                  (PostgreSQL only; auto: one per core)
  migrate                         apply pending migrations and exit
  tenant create NAME              create a tenant
  apikey create --tenant NAME [--scope ENTRY_ID]
                                  print a new API key and secret for Basic authentication; with
                                  --scope, limited to that organisation entry and every entry below
                                  it (docs/learning.md)
  admin create --tenant NAME --email E --password P [--scope ENTRY_ID]
                                  create an admin account that can sign in on the authorize page;
                                  --scope as for apikey create
  scim-token create --tenant NAME
                                  print a new bearer token for the tenant's SCIM client (its identity
                                  provider: docs/identity.md)
  hr-webhook create --tenant NAME
                                  print a new HR webhook endpoint (its path and signing secret) for the
                                  tenant's HR system (docs/identity.md)
  sso set --tenant NAME --name CONNECTION --issuer URL --client-id ID
          [--client-secret S | --remove-client-secret] [--scopes "openid email profile"]
          [--claim CLAIM=ATTRIBUTE …] [--admins CLAIM=VALUE]
          [--display-name TEXT]
          [--email-trust unless-unverified|verified-only]
                                  create or replace a single sign-on connection (an OpenID Connect
                                  provider: docs/identity.md); --display-name: what the sign-in
                                  page's button reads (default: the name); without --client-secret a
                                  replacement keeps the stored secret
  sso set --tenant NAME --name CONNECTION --metadata-url URL|--metadata-file FILE
          [--sp-entity-id ID] [--allow-sha1] [--claim ATTRIBUTE=ATTRIBUTE …] [--admins ATTRIBUTE=VALUE]
          [--display-name TEXT]
                                  the same for a SAML 2.0 identity provider, from its metadata
                                  (--allow-sha1: take its signatures using SHA-1)
  client create --tenant NAME --redirect-uri URI [--redirect-uri URI2 …] [--name N]
                                  register an OAuth client; prints its id and secret
  import users|organisation|jobs --tenant NAME FILE [--verify] [--charset NAME]
                                  the API's import from a file: users from JSON or CSV, organisation
                                  and jobs from JSON (docs/imports.md); exits 0 when every row was
                                  imported, 1 when rows were skipped, 2 when the file was refused,
                                  3 on any other failure
  backup --data DIR FILE [--force]
                                  write PGlite's dump of DIR's database to FILE (a .tar.gz); refused
                                  while a server uses DIR; --force replaces an existing FILE
  restore --data DIR FILE [--force]
                                  load a backup into DIR, migrating it when it is from an older version;
                                  --force replaces the database in a non-empty DIR (PostgreSQL: use
                                  pg_dump / pg_restore, docs/operations.md)
  tenant list                     list the tenants
  reports verify [--tenant NAME]  compare the counts the reports keep with a recount from the
                                  records (every tenant without --tenant); exits 1 when they differ
  reports rebuild [--tenant NAME] make the counts the reports keep again from the records
  tenant delete NAME --yes        delete the tenant and every row it owns (its name becomes free)
  apikey list --tenant NAME       list the tenant's API keys: created, last used (to the minute), revoked, scope
  apikey revoke --tenant NAME KEY revoke an API key; every running server refuses it within a second
  scim-token list --tenant NAME   list the tenant's SCIM tokens: created, revoked
  scim-token revoke --tenant NAME ID
                                  revoke a SCIM token; its next request is refused
  hr-webhook list --tenant NAME   list the tenant's HR webhook endpoints: created, revoked
  hr-webhook revoke --tenant NAME ID
                                  revoke an HR webhook endpoint; its next message is refused
  sso list --tenant NAME          list the tenant's single sign-on connections (never a secret)
  sso refresh --tenant NAME --name CONNECTION
                                  read a SAML connection's metadata URL again now (the server
                                  does it daily): a provider's new key or address is taken
  sso delete --tenant NAME --name CONNECTION
                                  delete a single sign-on connection and the admins it made
  secrets rotate                  encrypt every stored secret (HR webhook signing secrets, OpenID
                                  Connect client secrets) again under LEARNBASE_SECRETS_KEY, those
                                  under LEARNBASE_SECRETS_KEY_PREVIOUS included (docs/operations.md)
  client list --tenant NAME       list the tenant's OAuth clients
  client delete --tenant NAME ID  delete an OAuth client; the tokens issued to it stop working
  client rotate-secret --tenant NAME ID
                                  print a new client secret (once); the old one stops working
  admin list --tenant NAME        list the tenant's admins, which are locked out, their scopes,
                                  and how they sign in (a password, a connection)
  admin set-password --tenant NAME --email E
                                  read a new password from standard input (never from the command line)
  admin set-scope --tenant NAME --email E --scope ENTRY_ID|--whole-tenant
                                  limit an admin to an organisation entry and what is below it, or
                                  give them the whole tenant again; their tokens are revoked
  admin delete --tenant NAME --email E
                                  delete an admin; their tokens stop working
  admin unlock --tenant NAME --email E
                                  clear the failed sign-ins and lock-out of that account

Every command takes --database URL (PostgreSQL) or --data DIR (embedded PGlite, default ./data),
also read from DATABASE_URL / LEARNBASE_DATA. Commands but serve print one JSON object with --json.
Exit codes (but import's): 0 done, 1 when what a command names does not exist or a value is refused,
2 for a usage error.`;

/**
 * The commands on the database, by noun: each file runs its verbs, and is loaded when its noun is
 * run. A command is a process of its own, started by scripts and the tests hundreds of times: it
 * loads what its noun needs (`tenant list` neither the SAML nor the import modules), which is most
 * of its start-up.
 */
const DATABASE_COMMANDS: Record<string, () => Promise<DatabaseCommand>> = {
  migrate: async () => migrateCommand,
  tenant: async () => (await import('./tenant.js')).tenantCommand,
  apikey: async () => (await import('./apikey.js')).apikeyCommand,
  'scim-token': async () => (await import('./scim-token.js')).scimTokenCommand,
  'hr-webhook': async () => (await import('./hr-webhook.js')).hrWebhookCommand,
  sso: async () => (await import('./sso.js')).ssoCommand,
  client: async () => (await import('./client.js')).clientCommand,
  admin: async () => (await import('./admin.js')).adminCommand,
  import: async () => (await import('./import.js')).importCommand,
  secrets: async () => (await import('./secrets.js')).secretsCommand,
  reports: async () => (await import('./reports.js')).reportsCommand,
};

/**
 * What a command reads its configuration from, prints to and reads a password from: the process's
 * own environment and terminal, or, for the tests that run commands inside their own process
 * (test/support/cli.ts), an environment and streams of theirs.
 */
export interface CommandIo {
  env: NodeJS.ProcessEnv;
  output: CommandOutput;
  stdin: PasswordInput;
  progress: ProgressStream;
}

const TERMINAL: CommandIo = {
  env: process.env,
  output: {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
  },
  // Looked up when a command takes them, not when this module loads: a command that never reads
  // standard input leaves it alone.
  get stdin() {
    return process.stdin;
  },
  get progress() {
    return process.stderr;
  },
};

/** Runs one command; resolves to the process exit code (the server keeps running after `serve`). */
export async function runCli(argv: string[], io: CommandIo = TERMINAL): Promise<number> {
  const code = await runCommand(argv, io);
  // A cluster worker's channel to its primary keeps it alive: a worker that failed to start lets
  // go of it, so that it exits and the primary sees the failure.
  if (code !== 0 && isWorker()) releaseWorker();
  return code;
}

function runCommand(argv: string[], io: CommandIo): Promise<number> {
  return guarded(argv, io.output, async (positionals, values) => {
    const config = loadConfig(
      {
        database: values.database,
        data: values.data,
        port: values.port,
        host: values.host,
        baseDomain: values['base-domain'],
      },
      io.env,
    );
    const [noun, ...args] = positionals as [string, ...string[]];
    // Loaded for `serve` only: the server's modules take most of a command's start-up, which every
    // other command (run by scripts and the tests hundreds of times) would pay for nothing.
    if (positionals.join(' ') === 'serve') return (await import('./server.js')).serveCommand(config, values, runHandedOff);
    // Before the database is opened: a backup opens the folder itself, and must not migrate what it copies.
    if (noun === 'backup' || noun === 'restore')
      return (await import('./backup.js')).backupCommand(noun, config.database, args, values, io.output);
    const handedOff = await handOffToServer(config.database, positionals, values, io.output, io.stdin);
    if (handedOff !== undefined) return handedOff;
    return withDatabase(config, (db, applied) =>
      runDatabaseCommand(positionals, {
        db,
        config,
        values,
        output: io.output,
        stdin: io.stdin,
        progress: io.progress,
        outboundLoopback: testLoopbackAllowance(io.env),
        applied,
        secrets: once(() => commandSecrets(db, config, io.output)),
      }),
    );
  });
}

/**
 * A command handed over by the command line to this server, which holds the PGlite folder
 * (pglite-handoff.ts): run on the server's open database (already migrated) with its
 * configuration, printing to the command line.
 */
export function runHandedOff(
  db: Database,
  config: AppConfig,
  secrets: SecretBox,
  command: HandedOffCommand,
  output: CommandOutput,
): Promise<number> {
  return guarded(command.argv, output, async (positionals, values) => {
    if (NOT_HANDED_OFF.includes(positionals[0]!)) throw new UsageError(`"${positionals[0]}" cannot be handed to a running server.`);
    const stdin: PasswordInput = Readable.from(command.stdin === undefined ? [] : [command.stdin]);
    const progress: ProgressStream = writableTo(output.err);
    return runDatabaseCommand(positionals, {
      db,
      config,
      values,
      output,
      stdin,
      progress,
      outboundLoopback: testLoopbackAllowance(),
      applied: [],
      secrets: async () => secrets,
    });
  });
}

/**
 * The box of a command that stores or rotates a secret, run on its own database: checked against
 * what is stored as a server's start checks it (identity's prepareStoredSecrets); a key file it
 * creates beside a PGlite folder is said on standard error.
 */
async function commandSecrets(db: Database, config: AppConfig, output: CommandOutput): Promise<SecretBox> {
  const { prepareStoredSecrets } = await import('../modules/identity/index.js');
  const prepared = await prepareStoredSecrets(db, config, true);
  if (prepared.created) output.err(`learnbase: ${keyFileCreated(prepared.created)}\n`);
  return prepared.box;
}

/** `work` run once, its promise shared by every later call. */
function once<T>(work: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= work());
}

/** Every command that works on the database (all but serve, backup and restore), by its noun. */
async function runDatabaseCommand(positionals: string[], context: CommandContext): Promise<number> {
  const [noun, ...args] = positionals as [string, ...string[]];
  const load = Object.hasOwn(DATABASE_COMMANDS, noun) ? DATABASE_COMMANDS[noun] : undefined;
  if (!load) throw new UsageError(`Unknown command "${positionals.join(' ')}".`);
  return (await load())(context, args);
}

/** Parses the command line, runs `work`, and turns what it throws into a message and an exit code. */
async function guarded(
  argv: string[],
  output: CommandOutput,
  work: (positionals: string[], values: Values) => Promise<number>,
): Promise<number> {
  let commandName: string | undefined;
  try {
    const { values, positionals } = parseCommandLine(argv);
    commandName = positionals[0];
    if (values.help || positionals.length === 0) {
      output.out(`${USAGE}\n`);
      return values.help ? 0 : 2;
    }
    return await work(positionals, values);
  } catch (error) {
    if (error instanceof WorkersRefused || error instanceof NotConfirmed) {
      output.err(`learnbase: ${error.message}\n`);
      return 2;
    }
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      output.err(`learnbase: ${(error as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    output.err(`learnbase: ${error instanceof Error ? error.message : String(error)}\n`);
    // For `import`, 1 means "rows were skipped": a failure of the command itself is 3.
    return commandName === 'import' ? 3 : 1;
  }
}
