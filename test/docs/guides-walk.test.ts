// The guides are one path a newcomer runs top to bottom against `npm start`: README's "Start",
// then every guide in the order of README's "Documentation" list. This test is that newcomer. It
// starts the real command line (`serve`, a fresh data folder, a free port), reads the demo credentials
// from the banner, and runs every ```sh block of the guides in order in one bash session, as a reader
// pastes them: the server's address is the `$LB` the reader set from the banner's "listening on",
// and `./bin/learnbase` runs this checkout's code. After each block it compares what the commands printed with the output block the page shows,
// and fails with the guide, the line and a diff when they differ. The convention the guides follow
// (output blocks, `…` for what varies, the `<!-- walk: … -->` markers) is docs/operations.md,
// "The guides are tested"; the parsing is guide-steps.ts, the comparison output-match.ts.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it, type TestContext } from 'node:test';
import { createPostgresDatabase, POSTGRES_AVAILABLE } from '../support/backends.js';
import { CLI_ARGS, startCli, waitForOutput } from '../support/cli.js';
import { TEST_SECRETS_KEY } from '../support/secrets-key.js';
import { guideOrder, parseGuide, section, type Guide, type Step } from './guide-steps.js';
import { ANY, compareOutput, parseHttp } from './output-match.js';
import { ShellSession, type BlockResult } from './shell-session.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README's "Start" (where the reader keeps the banner's values), then the guides in the README's order. */
function theGuides(): Guide[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = section(readme, 'Start', 'README.md');
  return [
    parseGuide('README.md', start.text, start.firstLine),
    ...guideOrder(readme).map((path) => parseGuide(path, readFileSync(join(ROOT, path), 'utf8'))),
  ];
}

/** What the walk reads from the start-up banner, as the reader does. */
interface Banner {
  port: number;
  values: Record<string, string>;
  admin: { email: string; password: string };
  signInAt: string;
}

const BANNER_FIELDS = {
  port: /listening on http:\/\/[^\s:]+:(\d+)/,
  LB: /listening on (http:\/\/\S+)/,
  KEY: /^\s*key:\s+(\S+)/m,
  SECRET: /^\s*secret:\s+(\S+)/m,
  admin: /^\s*admin:\s+(\S+) \/ (\S+)/m,
  CLIENT_ID: /^\s*clientId:\s+(\S+)/m,
  CLIENT_SECRET: /^\s*clientSecret:\s+(\S+)/m,
  REDIRECT_URI: /^\s*redirect URI:\s+(\S+)/m,
  signInAt: /^\s*sign in at:\s+(\S+)/m,
};

function readBanner(server: ChildProcess, ms = 60_000): Promise<Banner> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no complete banner within ${ms / 1000} s; saw:\n${seen}`)), ms);
    const onData = (chunk: Buffer) => {
      seen += chunk;
      const found = Object.fromEntries(Object.entries(BANNER_FIELDS).map(([name, pattern]) => [name, pattern.exec(seen)]));
      if (Object.values(found).some((match) => !match)) return;
      clearTimeout(timer);
      server.stdout?.off('data', onData);
      resolve({
        port: Number(found.port![1]),
        values: Object.fromEntries(
          ['LB', 'KEY', 'SECRET', 'CLIENT_ID', 'CLIENT_SECRET', 'REDIRECT_URI'].map((name) => [name, found[name]![1]!]),
        ),
        admin: { email: found.admin![1]!, password: found.admin![2]! },
        signInAt: found.signInAt![1]!,
      });
    };
    server.stdout?.on('data', onData);
    server.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before its banner; it printed:\n${seen}`));
    });
  });
}

/**
 * The outputs the guides show are `npm start`'s, on port 8080; the walk's server has its own. The
 * commands name no port: they read the address from `$LB` (README's "Start").
 */
const onPort = (text: string, port: number) =>
  text.replace(/(127\.0\.0\.1|localhost)(:|%3A)8080(?!\d)/g, (_, host: string, colon: string) => `${host}${colon}${port}`);
