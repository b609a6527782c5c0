import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * docs/architecture.md, "Inside a module": a module's sub-capabilities are folders of their own
 * (identity's scim/, sso/, hr-webhooks/, import-folder/), so a reader opening a folder sees one
 * subject. No folder of src/modules/ holds more than 16 files directly.
 */

const MODULES = fileURLToPath(new URL('../../src/modules/', import.meta.url));
const MOST = 16;

/** Every folder under `folder`, itself included, with how many files it holds directly. */
function folders(folder: string): { path: string; files: number }[] {
  const entries = readdirSync(folder, { withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).length;
  return [
    { path: relative(MODULES, folder) || '.', files },
    ...entries.filter((entry) => entry.isDirectory()).flatMap((entry) => folders(join(folder, entry.name))),
  ];
}

describe('module folders', () => {
  it(`hold at most ${MOST} files each, a sub-capability in a folder of its own`, () => {
    const all = folders(MODULES);
    assert.ok(all.length > 13, `${all.length} folders`);
    assert.deepEqual(
      all.filter((folder) => folder.files > MOST).map((folder) => `${folder.path}: ${folder.files} files`),
      [],
    );
  });
});
