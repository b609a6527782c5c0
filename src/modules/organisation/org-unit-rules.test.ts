import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkOrganisationImport, type ImportProblem } from './org-unit-rules.js';

const problemsOf = (body: unknown): ImportProblem[] => {
  const checked = checkOrganisationImport(body);
  assert.equal(checked.ok, false, 'expected the import to be refused');
  return checked.ok ? [] : checked.problems;
};
const indexes = (problems: ImportProblem[]) => problems.map((problem) => problem.index);

describe('checkOrganisationImport', () => {
  it('accepts a hierarchy in any order, flat data, null parents and an empty array', () => {
    const hierarchy = checkOrganisationImport([
      { id: 'P2', parentId: 'P1', attributes: { title: 'Manager' } },
      { id: 'P1' },
      { id: 'P3', parentId: null },
    ]);
    assert.deepEqual(hierarchy, {
      ok: true,
      value: [
        { id: 'P2', parentId: 'P1', attributes: { title: 'Manager' } },
        { id: 'P1', attributes: {} },
        { id: 'P3', attributes: {} },
      ],
    });
    assert.equal(checkOrganisationImport([{ id: 'Leeds', attributes: { country: 'UK' } }, { id: 'Paris' }]).ok, true);
    assert.deepEqual(checkOrganisationImport([]), { ok: true, value: [] });
  });

  it('refuses a body that is not an array', () => {
    for (const body of [{}, 'x', null, 3]) {
      const checked = checkOrganisationImport(body);
      assert.equal(checked.ok, false);
      assert.ok(!checked.ok && checked.body);
    }
  });

  it('names every bad entry, with its 0-based index and id', () => {
    const problems = problemsOf([
      'not an object',
      { parentId: 'A' },
      { id: '' },
      { id: 7 },
      { id: 'x'.repeat(256) },
      { id: 'A', attributes: { n: 1 } },
      { id: 'B', attributes: [] },
      { id: 'C', parentId: 'nowhere' },
      { id: 'D', parentId: 5 },
      { id: 'E', extra: true },
      { id: 'A' },
      { id: 'F', parentId: 'F' },
    ]);
    assert.deepEqual([...new Set(indexes(problems))], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    assert.equal(problems.find((problem) => problem.index === 10)?.id, 'A');
    assert.match(problems.find((problem) => problem.index === 10)?.problem ?? '', /index 5/);
    assert.match(problems.find((problem) => problem.index === 7)?.problem ?? '', /"nowhere" names no entry/);
    assert.match(problems.find((problem) => problem.index === 9)?.problem ?? '', /unknown field "extra"/);
    assert.match(problems.find((problem) => problem.index === 11)?.problem ?? '', /its own parent/);
    assert.equal(problems.find((problem) => problem.index === 3)?.id, undefined);
  });

  it('accepts an id of 255 characters (code points), refuses 256', () => {
    assert.equal(checkOrganisationImport([{ id: '😀'.repeat(255) }]).ok, true);
    assert.equal(checkOrganisationImport([{ id: 'a'.repeat(256) }]).ok, false);
  });

  it('refuses U+0000 and lone surrogates in ids, parents, attribute names and values', () => {
    const problems = problemsOf([
      { id: 'a\u0000' },
      { id: 'b\ud800' },
      { id: 'c', parentId: 'x\u0000' },
      { id: 'd', attributes: { 'k\u0000': 'v' } },
      { id: 'e', attributes: { k: '\udc00' } },
    ]);
    assert.deepEqual(indexes(problems), [0, 1, 2, 3, 4]);
  });

  it('reports every entry on a cycle, and only those', () => {
    const problems = problemsOf([
      { id: 'root' },
      { id: 'a', parentId: 'c' },
      { id: 'b', parentId: 'a' },
      { id: 'c', parentId: 'b' },
      { id: 'hangs-off-cycle', parentId: 'a' },
      { id: 'x', parentId: 'y' },
      { id: 'y', parentId: 'x' },
    ]);
    assert.deepEqual(indexes(problems), [1, 2, 3, 5, 6]);
    assert.match(problems[0].problem, /cycle of parents \(3 entries/);
  });

  it('checks a 10,000-deep chain and a 10,000-entry cycle without recursion', () => {
    const chain = Array.from({ length: 10_000 }, (_, index) =>
      index === 0 ? { id: 'p0' } : { id: `p${index}`, parentId: `p${index - 1}` },
    );
    assert.equal(checkOrganisationImport(chain).ok, true);
    const cycle = Array.from({ length: 10_000 }, (_, index) => ({ id: `p${index}`, parentId: `p${(index + 1) % 10_000}` }));
    const problems = problemsOf(cycle);
    assert.equal(problems.length, 10_000);
    assert.ok(problems[0].problem.length < 400, 'a long cycle is named by its first ids only');
  });
});