/** An address written into a command instead of `$LB`: a host of this machine with a port. */
const WRITTEN_ADDRESS = /\b(?:127\.0\.0\.1|(?:[a-z0-9-]+\.)?localhost):\d+/;

/** The browser step of docs/oauth.md: open the sign-in page, sign in as the demo admin, take the code from the redirect. */
async function signIn(authorizeUrl: string, admin: Banner['admin']): Promise<string> {
  const page = await fetch(authorizeUrl, { redirect: 'manual' });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`the sign-in page answered ${page.status}:\n${html.slice(0, 2000)}`);
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    form.set(name!, value!.replace(/&amp;/g, '&'));
  form.set('email', admin.email);
  form.set('password', admin.password);
  form.set('action', 'authorize');
  const cookie = page.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const answer = await fetch(new URL('/auth/oauth/authorize', authorizeUrl), {
    method: 'POST',
    body: form,
    headers: { cookie },
    redirect: 'manual',
  });
  const location = answer.headers.get('location');
  if (answer.status !== 303 || !location) throw new Error(`signing in answered ${answer.status}:\n${(await answer.text()).slice(0, 2000)}`);
  const redirect = new URL(location);
  const sent = new URL(authorizeUrl).searchParams.get('state');
  if (redirect.searchParams.get('state') !== sent)
    throw new Error(`the redirect's state is ${redirect.searchParams.get('state')}, the request's ${sent}`);
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error(`the redirect carries no code: ${location}`);
  return code;
}

