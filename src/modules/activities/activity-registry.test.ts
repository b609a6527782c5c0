import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkRegistryEntries, hierarchyProblems, launchUrlProblem, storedParentsToRead } from './activity-registry-rules.js';

const A = 'http://example.com/a';
const B = 'http://example.com/b';
const C = 'http://example.com/c';

describe('checkRegistryEntries', () => {
  it('accepts a full entry and fills in absent lists and attributes', () => {
    const checked = checkRegistryEntries([
      {
        id: A,
        definition: {
          name: { 'en-US': 'A' },
          description: { fr: 'a' },
          type: 'http://adlnet.gov/expapi/activities/course',
          extensions: { 'http://x.example/e': { n: 1 } },
        },
        attributes: { owner: 'HR' },
        tags: ['t1'],
        parentId: B,
        launchUrl: 'https://content.example.com/a/index.html',
        competencies: ['Safety'],
        requiresSuccess: true,
      },
      { id: B, definition: {} },
    ]);
    assert.deepEqual(checked.problems, []);
    assert.equal(checked.entries[0].requiresSuccess, true);
    assert.deepEqual(checked.entries[1], { id: B, definition: {}, attributes: {}, tags: [], competencies: [], requiresSuccess: false });
    assert.deepEqual(checked.links, [
      { index: 0, id: A, parentId: B },
      { index: 1, id: B },
    ]);
  });

  it('names every bad entry and field', () => {
    const checked = checkRegistryEntries([
      'nope',
      { id: 'not an iri', definition: { name: 'A' } },
      { id: A, definition: { type: 'course', extensions: { short: 1 }, interactionType: 'choice' }, colour: 'red' },
      { id: A, definition: {}, launchUrl: 'ftp://example.com/x', tags: ['', 'x', 'x'], competencies: [3], attributes: { n: 1 } },
      { id: B, definition: {}, parentId: B },
      { id: C, definition: { name: { 'en-US': 'ok\u0000' } } },
      { id: C.repeat(1000), definition: { name: { 'not a tag!': 'x' } } },
    ]);
    const fields = checked.problems.map((problem) => `${problem.index} ${problem.field}`);
    assert.ok(checked.problems.some((problem) => problem.index === 3 && problem.field === 'id' && /index 2/.test(problem.message)));
    assert.ok(checked.problems.some((problem) => problem.index === 4 && /itself/.test(problem.message)));
    assert.ok(checked.problems.some((problem) => problem.index === 5 && /U\+0000/.test(problem.message)));
    assert.ok(checked.problems.some((problem) => problem.index === 6 && /1000 bytes/.test(problem.message)));
    assert.equal(checked.problems.find((problem) => problem.index === 1)?.id, undefined);
    assert.equal(checked.problems.find((problem) => problem.index === 2)?.id, A);
    const expected = [
      '0 ',
      '1 id',
      '1 definition.name',
      '2 colour',
      '2 definition.interactionType',
      '2 definition.type',
      '2 definition.extensions',
      '3 id',
      '3 tags[0]',
      '3 tags[2]',
      '3 competencies[0]',
      '3 launchUrl',
      '3 attributes.n',
      '4 parentId',
      '5 definition.name["en-US"]',
      '6 id',
      '6 definition.name',
    ];
    assert.deepEqual([...fields].sort(), [...expected].sort());
  });
});

describe('launchUrlProblem', () => {
  it('takes absolute http and https URLs only', () => {
    assert.equal(launchUrlProblem('http://127.0.0.1:8080/content/index.html?x=1'), undefined);
    assert.equal(launchUrlProblem('HTTPS://Example.com'), undefined);
    assert.match(launchUrlProblem('/content/index.html') ?? '', /absolute URL/);
    assert.match(launchUrlProblem('javascript:alert(1)') ?? '', /http or https/);
    assert.match(launchUrlProblem('file:///etc/passwd') ?? '', /http or https/);
    assert.match(launchUrlProblem(42) ?? '', /string/);
  });
});

describe('hierarchyProblems', () => {
  it('refuses a parent that is neither requested nor stored', () => {
    const problems = hierarchyProblems([{ index: 0, id: A, parentId: B }], new Map());
    assert.deepEqual(
      problems.map((problem) => [problem.index, problem.field]),
      [[0, 'parentId']],
    );
    assert.match(problems[0].message, /names neither/);
  });

  it('finds a cycle within the request, naming each entry on it', () => {
    const problems = hierarchyProblems(
      [
        { index: 0, id: A, parentId: B },
        { index: 1, id: B, parentId: C },
        { index: 2, id: C, parentId: A },
      ],
      new Map(),
    );
    assert.deepEqual(problems.map((problem) => problem.index).sort(), [0, 1, 2]);
    assert.match(problems[0].message, /cycle of parents \(3 activities/);
  });

  it('finds a cycle through stored parents, and lets a request entry replace its stored link', () => {
    // Stored: C → B → A (A a root). The request makes A a child of C: A → C → B → A.
    const stored = new Map<string, string | null>([
      [C, B],
      [B, A],
      [A, null],
    ]);
    const links = [{ index: 0, id: A, parentId: C }];
    assert.deepEqual(storedParentsToRead(links), [C]);
    const problems = hierarchyProblems(links, stored);
    assert.deepEqual(
      problems.map((problem) => [problem.index, problem.field]),
      [[0, 'parentId']],
    );
    // The same request moving B to the root breaks the cycle.
    assert.deepEqual(hierarchyProblems([...links, { index: 1, id: B }], stored), []);
  });
});
