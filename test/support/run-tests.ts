// `npm test`: runs every test file (or those named as arguments) through node:test, then says once,
// after the summary, whether PostgreSQL was skipped. `--unit` (`npm run test:unit`) runs the unit
// tests alone: those beside the code in src/ (no database, no server: test/architecture/unit-tests.test.ts
// holds them to it) and the console's in test/console/. Each test process that finds no PostgreSQL
// server appends a line to the file the SKIPPED_BACKENDS_FILE variable names (backends-report.ts)
// instead of warning on its own.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { SKIPPED_BACKENDS_FILE } from './backends-report.js';
import { builtIsCurrent, ROOT } from './built.js';
import { BASELINE_WASM_ONLY } from './node-flags.js';
import { TEST_PASSWORD_COST } from './test-env.js';

const ROOTS = ['test', 'src'];

function testFiles(): string[] {
  return ROOTS.flatMap((root) =>
    readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.test.ts'))
      .map((path) => join(root, path)),
  ).sort();
}

/**
 * Test files run two at a time: each has its own databases (a PGlite in memory, a PostgreSQL
 * database of its own), temporary folders and ports (0), so none waits on another, and the
 * machines have two cores (22.6 minutes one by one, 17.3 two at a time, session 8; 7.8 two at a
 * time once the migrated databases were templates, session 14).
 * LEARNBASE_TEST_CONCURRENCY=1 runs them one by one, as when timing a test.
 */
function concurrency(): number {
  const value = Number(process.env.LEARNBASE_TEST_CONCURRENCY ?? 2);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`LEARNBASE_TEST_CONCURRENCY must be a positive integer (got ${process.env.LEARNBASE_TEST_CONCURRENCY})`);
  return value;
}

function runNodeTest(files: string[], reportFile: string): Promise<number> {
  const args = [BASELINE_WASM_ONLY, '--import', 'tsx', '--test', `--test-concurrency=${concurrency()}`, ...files];
  const child = spawn(process.execPath, args, {
    stdio: 'inherit',
    env: { ...process.env, ...TEST_PASSWORD_COST, [SKIPPED_BACKENDS_FILE]: reportFile },
  });
  // Ctrl-C reaches the whole process group; a SIGTERM sent to this process alone is passed on.
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGINT', () => {});
  return new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** One line for the whole run, or nothing when every file reached PostgreSQL. */
function skippedPostgres(reportFile: string): string | undefined {
  let lines: string[];
  try {
    lines = readFileSync(reportFile, 'utf8').split('\n').filter(Boolean);
  } catch {
    return undefined;
  }
  if (lines.length === 0) return undefined;
  const where = [...new Set(lines)].join(', ');
  return `# PostgreSQL was not reachable at ${where}: ${lines.length} test files ran on PGlite only, their PostgreSQL tests skipped (TEST_DATABASE_URL names the server)`;
}

const folder = mkdtempSync(join(tmpdir(), 'learnbase-test-run-'));
const reportFile = join(folder, 'skipped-backends');
/**
 * Brings dist/ up to date when src/ changed since the last build (about 12 s): the tests that start
 * the command line as a process (`serve`, the guides' walk, the tests of what a process does) then
 * run the built one, about a second less per process than compiling the sources each time (built.ts,
 * cli.ts); the other commands run inside the test process, from source.
 */
function build(): Promise<void> {
  if (builtIsCurrent()) return Promise.resolve();
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) =>
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`the build failed (tsc exited with ${code})`)))),
  );
}

/** The unit tier: the tests in src/ and the console's, which need no database, server or build. */
const isUnit = (path: string) => path.startsWith(`src${sep}`) || path.startsWith(join('test', 'console') + sep);

const unit = process.argv[2] === '--unit';
const named = process.argv.slice(unit ? 3 : 2);
const files = named.length > 0 ? named : testFiles().filter((path) => !unit || isUnit(path));
if (!unit) await build();
const code = await runNodeTest(files, reportFile);
const notice = skippedPostgres(reportFile);
if (notice) process.stdout.write(`${notice}\n`);
rmSync(folder, { recursive: true, force: true });
process.exit(code);
