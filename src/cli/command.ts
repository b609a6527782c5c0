import { parseArgs } from 'node:util';
import type { FastifyBaseLogger } from 'fastify';
import type { Readable } from 'node:stream';
import type { AppConfig } from '../config.js';
import type { CommandOutput } from '../platform/control-socket.js';
import { LocalNotifyBus, PostgresNotifyBus, type NotifyBus } from '../platform/database/notify-bus.js';
import type { Database } from '../platform/database/sql-client.js';
import { OutboundHttp } from '../platform/outbound-http.js';
import type { Tenant } from '../kernel/principal.js';
import { textProblem } from '../platform/json-guard.js';
import { existingOrganisationIds } from '../modules/organisation/index.js';
import { requireTenant } from '../modules/tenancy/index.js';
import type { Composition } from '../server/composition.js';
import { Admission } from '../platform/http/admission.js';
import { SecretBox } from '../platform/secret-box.js';

/**
 * What every command of the command line shares (cli.ts dispatches to one file per noun): the
 * flags, where a command prints, how it refuses to run, and the small helpers of its arguments.
 */

/** Every flag of every command: one parser, so a flag means the same whichever command takes it. */
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
  'display-name': { type: 'string' },
  issuer: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'remove-client-secret': { type: 'boolean' },
  scopes: { type: 'string' },
  claim: { type: 'string', multiple: true },
  'metadata-url': { type: 'string' },
  'metadata-file': { type: 'string' },
  'sp-entity-id': { type: 'string' },
  'allow-sha1': { type: 'boolean' },
  admins: { type: 'string' },
  'email-trust': { type: 'string' },
  scope: { type: 'string' },
  'whole-tenant': { type: 'boolean', default: false },
  verify: { type: 'boolean', default: false },
  charset: { type: 'string' },
  force: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  yes: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export const parseCommandLine = (argv: string[]) => parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });

/** The flags as parsed. */
export type Values = ReturnType<typeof parseCommandLine>['values'];

/** Where `admin set-password` reads the password: the terminal, or what a handed-over command sent along. */
export type PasswordInput = Readable & { isTTY?: boolean };

/** A stream the import writes its progress to: a bar when it is a terminal, plain lines otherwise. */
export type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean };

/** A command that works on the database, as cli.ts runs it: from a terminal, or handed to the server holding the folder. */
export interface CommandContext {
  db: Database;
  config: AppConfig;
  values: Values;
  output: CommandOutput;
  stdin: PasswordInput;
  /** Where the import's progress goes: standard error, or the socket back to a command handed over. */
  progress: ProgressStream;
  /** Whether outbound requests may reach loopback addresses: only in a process the tests spawn (testLoopbackAllowance). */
  outboundLoopback: boolean;
  /** The migrations applied when the database was opened (none when the server already had it open). */
  applied: string[];
  /**
   * The stored secrets' box (docs/operations.md, "Secrets at rest"): prepared on first use by the
   * commands that store or rotate a secret, or the running server's when the command was handed over.
   */
  secrets: () => Promise<SecretBox>;
}

/** A noun's command: its verb and operands (the positional arguments after the noun); resolves to the exit code. */
export type DatabaseCommand = (context: CommandContext, args: string[]) => Promise<number>;

/** The command was called the wrong way: exit code 2, the message and the usage. */
export class UsageError extends Error {}

/** A command that needs a confirmation it was not given (`tenant delete` without --yes): exit code 2, the message alone. */
export class NotConfirmed extends Error {}

