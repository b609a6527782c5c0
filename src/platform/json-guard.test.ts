import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_JSON_DEPTH, findJsonProblem, textProblem } from './json-guard.js';

const nestedObjects = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`);
const nestedArrays = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);

describe('findJsonProblem', () => {
  it('accepts ordinary JSON, paired surrogates (emoji) and scalars', () => {
    assert.equal(findJsonProblem({ name: 'Zoë 😀', list: [1, true, null, { 'http://example.com/x': 'é' }] }, 'statement'), undefined);
    assert.equal(findJsonProblem('plain', 'statement'), undefined);
    assert.equal(findJsonProblem(null, 'statement'), undefined);
  });

  it('names the string holding U+0000 by its path', () => {
    assert.deepEqual(findJsonProblem({ result: { response: 'a\u0000b' } }, 'statement'), {
      kind: 'nul',
      path: 'statement.result.response',
      why: 'must not contain U+0000 (NUL)',
    });
  });

  it('names array items by index and IRI keys in brackets', () => {
    const value = { context: { extensions: { 'http://example.com/e': [{ ok: 1 }, 'x\u0000'] } } };
    assert.equal(findJsonProblem(value, 'statements[2]')?.path, 'statements[2].context.extensions["http://example.com/e"][1]');
  });

  it('finds a property name holding U+0000 and shows it escaped', () => {
    const problem = findJsonProblem({ extensions: { 'http://example.com/\u0000': 1 } }, 'statement');
    assert.equal(problem?.kind, 'nul');
    assert.equal(problem?.path, 'statement.extensions["http://example.com/\\u0000"]');
    assert.match(problem?.why ?? '', /^is a property name that must not contain U\+0000/);
  });

  it('finds lone high and low surrogates in values and names, but not a pair', () => {
    assert.equal(findJsonProblem({ name: '\ud800' }, 'actor')?.kind, 'lone_surrogate');
    assert.equal(findJsonProblem({ name: 'a\udfff' }, 'actor')?.kind, 'lone_surrogate');
    assert.equal(findJsonProblem({ name: '\udc00\ud800' }, 'actor')?.kind, 'lone_surrogate');
    assert.equal(findJsonProblem({ '\ud800': 1 }, 'map')?.path, 'map["\\ud800"]');
    assert.equal(findJsonProblem({ name: '\ud83d\ude00' }, 'actor'), undefined);
  });

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more, for objects and arrays`, () => {
    assert.equal(findJsonProblem(nestedObjects(MAX_JSON_DEPTH), 'document'), undefined);
    assert.equal(findJsonProblem(nestedArrays(MAX_JSON_DEPTH), 'document'), undefined);
    const objects = findJsonProblem(nestedObjects(MAX_JSON_DEPTH + 1), 'document');
    assert.equal(objects?.kind, 'too_deep');
    assert.equal(objects?.path, `document${'.a'.repeat(MAX_JSON_DEPTH)}`);
    assert.equal(findJsonProblem(nestedArrays(MAX_JSON_DEPTH + 1), 'document')?.path, `document${'[0]'.repeat(MAX_JSON_DEPTH)}`);
  });

  it('walks 100,000 levels without overflowing the stack, and keeps the path short', () => {
    const problem = findJsonProblem(nestedObjects(100_000), 'document');
    assert.equal(problem?.kind, 'too_deep');
    const long = findJsonProblem(nestedArrays(100_000), 'document', { maxDepth: 1_000 });
    assert.equal(long?.kind, 'too_deep');
    assert.ok((long?.path.length ?? 0) <= 401);
  });

  it('reports the first problem in document order', () => {
    assert.equal(findJsonProblem({ a: ['ok', '\u0000'], b: '\ud800' }, 'x')?.path, 'x.a[1]');
  });

  it('with strings: false checks only the depth', () => {
    assert.equal(findJsonProblem({ a: '\u0000', '\ud800': 1 }, 'document', { strings: false }), undefined);
    assert.equal(findJsonProblem(nestedArrays(5), 'document', { strings: false, maxDepth: 4 })?.kind, 'too_deep');
  });
});

describe('textProblem', () => {
  it('tells NUL from a lone surrogate and passes other text', () => {
    assert.equal(textProblem('a\u0000')?.kind, 'nul');
    assert.equal(textProblem('\ud800')?.kind, 'lone_surrogate');
    assert.equal(textProblem('%00 and \\u0000 as text'), undefined);
  });
});
