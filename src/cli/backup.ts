import type { DatabaseConfig } from '../config.js';
import type { CommandOutput } from '../platform/control-socket.js';
import { backupDataFolder, restoreDataFolder } from '../platform/database/pglite-dump.js';
import { UsageError } from './command.js';

/**
 * `learnbase backup --data DIR FILE` and `learnbase restore --data DIR FILE [--force]` (embedded
 * PGlite only). They open the folder themselves, before any command could migrate what they copy,
 * and are never handed to a running server. Resolves to the exit code: 0 done; 2 with `--database`,
 * refused like `serve --workers` on PGlite (PostgreSQL has its own tools, which also work while
 * learnbase runs); any other refusal or failure throws, and the CLI prints it and exits 1 as for
 * every other command.
 */
export async function backupCommand(
  command: 'backup' | 'restore',
  database: DatabaseConfig,
  operands: string[],
  values: { force?: boolean; json?: boolean },
  output: CommandOutput,
): Promise<number> {
  if (operands.length !== 1) throw new UsageError(`Expected: learnbase ${command} --data DIR FILE [--force]`);
  const file = operands[0]!;
  if (database.kind === 'postgres') {
    const tool =
      command === 'backup'
        ? `pg_dump:\n  pg_dump --format=custom --file=${quote(file)} "$DATABASE_URL"`
        : `pg_restore:\n  pg_restore --clean --if-exists --no-owner --dbname="$DATABASE_URL" ${quote(file)}`;
    output.err(`learnbase: ${command} is for the embedded database (--data DIR). For PostgreSQL use ${tool}\n`);
    return 2;
  }
  if (database.dataDir === undefined) throw new Error(`learnbase ${command} needs a data folder (--data DIR).`);
  const force = values.force ?? false;

  if (command === 'backup') {
    const outcome = await backupDataFolder(database.dataDir, file, { force });
    say(
      output,
      values.json,
      { data: database.dataDir, ...outcome },
      `Backed up ${database.dataDir} to ${outcome.file} (${outcome.bytes} bytes).`,
    );
    return 0;
  }
  const outcome = await restoreDataFolder(database.dataDir, file, { force });
  const migrated = outcome.applied.length > 0 ? ` Applied ${outcome.applied.join(', ')} (the backup came from an older version).` : '';
  say(
    output,
    values.json,
    { file, ...outcome },
    `Restored ${file} into ${outcome.data}${outcome.replaced ? ', replacing the database that was there' : ''}.${migrated}`,
  );
  return 0;
}

function quote(file: string): string {
  return /^[\w./-]+$/.test(file) ? file : `'${file.replaceAll("'", `'\\''`)}'`;
}

function say(output: CommandOutput, json: boolean | undefined, value: object, text: string): void {
  output.out(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}
