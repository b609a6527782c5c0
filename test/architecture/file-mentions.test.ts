import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * A file the code names exists: a comment that sends the reader to `organisation.service.ts` or
 * docs/imports.md must lead somewhere, in this repository. Every name of a TypeScript, Markdown or
 * CommonJS file in the sources (src/, bench/, test/) is looked up: as a path from the repository's
 * root or from the naming file's folder, as the tail of a path in the repository, or, a bare name,
 * as some file's name. Patterns (`*.routes.ts`, `<module>.module.ts`) are not names, nor are
 * TypeScript's declaration files (`lib.dom.d.ts`). The tests of this folder are left out: their
 * examples name files that do not exist on purpose.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = ['src', 'bench', 'test'];
/** A file's name: not inside a longer word or path, not a pattern's tail. */
const MENTION = /(?<![\w*<>{}$/.@-])((?:\.\.?\/)*[\w][\w/.-]*\.(?:ts|md|cjs))\b(?![\w*(])/g;
const DECLARATIONS = /\.d\.ts$/;
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'results']);

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => !path.split(/[\\/]/).some((part) => SKIPPED.has(part)))
    .map((path) => join(folder, path).split('\\').join('/'));
}

const repository = ['', ...['src', 'bench', 'test', 'docs', 'console', 'db', 'bin'].filter((folder) => existsSync(join(ROOT, folder)))]
  .flatMap((folder) => (folder === '' ? readdirSync(ROOT) : filesUnder(folder)))
  .filter((path) => !SKIPPED.has(path));
const paths = new Set(repository);
const names = new Set(repository.map((path) => basename(path)));

/** Whether `mention`, named in `file`, is a file of the repository. */
function exists(mention: string, file: string): boolean {
  if (!mention.includes('/')) return names.has(mention);
  const fromFolder = relative(ROOT, join(ROOT, dirname(file), mention))
    .split('\\')
    .join('/');
  return paths.has(mention) || paths.has(fromFolder) || repository.some((path) => path.endsWith(`/${mention}`));
}

/** The names in `text` (a file of `file`'s path) that lead nowhere. */
function missing(file: string, text: string): string[] {
  return [...text.matchAll(MENTION)].map((match) => match[1]).filter((mention) => !DECLARATIONS.test(mention) && !exists(mention, file));
}

describe('files the code names', () => {
  it('exist in the repository', () => {
    const sources = SOURCES.flatMap(filesUnder).filter((path) => /\.(ts|tsx|cjs)$/.test(path) && !path.startsWith('test/architecture/'));
    assert.ok(sources.length > 300, `${sources.length} source files`);
    const nowhere = sources.flatMap((file) =>
      missing(file, readFileSync(join(ROOT, file), 'utf8')).map((mention) => `${file}: ${mention}`),
    );
    assert.deepEqual(nowhere, []);
  });

  it('are told from patterns and from names of other kinds', () => {
    const text = [
      '// See organisation.service.ts and docs/imports.md, "Settings"; the *.routes.ts files;',
      '// a <module>.module.ts; this.sql; ../shared/design.md; statements.service.ts (gone)',
    ].join('\n');
    assert.deepEqual(missing('src/modules/learning/probe.ts', text), ['../shared/design.md', 'statements.service.ts']);
  });
});

describe('source file names', () => {
  it('name one file each, so a bare name in a comment leads to one place (a module’s face, index.ts, apart)', () => {
    const sources = filesUnder('src').filter((path) => path.endsWith('.ts') && basename(path) !== 'index.ts');
    const byName = new Map<string, string[]>();
    for (const path of sources) byName.set(basename(path), [...(byName.get(basename(path)) ?? []), path]);
    assert.deepEqual(
      [...byName.values()].filter((paths) => paths.length > 1),
      [],
    );
  });
});
