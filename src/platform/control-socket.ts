import { chmodSync, lstatSync, mkdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/**
 * While a server holds a PGlite folder (folder-lock.ts), no other process may open it. The command
 * line still works: the server listens on a Unix socket inside the folder, and a command that finds
 * it there hands its arguments over; the server runs the command on its own open database and
 * streams back what the command prints and its exit code.
 *
 * The socket lives in a directory only the server's OS user may enter (mode 0700), so only that user
 * (and root) can connect: the same people who could open the folder's files directly.
 *
 * The protocol is newline-delimited JSON. The command sends one request line; the server answers
 * with `{"out": text}` and `{"err": text}` lines as the command prints, and one `{"exit": code}`.
 */

/** The directory inside the data folder that holds the socket. */
const CONTROL_DIR = '.control';
const SOCKET_NAME = 'learnbase.sock';
/** Linux's limit for a socket path (sun_path, 108 bytes with the terminating NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
/** Arguments and standard input together: far more than any command needs. */
const MAX_REQUEST_BYTES = 1_048_576;

export interface HandedOffCommand {
  /** The command line's arguments, with file paths made absolute by the sender. */
  argv: string[];
  /** Standard input the command needs (the new password of `admin set-password`), read by the sender. */
  stdin?: string;
}

/** Where a command's output goes: the terminal, or the socket back to the command line. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

export type CommandRunner = (command: HandedOffCommand, output: CommandOutput) => Promise<number>;

export interface ControlSocket {
  close(): Promise<void>;
}

export const controlSocketPath = (folder: string): string => join(folder, CONTROL_DIR, SOCKET_NAME);

/**
 * Listens for handed-over commands in `folder`. Call it only while holding the folder's lock: a
 * socket file left by a process that was killed is removed first. Resolves to undefined (after
 * `warn`) where the folder's path is too long for a socket.
 */
export async function listenForCommands(
  folder: string,
  run: CommandRunner,
  warn: (message: string) => void,
): Promise<ControlSocket | undefined> {
  const path = controlSocketPath(folder);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    warn(`the data folder's path is too long for a command socket (${path}); commands must wait until the server stops`);
    return undefined;
  }
  const directory = join(folder, CONTROL_DIR);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  // mkdir leaves an existing directory as it was: make sure it is ours alone.
  chmodSync(directory, 0o700);
  removeStaleSocket(path);

  const connections = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    void serveOne(socket, run);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      server.unref();
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of connections) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) rmSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

async function serveOne(socket: Socket, run: CommandRunner): Promise<void> {
  socket.on('error', () => {});
  const send = (message: object) => {
    if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
  };
  const command = await readRequest(socket);
  if (command === undefined) {
    send({ err: 'learnbase: the command sent to the server was not understood\n' });
    send({ exit: 2 });
    socket.end();
    return;
  }
  let code: number;
  try {
    code = await run(command, { out: (text) => send({ out: text }), err: (text) => send({ err: text }) });
  } catch (error) {
    send({ err: `learnbase: ${(error as Error).message}\n` });
    code = 1;
  }
  send({ exit: code });
  socket.end();
}

/** The request line, or undefined when it is missing, too long or not a command. */
async function readRequest(socket: Socket): Promise<HandedOffCommand | undefined> {
  const lines = createInterface({ input: socket, crlfDelay: Infinity });
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_REQUEST_BYTES) socket.destroy();
  });
  try {
    for await (const line of lines) {
      const parsed = JSON.parse(line) as Partial<HandedOffCommand>;
      const valid =
        Array.isArray(parsed.argv) &&
        parsed.argv.every((argument) => typeof argument === 'string') &&
        (parsed.stdin === undefined || typeof parsed.stdin === 'string');
      return valid ? { argv: parsed.argv as string[], stdin: parsed.stdin } : undefined;
    }
  } catch {
    // Not JSON, or the connection went away.
  } finally {
    lines.close();
  }
  return undefined;
}

/**
 * Hands a command (made by `prepare`) to the server holding `folder`, writing what it prints to `output`. Resolves to
 * the command's exit code, or undefined when no server listens there (no socket, or one left by a
 * process that is gone): the caller then opens the folder itself.
 */
export async function handOff(
  folder: string,
  prepare: () => Promise<HandedOffCommand>,
  output: CommandOutput,
): Promise<number | undefined> {
  const path = controlSocketPath(folder);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) return undefined;
  const socket = await connectTo(path);
  if (socket === undefined) return undefined;
  let command: HandedOffCommand;
  try {
    // Only now, with a server found: preparing may read standard input, which the command needs
    // itself when it runs here instead.
    command = await prepare();
  } catch (error) {
    socket.destroy();
    throw error;
  }
  socket.write(`${JSON.stringify(command)}\n`);
  let exit: number | undefined;
  try {
    for await (const line of createInterface({ input: socket, crlfDelay: Infinity })) {
      const message = JSON.parse(line) as { out?: string; err?: string; exit?: number };
      if (typeof message.out === 'string') output.out(message.out);
      if (typeof message.err === 'string') output.err(message.err);
      if (typeof message.exit === 'number') exit = message.exit;
    }
  } catch {
    // The connection broke, or the server sent something else: answered below as a stopped server.
  } finally {
    socket.destroy();
  }
  if (exit === undefined) {
    output.err('learnbase: the server stopped before the command finished; check with a list command whether it took effect\n');
    return 1;
  }
  return exit;
}

function connectTo(path: string): Promise<Socket | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.off('error', onError);
      socket.on('error', () => {});
      resolve(socket);
    });
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED' || error.code === 'ENOTDIR') resolve(undefined);
      else reject(error);
    };
    socket.once('error', onError);
  });
}

/** A stream for code that writes progress to a stream (the import), forwarding to `write`. */
export function writableTo(write: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      write(chunk.toString());
      done();
    },
  });
}
