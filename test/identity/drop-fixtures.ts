import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../../src/config.js';
import type { DropResult, LeftResult } from '../../src/modules/identity/import-folder/drop-folder-rules.js';

/** The import folder as its tests drive it (drop-folder.test.ts, drop-folder-sync.test.ts): files dropped, waited for in done/ or failed/. */

export const INTERVAL_MS = 100;
export const STABLE_MS = 1_000;

export const dropSettings = (dir: string, stableMs = STABLE_MS): Partial<AppConfig> => ({
  importDropDir: dir,
  importDropIntervalMs: INTERVAL_MS,
  importDropStableMs: stableMs,
});

/** Writes a file under a name the folder skips, then renames it in; `old`: its time a minute ago (complete at the first look). */
export async function drop(folder: string, name: string, content: string | Buffer, options: { old?: boolean } = {}): Promise<void> {
  await mkdir(folder, { recursive: true });
  const temp = join(folder, `.${name}.${randomBytes(3).toString('hex')}.part`);
  await writeFile(temp, content);
  if (options.old) await utimes(temp, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  await rename(temp, join(folder, name));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export const list = (folder: string) => readdir(folder).catch(() => [] as string[]);

/** The finished files of a sub-folder (done/ or failed/): each name with the file it was and its result. */
export async function finished(folder: string, sub: 'done' | 'failed'): Promise<Array<{ name: string; file: string; result: DropResult }>> {
  const names = await list(join(folder, sub));
  const files = names.filter((name) => !name.endsWith('.result.json') && !name.endsWith('.tmp'));
  return Promise.all(
    files
      .filter((name) => names.includes(`${name}.result.json`))
      .map(async (name) => ({
        name,
        file: name.replace(/^\d{8}T\d{6}Z-[0-9a-f]{8}\./, ''),
        result: JSON.parse(await readFile(join(folder, sub, `${name}.result.json`), 'utf8')) as DropResult,
      })),
  );
}

/** Waits for `file` to reach `sub` with its result file, and answers that result. */
export async function waitForFinished(folder: string, sub: 'done' | 'failed', file: string, timeoutMs?: number) {
  return waitFor(`${file} in ${sub}/`, async () => (await finished(folder, sub)).find((entry) => entry.file === file), timeoutMs);
}

/** The results in failed/ of entries left where they were (no regular file): result files with no file beside them. */
export async function leftResults(folder: string): Promise<LeftResult[]> {
  const names = await list(join(folder, 'failed'));
  const alone = names.filter((name) => name.endsWith('.result.json') && !names.includes(name.slice(0, -'.result.json'.length)));
  const results = await Promise.all(
    alone.map(async (name) => JSON.parse(await readFile(join(folder, 'failed', name), 'utf8')) as LeftResult),
  );
  return results.filter((result) => result.status === 'left');
}
