import { resolve } from 'node:path';
import type { DatabaseConfig } from '../config.js';
import { type CommandOutput, handOff, type HandedOffCommand } from '../platform/control-socket.js';
import { readPassword } from './admin.js';
import type { PasswordInput, Values } from './command.js';

/**
 * The PGlite hand-off, the command line's side: while a server holds a PGlite folder, no other
 * process may open it, so a command on that folder is sent to the server through its control
 * socket (platform/control-socket.ts), which runs it on its own open database (cli.ts's
 * `runHandedOff`) and streams back what it prints and its exit code. On PostgreSQL, or when no
 * server listens in the folder, the command opens the database itself.
 */

/** The commands that never go to a server: serve itself, and backup and restore, which need the folder to themselves. */
export const NOT_HANDED_OFF: readonly string[] = ['serve', 'backup', 'restore'];

/**
 * Hands the command to the server holding `database`'s folder, writing what it prints to `output`.
 * Resolves to its exit code, or undefined when there is no such server (PostgreSQL, no folder
 * named, or nobody listening): the caller then runs the command itself.
 */
export async function handOffToServer(
  database: DatabaseConfig,
  positionals: string[],
  values: Values,
  output: CommandOutput,
  stdin: PasswordInput,
): Promise<number | undefined> {
  if (database.kind !== 'pglite' || database.dataDir === undefined) return undefined;
  return handOff(resolve(database.dataDir), () => handOffRequest(positionals, values, stdin), output);
}

/**
 * The command as the server is to run it: the import's file named by its absolute path (the server
 * runs elsewhere), the database flags left out (the server uses its own), and the new password of
 * `admin set-password` read here, where the terminal is.
 */
async function handOffRequest(positionals: string[], values: Values, stdin: PasswordInput): Promise<HandedOffCommand> {
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
  return { argv: args, stdin: setsPassword ? `${await readPassword(stdin)}\n` : undefined };
}