/** Prints what a command made: one JSON line with --json, the text otherwise. */
export function say(context: CommandContext, value: object, text: string): void {
  context.output.out(context.values.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/**
 * Refuses a verb the noun does not have: `Unknown command "tenant frobnicate": expected
 * tenant create|list|delete.`; with no verb at all, the usage of its `create`.
 */
export function unknownVerb(noun: string, verb: string | undefined, verbs: readonly string[], createUsage: string): UsageError {
  if (verb === undefined) return new UsageError(`Expected: learnbase ${createUsage}`);
  return new UsageError(`Unknown command "${noun} ${verb}": expected ${noun} ${verbs.join('|')}.`);
}

export function need(value: string | undefined, message: string): string {
  if (!value) throw new UsageError(message);
  return value;
}

export function none(operands: string[], usage: string): void {
  if (operands.length > 0) throw new UsageError(`Expected: learnbase ${usage}`);
}

export function one(operands: string[], usage: string): string {
  if (operands.length !== 1) throw new UsageError(`Expected: learnbase ${usage}`);
  return operands[0]!;
}

/** The tenant of `--tenant NAME`, which `command` needs; a tenant that does not exist is a 404 AppError (exit code 1). */
export function tenantNamed(context: CommandContext, command: string): Promise<Tenant> {
  return requireTenant(context.db, need(context.values.tenant, `${command} needs --tenant NAME.`));
}

/**
 * `--scope ENTRY_ID`, checked: the organisation entry a new API key or admin is limited to
 * (docs/learning.md, "Scoped administration and managers"), which must be an entry of the
 * tenant's structure now; undefined without the flag. An unknown entry is a usage error (exit 2).
 */
export async function scopeNamed(context: CommandContext, tenant: Tenant): Promise<string | undefined> {
  const scope = context.values.scope;
  if (scope === undefined) return undefined;
  const problem = textProblem(scope);
  if (scope === '' || problem)
    throw new UsageError(`--scope names an organisation entry by its id, and ${problem ? problem.why : 'is empty'}.`);
  if (!(await existingOrganisationIds(context.db, tenant.id, [scope])).has(scope)) {
    throw new UsageError(
      `Tenant "${tenant.name}" has no organisation entry "${scope}": --scope names an entry of the imported structure (GET /api/organisation).`,
    );
  }
  return scope;
}

/**
 * Runs `work` with the modules as the composition root builds them (server/composition.ts):
 * nothing started, caches off, and every port as the server has it (a tenant's deletion runs every
 * tenant eraser, an import tells every listener of people). What the services announce reaches
 * the running servers: on PostgreSQL every server process listens (LISTEN/NOTIFY), and publishing
 * needs only the command's own pool. A PGlite folder is held by one process at a time: either no
 * server runs, or the command runs inside the server that holds it (handed over,
 * pglite-handoff.ts), whose caches listen on the same database. The services hold no secrets key
 * (a command that seals or opens a secret takes `context.secrets()`); their background warnings go
 * to standard error.
 */
export async function withModules<T>(context: CommandContext, work: (modules: Composition) => Promise<T>): Promise<T> {
  const { db, config } = context;
  const bus: NotifyBus = config.database.kind === 'postgres' ? new PostgresNotifyBus(config.database.url, db) : LocalNotifyBus.of(db);
  try {
    const { composeModules } = await import('../server/composition.js');
    const modules = await composeModules({
      config: { ...config, cacheTtlMs: 0 },
      sql: db,
      bus,
      outbound: commandOutbound(context),
      secrets: new SecretBox(undefined),
      importAdmission: new Admission('imports', { perProcess: config.importsInFlight, perTenant: config.importsInFlightPerTenant }, 10),
      log: commandLog(context),
    });
    return await work(modules);
  } finally {
    if (bus instanceof PostgresNotifyBus) await bus.close();
  }
}

/** A logger for the services a command builds: warnings and errors to standard error, nothing else. */
function commandLog(context: CommandContext): FastifyBaseLogger {
  const say =
    (level: string) =>
    (first: unknown, message?: string): void => {
      const text = typeof first === 'string' ? first : (message ?? '');
      const err = typeof first === 'object' && first !== null ? (first as { err?: Error }).err : undefined;
      context.output.err(`learnbase: ${level}: ${text}${err ? ` (${err.message})` : ''}\n`);
    };
  const quiet = () => {};
  const log = {
    level: 'warn',
    fatal: say('error'),
    error: say('error'),
    warn: say('warning'),
    info: quiet,
    debug: quiet,
    trace: quiet,
    silent: quiet,
    child: () => log,
  };
  return log as unknown as FastifyBaseLogger;
}

/**
 * The outbound client of a command that reads a provider's metadata (`sso set --metadata-url`,
 * `sso refresh`): the server's guard, with the real reason a request failed told to the operator
 * running the command. Loopback only for a process the tests spawn (context.outboundLoopback).
 */
export const commandOutbound = (context: CommandContext) =>
  new OutboundHttp(
    { allowPrivate: context.config.outboundAllowPrivate, allowLoopback: context.outboundLoopback },
    {
      warn: (details, message) => context.output.err(`learnbase: ${message} (${(details as { reason?: string }).reason ?? 'no reason'})\n`),
    },
  );

/** 2026-11-23 21:05Z (UTC): lists are read by people to the minute; --json gives the full time. */
export const minute = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')}Z`;

/** Rows in aligned columns under `header`, or `empty` when there are none. */
export function table(header: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return empty;
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
