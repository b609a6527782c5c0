import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { runBackupCommand } from './backup.js';
import { loadConfig, type AppConfig } from '../config.js';
import { isWorker, parseWorkers, releaseWorker, serveWorkers, WorkersRefused } from '../server/workers.js';
import { serve } from '../server/main.js';
import {
  isLifecycleCommand,
  LifecycleUsageError,
  LIFECYCLE_USAGE,
  readPassword,
  runLifecycleCommand,
  type PasswordInput,
} from './lifecycle-commands.js';
import { handOff, writableTo, type CommandOutput, type HandedOffCommand } from '../platform/control-socket.js';
import { migrate } from '../platform/database/migrate.js';
import { openDatabase } from '../platform/database/open-database.js';
import type { Database } from '../platform/database/sql-client.js';
import { createAdmin } from '../modules/auth/admins/admin.service.js';
import { issueApiKey } from '../modules/auth/api-keys/api-key.service.js';
import { createClient } from '../modules/auth/oauth/client.service.js';
import { TenancyService } from '../modules/tenancy/tenancy.service.js';
import { importFile, RefusedFile, type ImportFileKind, type ImportFileOutcome } from './import.js';

const USAGE = `Usage: learnbase <command> [options]

Commands:
  serve [--port 8080] [--host 127.0.0.1] [--base-domain localhost] [--workers N|auto]
                                  migrate, then serve the API and the xAPI endpoints; with
                                  --workers (or LEARNBASE_WORKERS), N processes on one port
                                  (PostgreSQL only; auto: one per core)
  migrate                         apply pending migrations and exit
  tenant create NAME              create a tenant
  apikey create --tenant NAME     print a new API key and secret for Basic authentication
  admin create --tenant NAME --email E --password P
                                  create an admin account that can sign in on the authorize page
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
${LIFECYCLE_USAGE}

Every command takes --database URL (PostgreSQL) or --data DIR (embedded PGlite, default ./data),
also read from DATABASE_URL / LEARNBASE_DATA. Commands but serve print one JSON object with --json.
Exit codes (but import's): 0 done, 1 when what a command names does not exist or a value is refused,
2 for a usage error.`;

const OPTIONS = {
  database: { type: 'string' },
  data: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'base-domain': { type: 'string' },
  workers: { type: 'string' },
  tenant: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  name: { type: 'string' },
  verify: { type: 'boolean', default: false },
  charset: { type: 'string' },
  force: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  yes: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

class UsageError extends Error {}

type Values = ReturnType<typeof parseCommandLine>['values'];

const TERMINAL: CommandOutput = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

const parseCommandLine = (argv: string[]) => parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });

/** Runs one command; resolves to the process exit code (the server keeps running after `serve`). */
export async function runCli(argv: string[]): Promise<number> {
  const code = await runCommand(argv);
  // A cluster worker's channel to its primary keeps it alive: a worker that failed to start lets
  // go of it, so that it exits and the primary sees the failure.
  if (code !== 0 && isWorker()) releaseWorker();
  return code;
}

function runCommand(argv: string[]): Promise<number> {
  return guarded(argv, TERMINAL, async (positionals, values) => {
    const config = loadConfig({
      database: values.database,
      data: values.data,
      port: values.port,
      host: values.host,
      baseDomain: values['base-domain'],
    });
    if (positionals.join(' ') === 'serve') {
      const workers = parseWorkers(values.workers ?? process.env.LEARNBASE_WORKERS);
      if (workers > 1 && !isWorker()) await serveWorkers(config, workers);
      else await serve(config, { worker: isWorker(), commands: runHandedOff });
      return 0;
    }
    if (positionals[0] === 'backup' || positionals[0] === 'restore') {
      // Before withDatabase: a backup opens the folder itself, and must not migrate what it copies.
      if (positionals.length !== 2) throw new UsageError(`Expected: learnbase ${positionals[0]} --data DIR FILE [--force]`);
      return await runBackupCommand(positionals[0], config.database, positionals[1], values);
    }
    if (config.database.kind === 'pglite' && config.database.dataDir !== undefined) {
      // A server holding the folder runs the command for us (platform/control-socket.ts).
      const handedOff = await handOff(resolve(config.database.dataDir), () => handOffRequest(positionals, values), TERMINAL);
      if (handedOff !== undefined) return handedOff;
    }
    return await withDatabase(config, (db, applied) =>
      runDatabaseCommand(db, config, positionals, values, applied, TERMINAL, process.stdin),
    );
  });
}

