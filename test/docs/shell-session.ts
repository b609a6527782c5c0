// One bash process for the whole walk, as a reader keeps one terminal: a variable a block sets is
// there for the blocks after it. Each block is sourced from a file with its output in files of its
// own, and `curl` is wrapped to note each answer's status on stderr, leaving stdout as the reader sees it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BlockResult {
  stdout: string;
  stderr: string;
  /** The exit status of the block's last command. */
  exitCode: number;
  /** The HTTP status of every curl transfer, in order (0: no answer). */
  statuses: number[];
}

const STATUS_LINE = /^WALK-STATUS (\d{3})$/gm;

/** curl's progress meter (on stderr when stdout is not a terminal, as here; a reader's terminal shows none). */
const withoutProgress = (stderr: string) =>
  stderr
    .split(/[\r\n]+/)
    .filter((line) => line.trim() !== '' && !/% Total|Dload|--:--:--|^[\s\d.kMG]+$/.test(line))
    .join('\n');

export class ShellSession {
  private seen = '';
  private count = 0;
  private exited: string | undefined;
  private readonly shell: ChildProcessWithoutNullStreams;

  /** `cwd` is the reader's folder; the block files and their outputs go to `scratch`. */
  constructor(
    cwd: string,
    env: NodeJS.ProcessEnv,
    private readonly scratch: string,
  ) {
    mkdirSync(scratch, { recursive: true });
    this.shell = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.shell.stdout.on('data', (chunk: Buffer) => (this.seen += chunk));
    this.shell.stderr.on('data', (chunk: Buffer) => (this.seen += chunk));
    this.shell.on('close', (code, signal) => (this.exited = `bash exited (${signal ?? code})`));
    this.shell.stdin.write(`curl() { command curl --write-out '%{stderr}WALK-STATUS %{http_code}\\n' "$@"; }\n`);
  }

  /** Runs `script` as if typed into the terminal; rejects when it has not finished after `ms`. */
  async run(script: string, ms = 60_000): Promise<BlockResult> {
    const n = ++this.count;
    const file = (suffix: string) => join(this.scratch, `block-${n}.${suffix}`);
    writeFileSync(file('sh'), `${script}\n`);
    // The block reads nothing from bash's standard input, which carries the blocks after it.
    this.shell.stdin.write(
      `source '${file('sh')}' > '${file('out')}' 2> '${file('err')}' < /dev/null; printf '\\nWALK-DONE ${n} %d\\n' $?\n`,
    );
    const exitCode = await this.done(n, ms);
    const stdout = readFileSync(file('out'), 'utf8');
    const stderr = readFileSync(file('err'), 'utf8');
    return {
      stdout,
      stderr: withoutProgress(stderr.replace(STATUS_LINE, '')),
      exitCode,
      statuses: [...stderr.matchAll(STATUS_LINE)].map((match) => Number(match[1])),
    };
  }

  /** Sets a shell variable to `value`, quoted so that nothing in it is expanded. */
  async set(name: string, value: string): Promise<void> {
    await this.run(`${name}='${value.replaceAll("'", `'\\''`)}'`);
  }

  close(): void {
    this.shell.stdin.end();
    this.shell.kill('SIGKILL');
  }

  private done(n: number, ms: number): Promise<number> {
    const pattern = new RegExp(`WALK-DONE ${n} (\\d+)\\n`);
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const poll = () => {
        const match = pattern.exec(this.seen);
        if (match) {
          this.seen = this.seen.slice(match.index + match[0].length);
          resolve(Number(match[1]));
        } else if (this.exited) reject(new Error(`${this.exited}; it printed:\n${this.seen}`));
        else if (Date.now() - started > ms) reject(new Error(`the block did not finish within ${ms / 1000} s`));
        else setTimeout(poll, 20);
      };
      poll();
    });
  }
}
