import { spawn, type ChildProcess } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

import { type CommandOutput, writableTo } from '../../src/platform/control-socket.js';

import { TEST_LOOPBACK_ENV } from '../../src/platform/outbound-http.js';
import { TEST_SECRETS_KEY } from './secrets-key.js';
import { TEST_PASSWORD_COST } from './test-env.js';
import { builtIsCurrent, ROOT } from './built.js';
import { BASELINE_WASM_ONLY } from './node-flags.js';

/**
 * How a test runs `learnbase …`: the built command line when dist/ is current (npm test builds it
 * first), else from source through tsx; with BASELINE_WASM_ONLY either way. Decided once per test
 * process; the arguments of `node` (tsx named by its path, so they work from any folder).
 */
export const CLI_ARGS = builtIsCurrent()
  ? [BASELINE_WASM_ONLY, fileURLToPath(new URL('./run-built-cli.mjs', import.meta.url))]
  : [BASELINE_WASM_ONLY, '--import', import.meta.resolve('tsx'), fileURLToPath(new URL('./run-cli.ts', import.meta.url))];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * What every process the tests spawn runs with: the tests' secrets key (unless a test gives another,
 * or '' for none), and the test-only loopback allowance of outbound requests (its providers listen
 * on 127.0.0.1; honoured only under NODE_ENV=test, outbound-http.ts).
 */
export const SPAWNED_ENV: NodeJS.ProcessEnv = {
  LOG_LEVEL: 'warn',
  DATABASE_URL: '',
  LEARNBASE_DATA: '',
  LEARNBASE_SECRETS_KEY: TEST_SECRETS_KEY,
  ...TEST_PASSWORD_COST,
  [TEST_LOOPBACK_ENV]: 'allow',
};

/** Starts `learnbase …` in a child process (CLI_ARGS). */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, [...CLI_ARGS, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...SPAWNED_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs `learnbase …` to its end in this process and collects what it printed: the command line's
 * own entry (cli.ts runCli) with the environment startCli gives a child, an empty standard input
 * (or `input`), and its output written here instead of to a terminal. A command in a process of
 * its own costs about a second more: starting Node, loading the modules and compiling PGlite's
 * WebAssembly, which this process does once. The tests of what a process does (its exit, signals,
 * a folder held by another process, migrations racing between processes, `serve`) use
 * runCliProcess and startCli.
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<CliResult> {
  if (args[0] === 'serve') throw new Error('`learnbase serve` runs in a process of its own: startCli or runCliProcess');
  const { runCli: run } = await import('../../src/cli/cli.js');
  let stdout = '';
  let stderr = '';
  const output: CommandOutput = { out: (text) => void (stdout += text), err: (text) => void (stderr += text) };
  const code = await run(args, {
    env: { ...process.env, ...SPAWNED_ENV, ...env },
    output,
    stdin: Readable.from(input === undefined ? [] : [input]),
    progress: writableTo(output.err),
  });
  return { code, stdout, stderr };
}

/** Runs `learnbase …` to its end in a child process (CLI_ARGS) and collects what it printed. */
export function runCliProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const child = startCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `learnbase …` to its end in this process with `input` on its standard input (runCli gives none). */
export function runCliWithInput(args: string[], input: string): Promise<CliResult> {
  return runCli(args, {}, input);
}

/** Runs `learnbase …` to its end in a child process with `input` on its standard input. */
export function runCliProcessWithInput(args: string[], input: string): Promise<CliResult> {
  const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...SPAWNED_ENV },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Resolves with everything printed so far once `pattern` appears on stdout (rejects after `ms`). */
export function waitForOutput(child: ChildProcess, pattern: RegExp, ms = 30_000): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; saw:\n${seen}`)), ms);
    const onData = (chunk: Buffer) => {
      seen += chunk;
      if (pattern.test(seen)) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve(seen);
      }
    };
    child.stdout?.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing ${pattern}; saw:\n${seen}`));
    });
  });
}