/**
 * A command handed over by the command line to this server, which holds the PGlite folder: run on
 * the server's open database (already migrated) with its configuration, printing to the command line.
 */
export function runHandedOff(db: Database, config: AppConfig, command: HandedOffCommand, output: CommandOutput): Promise<number> {
  return guarded(command.argv, output, async (positionals, values) => {
    if (['serve', 'backup', 'restore'].includes(positionals[0]!))
      throw new UsageError(`"${positionals[0]}" cannot be handed to a running server.`);
    return runDatabaseCommand(
      db,
      config,
      positionals,
      values,
      [],
      output,
      Readable.from(command.stdin === undefined ? [] : [command.stdin]),
    );
  });
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
    if (error instanceof WorkersRefused) {
      output.err(`learnbase: ${error.message}\n`);
      return 2;
    }
    if (
      error instanceof UsageError ||
      error instanceof LifecycleUsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      output.err(`learnbase: ${(error as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    output.err(`learnbase: ${error instanceof Error ? error.message : String(error)}\n`);
    // For `import`, 1 means "rows were skipped": a failure of the command itself is 3.
    return commandName === 'import' ? 3 : 1;
  }
}

/**
 * The command as the server is to run it: the import's file named by its absolute path (the server
 * runs elsewhere), the database flags left out (the server uses its own), and the new password of
 * `admin set-password` read here, where the terminal is.
 */
async function handOffRequest(positionals: string[], values: Values): Promise<HandedOffCommand> {
  const args =
    positionals[0] === 'import' && positionals[2] !== undefined
      ? [...positionals.slice(0, 2), resolve(positionals[2]), ...positionals.slice(3)]
      : [...positionals];
  for (const [name, value] of Object.entries(values)) {
    if (name === 'database' || name === 'data' || value === undefined || value === false) continue;
    if (value === true) args.push(`--${name}`);
    else for (const item of Array.isArray(value) ? value : [value]) args.push(`--${name}`, item);
  }
  const setsPassword = positionals[0] === 'admin' && positionals[1] === 'set-password' && values.password === undefined;
  return { argv: args, stdin: setsPassword ? `${await readPassword(process.stdin)}\n` : undefined };
}

/** Every command that works on the database (all but serve, backup and restore). */
async function runDatabaseCommand(
  db: Database,
  config: AppConfig,
  positionals: string[],
  values: Values,
  applied: string[],
  output: CommandOutput,
  stdin: PasswordInput,
): Promise<number> {
  const say = (value: object, text: string) => output.out(values.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  if (isLifecycleCommand(positionals)) return runLifecycleCommand(db, config, positionals, values, output, stdin);
  switch (positionals[0]) {
    case 'migrate': {
      say({ applied }, applied.length ? `Applied ${applied.join(', ')}.` : 'The database is up to date.');
      return 0;
    }
    case 'tenant': {
      const name = expect(positionals, 'create', 'tenant create NAME');
      const tenant = await new TenancyService(db, 0).create(name);
      say({ id: tenant.id, name: tenant.name }, `Created tenant "${tenant.name}".`);
      return 0;
    }
    case 'apikey': {
      expect(positionals, 'create', 'apikey create --tenant NAME', false);
      if (!values.tenant) throw new UsageError('apikey create needs --tenant NAME.');
      const tenant = await new TenancyService(db, 0).require(values.tenant);
      const issued = await issueApiKey(db, tenant);
      say(issued, `key:    ${issued.key}\nsecret: ${issued.secret}\n(the secret is shown only this once)`);
      return 0;
    }
    case 'admin': {
      expect(positionals, 'create', 'admin create --tenant NAME --email E --password P', false);
      if (!values.tenant || !values.email || !values.password) {
        throw new UsageError('admin create needs --tenant NAME, --email E and --password P.');
      }
      const tenant = await new TenancyService(db, 0).require(values.tenant);
      const admin = await createAdmin(db, tenant, values.email, values.password);
      say(admin, `Created admin ${admin.email} in tenant "${tenant.name}".`);
      return 0;
    }
    case 'client': {
      expect(positionals, 'create', 'client create --tenant NAME --redirect-uri URI [--name N]', false);
      if (!values.tenant || !values['redirect-uri']?.length) {
        throw new UsageError('client create needs --tenant NAME and at least one --redirect-uri URI.');
      }
      const tenant = await new TenancyService(db, 0).require(values.tenant);
      const issued = await createClient(db, tenant, values['redirect-uri'], values.name);
      say(issued, `clientId:     ${issued.clientId}\nclientSecret: ${issued.clientSecret}\n(the secret is shown only this once)`);
      return 0;
    }
    case 'import':
      return runImport(db, config, positionals, values, output);
    default:
      throw new UsageError(`Unknown command "${positionals.join(' ')}".`);
  }
}

/** Opens the database, makes sure the schema is current, runs the command with the migrations it applied, closes. */
async function withDatabase(config: AppConfig, work: (db: Database, applied: string[]) => Promise<number>): Promise<number> {
  const db = await openDatabase(config.database);
  try {
    return await work(db, await migrate(db));
  } finally {
    await db.close();
  }
}

const IMPORT_KINDS = ['users', 'organisation', 'jobs'] as const;

async function runImport(
  db: Database,
  config: AppConfig,
  positionals: string[],
  values: { tenant?: string; verify?: boolean; charset?: string; json?: boolean },
  output: CommandOutput,
): Promise<number> {
  const say = (value: object, text: string) => output.out(values.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  const [, kind, file, ...extra] = positionals;
  if (!IMPORT_KINDS.includes(kind as ImportFileKind) || !file || extra.length > 0 || !values.tenant) {
    throw new UsageError('Expected: learnbase import users|organisation|jobs --tenant NAME FILE [--verify] [--charset NAME]');
  }
  const tenantName = values.tenant;
  let outcome: ImportFileOutcome;
  try {
    const tenant = await new TenancyService(db, 0).require(tenantName).catch((error: Error) => {
      throw new RefusedFile(error.message);
    });
    outcome = await importFile(db, {
      kind: kind as ImportFileKind,
      tenant,
      file,
      verify: values.verify ?? false,
      ...(values.charset !== undefined ? { charset: values.charset } : {}),
      baseDomain: config.baseDomain,
      progress: output === TERMINAL ? process.stderr : writableTo(output.err),
    });
  } catch (error) {
    if (!(error instanceof RefusedFile)) {
      // 1 means "rows skipped" here: any other failure (the database unreachable) is 3.
      output.err(`learnbase: ${(error as Error).message}\n`);
      return 3;
    }
    const problems = (error.details?.problems as unknown[] | undefined) ?? [];
    say(
      { refused: error.message, ...error.details },
      [`Refused: ${error.message}`, ...problems.map((item) => `  ${JSON.stringify(item)}`)].join('\n'),
    );
    return 2;
  }
  if (outcome.kind !== 'users') {
    say(
      { entries: outcome.entries },
      `Imported ${outcome.entries} ${outcome.kind === 'jobs' ? 'jobs' : 'organisation entries'} into "${tenantName}".`,
    );
    return 0;
  }
  const summary = outcome.summary;
  const lines = [
    `${values.verify ? 'Checked' : 'Imported'} ${summary.rows} rows into "${tenantName}": ${summary.new} new, ${summary.existing} existing, ${summary.skipped} skipped; ${summary.errorCount} errors, ${summary.warningCount} warnings.`,
    ...summary.errors.map((item) => `  error   row ${item.row}: ${item.type}: ${item.message}`),
    ...summary.warnings.map((item) => `  warning row ${item.row}: ${item.type}: ${item.message}`),
  ];
  say(summary, lines.join('\n'));
  return summary.skipped > 0 ? 1 : 0;
}

function expect(positionals: string[], verb: string, usage: string, withName = true): string {
  const [, given, name, ...extra] = positionals;
  if (given !== verb || (withName && !name) || (!withName && name) || extra.length > 0) {
    throw new UsageError(`Expected: learnbase ${usage}`);
  }
  return name ?? '';
}
