import { createReadStream, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import cliProgress from 'cli-progress';
import type { SqlClient } from '../platform/database/sql-client.js';
import { AppError } from '../platform/http/app-error.js';
import type { Tenant } from '../kernel/principal.js';
import {
  IMPORT_FILE_KINDS,
  importFileContents,
  type ImportFileKind,
  type ImportFileOutcome,
  type JobsCheck,
  type OrganisationCheck,
} from '../modules/imports/index.js';
import { requireTenant } from '../modules/tenancy/index.js';
import type { PeopleChanges } from '../kernel/people-changes.port.js';
import { type CommandContext, type ProgressStream, say, UsageError, withModules } from './command.js';
import { operatorPrincipal } from '../modules/auth/index.js';

export interface ImportFileOptions {
  kind: ImportFileKind;
  tenant: Tenant;
  file: string;
  verify: boolean;
  /** A users CSV file's charset, as `text/csv; charset=` names one to the API; UTF-8 when absent. */
  charset?: string;
  baseDomain: string;
  /** What hears of the people imported, in the import's transaction: the composition root's port (composition.ts). */
  peopleChanges: PeopleChanges;
  /** Where progress goes: a bar when it is a terminal, plain lines otherwise (stderr). */
  progress: ProgressStream;
}

/** A file the import refused as a whole (unreadable, not JSON or CSV, refused by the rules): exit code 2. */
export class RefusedFile extends Error {
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * `learnbase import users|organisation|jobs --tenant NAME FILE [--verify] [--charset NAME]`. Exit
 * codes of its own: 0 every row imported, 1 rows skipped, 2 the file refused (printed like a
 * result, on standard output), 3 any other failure (cli.ts turns a thrown error into 3 for import).
 */
export async function importCommand(context: CommandContext, [kind, file, ...extra]: string[]): Promise<number> {
  const { values } = context;
  if (!IMPORT_FILE_KINDS.includes(kind as ImportFileKind) || !file || extra.length > 0 || !values.tenant) {
    throw new UsageError('Expected: learnbase import users|organisation|jobs --tenant NAME FILE [--verify] [--charset NAME]');
  }
  const tenantName = values.tenant;
  let outcome: ImportFileOutcome;
  try {
    const tenant = await requireTenant(context.db, tenantName).catch((error: Error) => {
      throw new RefusedFile(error.message);
    });
    // As the server does: every module that follows the people (learning's dynamic assignments) hears of them.
    outcome = await withModules(context, (modules) =>
      importFile(context.db, {
        kind: kind as ImportFileKind,
        tenant,
        file,
        verify: values.verify ?? false,
        ...(values.charset !== undefined ? { charset: values.charset } : {}),
        baseDomain: context.config.baseDomain,
        peopleChanges: modules.ports.peopleChanges,
        progress: context.progress,
      }),
    );
  } catch (error) {
    if (!(error instanceof RefusedFile)) {
      // 1 means "rows skipped" here: any other failure (the database unreachable) is 3.
      context.output.err(`learnbase: ${(error as Error).message}\n`);
      return 3;
    }
    const problems = (error.details?.problems as unknown[] | undefined) ?? [];
    say(
      context,
      { refused: error.message, ...error.details },
      [`Refused: ${error.message}`, ...problems.map((item) => `  ${JSON.stringify(item)}`)].join('\n'),
    );
    return 2;
  }
  if (outcome.kind !== 'users' && outcome.check) {
    say(context, outcome.check, checkLines(outcome.kind, outcome.check, tenantName).join('\n'));
    return 0;
  }
  if (outcome.kind !== 'users') {
    say(
      context,
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
  say(context, summary, lines.join('\n'));
  return summary.skipped > 0 ? 1 : 0;
}

/**
 * `learnbase import users|organisation|jobs --tenant T FILE`: the same import as the API, from a
 * JSON file (the API's body; for users also a bare array of users) or, for users, a CSV file (the
 * format of docs/imports.md). The command line is the `operator` principal, recorded in the
 * import history under the operating-system user that ran it.
 */
export async function importFile(sql: SqlClient, options: ImportFileOptions): Promise<ImportFileOutcome> {
  const started = Date.now();
  const report = progressReporter(options.progress);
  const bytes = await readWithProgress(options.file, report);
  const principal = operatorPrincipal(options.tenant, 'cli', userInfo().username);
  try {
    const outcome = await importFileContents(sql, principal, {
      kind: options.kind,
      file: options.file,
      bytes,
      verify: options.verify,
      ...(options.charset !== undefined ? { charset: options.charset } : {}),
      baseDomain: options.baseDomain,
      peopleChanges: options.peopleChanges,
      onParsed: (what) => report.stage(what),
    });
    report.done(
      outcome.kind === 'users'
        ? `${outcome.summary.rows} rows in ${seconds(started)} s`
        : `${outcome.entries} entries ${outcome.check ? 'checked ' : ''}in ${seconds(started)} s`,
    );
    return outcome;
  } catch (error) {
    report.stop();
    // The API's 4xx for a body bad as a whole is the command line's refused file.
    if (error instanceof AppError && error.status < 500) throw new RefusedFile(error.message, error.details);
    throw error;
  }
}

/**
 * An organisation or jobs check in words: the counts in one line, then the examples, one line per
 * kind (docs/imports.md, "Checking a replacement first").
 */
function checkLines(kind: 'organisation' | 'jobs', check: OrganisationCheck | JobsCheck, tenantName: string): string[] {
  const what = kind === 'jobs' ? 'jobs' : 'organisation entries';
  const lost = kind === 'jobs' ? 'would lose their job' : 'would lose their position';
  const people = `${check.people.linked} ${check.people.linked === 1 ? 'person' : 'people'} linked, ${check.people.unlinked} ${lost}`;
  const fresh =
    'competencies' in check ? `; ${check.competencies.added} new ${check.competencies.added === 1 ? 'competency' : 'competencies'}` : '';
  const lines = [
    `Checked ${check.entries} ${what} for "${tenantName}": ${check.added} new, ${check.removed} removed, ${check.changed} changed, ${check.unchanged} unchanged; ${people}${fresh}. Nothing was imported.`,
  ];
  const list = (label: string, items: string[]) => {
    if (items.length > 0) lines.push(`  ${label}: ${items.join(', ')}`);
  };
  list('new', check.examples.added);
  list('removed', check.examples.removed);
  list('changed', check.examples.changed);
  list(
    lost,
    check.examples.unlinked.map((person) => (person.name === undefined ? person.agentKey : `${person.name} (${person.agentKey})`)),
  );
  if ('competencies' in check) list('new competencies', check.examples.competencies);
  return lines;
}

async function readWithProgress(file: string, report: ProgressReporter): Promise<Buffer> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new RefusedFile(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
  report.reading(size);
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of createReadStream(file)) {
    chunks.push(chunk as Buffer);
    read += (chunk as Buffer).length;
    report.read(read);
  }
  return Buffer.concat(chunks);
}

const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);

interface ProgressReporter {
  reading(total: number): void;
  read(bytes: number): void;
  stage(what: string): void;
  done(what: string): void;
  stop(): void;
}

/**
 * A bar over the bytes read on a terminal, then the stage the import is in; plain lines when
 * the output is a file or a pipe (a log, CI), so nothing there is full of redraw codes.
 */
function progressReporter(out: ProgressStream): ProgressReporter {
  if (!out.isTTY) {
    return {
      reading: (total) => out.write(`reading ${megabytes(total)} MB\n`),
      read: () => {},
      stage: (what) => out.write(`${what}…\n`),
      done: (what) => out.write(`done: ${what}\n`),
      stop: () => {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { stream: out, format: '{stage} [{bar}] {percentage}% | {value}/{total} MB', hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  let total = 0;
  let running = false;
  return {
    reading(bytes) {
      total = bytes;
      bar.start(Number(megabytes(bytes)), 0, { stage: 'reading  ' });
      running = true;
    },
    read(bytes) {
      bar.update(Number(megabytes(bytes)));
    },
    stage(what) {
      bar.update(Number(megabytes(total)), { stage: 'read     ' });
      bar.stop();
      running = false;
      out.write(`${what}…\n`);
    },
    done(what) {
      out.write(`done: ${what}\n`);
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}

const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
