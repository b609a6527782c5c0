import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkJobsImport } from './job-role-rules.js';
import type { ImportProblem } from './org-unit-rules.js';

const problemsOf = (body: unknown): ImportProblem[] => {
  const checked = checkJobsImport(body);
  assert.equal(checked.ok, false, 'expected the import to be refused');
  return checked.ok ? [] : checked.problems;
};

describe('checkJobsImport', () => {
  it('accepts jobs with and without competencies and attributes; Description defaults to ""', () => {
    assert.deepEqual(
      checkJobsImport([
        {
          id: 'J1',
          name: 'Sales',
          competencies: [{ Name: 'Negotiation', Description: 'Closing deals' }, { Name: 'CRM' }],
          attributes: { grade: '4' },
        },
        { id: 'J2', name: 'Clerk' },
      ]),
      {
        ok: true,
        value: [
          {
            id: 'J1',
            name: 'Sales',
            competencies: [
              { Name: 'Negotiation', Description: 'Closing deals' },
              { Name: 'CRM', Description: '' },
            ],
            attributes: { grade: '4' },
          },
          { id: 'J2', name: 'Clerk', competencies: [], attributes: {} },
        ],
      },
    );
    assert.deepEqual(checkJobsImport([]), { ok: true, value: [] });
    const refused = checkJobsImport({ jobs: [] });
    assert.ok(!refused.ok && refused.body);
  });

  it('names every malformed or duplicate job', () => {
    const problems = problemsOf([
      null,
      { name: 'no id' },
      { id: 'J1' },
      { id: 'J2', name: '  ' },
      { id: 'J3', name: 'x', competencies: {} },
      { id: 'J4', name: 'x', competencies: [{ name: 'lower', description: 'case' }] },
      { id: 'J5', name: 'x', competencies: [{ Name: 'ok', Description: 3, Level: 2 }] },
      { id: 'J6', name: 'x', attributes: { a: true } },
      { id: 'J7', name: 'x', title: 'unknown' },
      { id: 'J1', name: 'dup' },
      { id: 'J8', name: 'x\u0000' },
    ]);
    assert.deepEqual([...new Set(problems.map((problem) => problem.index))], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const at = (index: number) =>
      problems
        .filter((problem) => problem.index === index)
        .map((problem) => problem.problem)
        .join(' | ');
    assert.match(at(5), /`competencies\[0\]\.Name` is missing/);
    assert.match(at(5), /"name".*capitalised: `Name`/);
    assert.match(at(5), /"description".*capitalised: `Description`/);
    assert.match(at(6), /`competencies\[0\]\.Description` must be a string/);
    assert.match(at(6), /unknown field "Level"/);
    assert.match(at(9), /repeats the id of the entry at index 2/);
    assert.equal(problems.find((problem) => problem.index === 9)?.id, 'J1');
  });
});
