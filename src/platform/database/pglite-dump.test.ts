import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tarEntryNames } from './pglite-dump.js';

const folder = mkdtempSync(join(tmpdir(), 'learnbase-tar-'));
after(() => rmSync(folder, { recursive: true, force: true }));

/** A tar made by the system's tar, in the POSIX format, of a folder like pgdata. */
function systemTar(): Buffer {
  const root = join(folder, 'pgdata');
  execFileSync('mkdir', ['-p', join(root, 'base', '1')]);
  writeFileSync(join(root, 'PG_VERSION'), '18\n');
  writeFileSync(join(root, 'base', '1', '112'), Buffer.alloc(1500, 7));
  return execFileSync('tar', ['--format=ustar', '-cf', '-', '-C', root, '.']);
}

describe('tarEntryNames', () => {
  it('lists the entries of a whole archive', () => {
    const names = tarEntryNames(systemTar());
    assert.ok(Array.isArray(names), String(names));
    assert.ok(names.includes('./PG_VERSION'));
    assert.ok(names.includes('./base/1/112'));
  });

  it('says why bytes are not a whole archive', () => {
    const tar = systemTar();
    assert.equal(tarEntryNames(Buffer.from('not a tar')), 'not a tar archive');
    assert.equal(tarEntryNames(Buffer.alloc(2048)), 'an empty archive');
    const damaged = Buffer.from(tar);
    damaged[0] ^= 0xff;
    assert.equal(tarEntryNames(damaged), 'not a tar archive', 'the checksum no longer adds up');
    // Cut inside the 1500 bytes of base/1/112, as a download stopped half way.
    const header = tar.indexOf('./base/1/112');
    assert.equal(tarEntryNames(tar.subarray(0, header + 512 + 700)), 'the archive is cut short');
  });
});
