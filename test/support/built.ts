// Whether dist/ holds the current source: `npm test` builds it first when it does not (run-tests.ts),
// and the tests that run the command line run the built one then (cli.ts). A test file run alone
// after an edit, without a build, runs the command line from source instead: slower, never stale.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** True when dist/ was built after the last change to src/ (and the build configuration). */
export function builtIsCurrent(): boolean {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'cli.js'))) return false;
  const sources = Math.max(newestMtime(join(ROOT, 'src')), statSync(join(ROOT, 'tsconfig.build.json')).mtimeMs);
  return newestMtime(join(ROOT, 'dist')) >= sources;
}
