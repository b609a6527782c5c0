import { appendFileSync } from 'node:fs';

/**
 * The environment variable through which test/support/run-tests.ts (`npm test`) asks each test
 * process to note, rather than print, that it found no PostgreSQL server: the run then says it once.
 */
export const SKIPPED_BACKENDS_FILE = 'LEARNBASE_TEST_SKIPPED_BACKENDS_FILE';

/** Under `npm test`, a line in the run's file; run alone, a test file warns at once. */
export function reportPostgresSkipped(adminUrl: string, reason: string): void {
  const where = withoutPassword(adminUrl);
  const file = process.env[SKIPPED_BACKENDS_FILE];
  if (file) appendFileSync(file, `${where}\n`);
  else process.stderr.write(`# PostgreSQL not reachable at ${where} (${reason}): running on PGlite only\n`);
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