/** `.a.b[0]` in the last answer's JSON body, or `Header` / `Header?parameter` in its headers (`curl -i`). */
function answerValue(source: string, last: BlockResult): string | undefined {
  const answer = parseHttp(last.stdout);
  if (source.startsWith('.')) {
    let value: unknown;
    try {
      value = JSON.parse(answer ? answer.body : last.stdout);
    } catch {
      return undefined;
    }
    for (const [, key, index] of source.matchAll(/\.([^.[]+)|\[(\d+)\]/g)) {
      value = (value as Record<string, unknown> | undefined)?.[key ?? Number(index)];
    }
    return value === undefined ? undefined : typeof value === 'string' ? value : JSON.stringify(value);
  }
  const [header, parameter] = source.split('?');
  const value = answer?.headers.find(([name]) => name === header!.toLowerCase())?.[1];
  return parameter === undefined || value === undefined ? value : (new URL(value).searchParams.get(parameter) ?? undefined);
}

const indent = (text: string) => text.replace(/^/gm, '    ');

/**
 * Stops the server and starts it again on the same port and storage, with `env` added to its
 * environment (a value starting `./` is a path in the reader's folder, where the reader runs
 * `npm start`); resolves once it listens.
 */
type Restart = (env: Record<string, string>) => Promise<void>;

/** A server started as `npm start` starts it, a bash session in the reader's folder, and the values read so far. */
class Walk {
  private last: BlockResult | undefined;

  private constructor(
    private readonly shell: ShellSession,
    private readonly banner: Banner,
    private readonly restartServer: Restart,
  ) {}

  static async start(folder: string, server: ChildProcess, databaseUrl: string | undefined, restart: Restart): Promise<Walk> {
    const banner = await readBanner(server);
    // The reader's folder: `./bin/learnbase` (this checkout's command line, as the tests run it:
    // cli.ts), `./docs` (the guides' example files, docs/examples/, as in the clone) and, on
    // PGlite, `./data`, the folder the server holds: commands default to it, as after `npm start`.
    const reader = join(folder, 'reader');
    mkdirSync(join(reader, 'bin'), { recursive: true });
    symlinkSync(fileURLToPath(new URL('../../docs', import.meta.url)), join(reader, 'docs'));
    const learnbase = join(reader, 'bin', 'learnbase');
    writeFileSync(learnbase, `#!/bin/sh\nexec '${process.execPath}' ${CLI_ARGS.map((arg) => `'${arg}'`).join(' ')} "$@"\n`);
    chmodSync(learnbase, 0o755);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: reader };
    delete env.LEARNBASE_DATA;
    delete env.DATABASE_URL;
    // On PostgreSQL the reader sets the key of the stored secrets as README's "Run against PostgreSQL"
    // says: the server's (cli.ts gives every process the tests start the same one).
    if (databaseUrl) Object.assign(env, { DATABASE_URL: databaseUrl, LEARNBASE_SECRETS_KEY: TEST_SECRETS_KEY });
    return new Walk(new ShellSession(reader, env, join(folder, 'blocks')), banner, restart);
  }

  /** Runs one guide's steps in order; answers every difference from what the page says. */
  async run(guide: Guide, t: TestContext): Promise<string[]> {
    const problems: string[] = [];
    const where = (step: Step) => `${step.guide}:${step.line}`;
    for (const step of guide.steps) {
      try {
        if (step.kind === 'skip') {
          t.diagnostic(`skipped ${where(step)}: ${step.reason}`);
        } else if (step.kind === 'banner') {
          for (const name of step.names) {
            const value = this.banner.values[name];
            if (value === undefined)
              throw new Error(`${name} is no value of the banner the walk knows (${Object.keys(this.banner.values).join(', ')})`);
            await this.shell.set(name, value);
          }
        } else if (step.kind === 'set') {
          if (!this.last) throw new Error('no answer before this marker to read values from');
          for (const { name, source } of step.assignments) {
            const value = answerValue(source, this.last);
            if (value === undefined)
              throw new Error(`${name} = ${source}: the last answer has no such value:\n${indent(this.last.stdout)}`);
            await this.shell.set(name, value);
          }
        } else if (step.kind === 'restart') {
          if (step.before.trim() !== '') {
            const result = await this.shell.run(step.before);
            if (result.exitCode !== 0)
              throw new Error(`the lines before npm start exited with ${result.exitCode}:\n${indent(result.stderr)}`);
          }
          await this.restartServer(step.env);
        } else if (step.kind === 'sign-in') {
          const url = step.at === 'banner' ? this.banner.signInAt : this.last?.stdout.trim();
          if (!url || !/^https?:\/\/\S+$/.test(url))
            throw new Error(`the block before the sign-in printed no address to open: ${JSON.stringify(url)}`);
          await this.shell.set(step.name, await signIn(url, this.banner.admin));
        } else {
          const problem = await this.runBlock(step);
          if (problem) problems.push(`${where(step)}:\n${indent(step.script)}\n${problem}`);
        }
      } catch (error) {
        problems.push(`${where(step)}: ${(error as Error).message}`);
      }
    }
    return problems;
  }

  private async runBlock(step: Extract<Step, { kind: 'run' }>): Promise<string | undefined> {
    const port = this.banner.port;
    // A reader on another port would have to edit such a command: the guides write "$LB" instead
    // (a comment may show the address the variable holds).
    const written = WRITTEN_ADDRESS.exec(step.script.replace(/(^|\s)#.*$/gm, ''));
    if (written) return `  writes the address ${written[0]}: a command reads it from "$LB" (or "$LB_DEMO"), set once in README's "Start"`;
    const result = await this.shell.run(step.script);
    this.last = result;
    const printed = `  it printed:\n${indent(result.stdout)}${result.stderr.trim() ? `\n  and on stderr:\n${indent(result.stderr)}` : ''}`;
    if (result.exitCode !== 0) return `  exited with ${result.exitCode}\n${printed}`;
    const failing = result.statuses.filter((status) => status === 0 || status >= 400);
    if (failing.length > 0 && step.expected?.lang !== 'http') {
      return `  answered ${failing.join(', ')}: a guide shows a failing answer with curl -i and an \`\`\`http block, so the reader sees the status\n${printed}`;
    }
    if (!step.expected) return undefined;
    const comparison = compareOutput(step.expected.lang, onPort(step.expected.text, port), result.stdout);
    if (comparison.ok) return undefined;
    return `  printed something else than the ${step.expected.lang} block at line ${step.expected.line} shows (- the page, + the server):\n${indent(comparison.diff)}`;
  }

  close(): void {
    this.shell.close();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const closed = new Promise((resolve) => server.on('close', resolve));
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 15_000);
  await closed;
  clearTimeout(timer);
}

const guides = theGuides();
const backends = POSTGRES_AVAILABLE ? (['pglite', 'postgres'] as const) : (['pglite'] as const);

for (const backend of backends) {
  describe(`the guides, run in order against a fresh server [${backend}]`, () => {
    const folder = mkdtempSync(join(tmpdir(), 'learnbase-walk-'));
    let server: ChildProcess | undefined;
    let database: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
    let walk: Walk | undefined;

    before(async () => {
      const data = join(folder, 'reader', 'data');
      mkdirSync(data, { recursive: true });
      if (backend === 'postgres') database = await createPostgresDatabase();
      // A port of its own rather than 0: the demo client's redirect URI carries the port it is given.
      const port = await freePort();
      const serve = ['serve', '--port', String(port), ...(database ? ['--database', database.url] : ['--data', data])];
      // On PGlite as `npm start` runs: no key set, so the server makes the key file beside `./data`.
      const keyEnv: Record<string, string> = database ? {} : { LEARNBASE_SECRETS_KEY: '' };
      server = startCli(serve, keyEnv);
      walk = await Walk.start(folder, server, database?.url, async (env) => {
        if (server) await stop(server);
        const inReader = Object.fromEntries(
          Object.entries(env).map(([name, value]) => [name, value.startsWith('./') ? join(folder, 'reader', value) : value]),
        );
        server = startCli(serve, { ...keyEnv, ...inReader });
        await waitForOutput(server, /listening on http:\/\/[^\s:]+:\d+/, 60_000);
      });
    });

    after(async () => {
      walk?.close();
      if (server) await stop(server);
      await database?.drop();
      rmSync(folder, { recursive: true, force: true });
    });

    for (const guide of guides) {
      it(`${guide.path} answers as it says`, async (t) => {
        assert.ok(walk, 'the server did not start');
        const problems = await walk.run(guide, t);
        assert.ok(problems.length === 0, `${guide.path}: ${problems.length} difference(s) from the server\n\n${problems.join('\n\n')}`);
      });
    }
  });
}

describe('the output blocks of the guides', () => {
  it('match JSON by structure, with … for what varies', () => {
    const expected = JSON.stringify({ id: ANY, token: 'lba_…', list: [1, ANY], more: { a: 1, [ANY]: ANY } });
    assert.ok(compareOutput('json', expected, '{"token":"lba_x","id":7,"list":[1,2,3],"more":{"a":1,"b":2}}').ok);
    assert.ok(!compareOutput('json', expected, '{"token":"lbr_x","id":7,"list":[1],"more":{"a":1}}').ok);
    assert.ok(!compareOutput('json', '{"a":1}', '{"a":1,"b":2}').ok, 'a property the page does not show');
    assert.ok(!compareOutput('json', '[1]', '[1,2]').ok, 'an element the page does not show');
  });

  it('match http blocks by status line, the headers shown and the body', () => {
    const answer = 'HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nETag: "abc"\r\n\r\n{"a":1}';
    assert.ok(compareOutput('http', 'HTTP/1.1 201 Created\netag: "…"\n\n{"a": 1}', answer).ok);
    assert.ok(!compareOutput('http', 'HTTP/1.1 200 OK\n\n{"a": 1}', answer).ok);
    assert.ok(!compareOutput('http', 'HTTP/1.1 201 Created\n', answer).ok, 'a body the page does not show');
    assert.ok(compareOutput('http', 'HTTP/1.1 201 Created\n\n…', answer).ok);
  });

  it('match text line by line, white space normalised, a … line standing for any lines', () => {
    assert.ok(compareOutput('text', 'Checked 2 rows:  0 new\n…\ndone', 'Checked 2 rows: 0 new\nx\ny\ndone\n').ok);
    assert.ok(!compareOutput('text', 'Checked 2 rows', 'Checked 3 rows').ok);
  });
});
