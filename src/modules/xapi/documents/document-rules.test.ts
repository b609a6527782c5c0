import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asJsonObject, etagOf, mergeDepthProblem, mergeJson, preconditionsHold } from './document-rules.js';

const stored = (text: string) => ({ content: Buffer.from(text), contentType: 'application/json', etag: etagOf(Buffer.from(text)) });

describe('document rules', () => {
  it('computes a quoted SHA-1 ETag', () => {
    assert.equal(etagOf(Buffer.from('abc')), '"a9993e364706816aba3e25717850c26c9cd0d89d"');
  });

  it('holds If-Match only for a present document with a listed (or any, with *) tag', () => {
    const doc = stored('{"a":1}');
    assert.equal(preconditionsHold({ ifMatch: doc.etag }, doc), true);
    assert.equal(preconditionsHold({ ifMatch: `W/${doc.etag}` }, doc), true);
    assert.equal(preconditionsHold({ ifMatch: `"other", ${doc.etag}` }, doc), true);
    assert.equal(preconditionsHold({ ifMatch: doc.etag.slice(1, -1) }, doc), true);
    assert.equal(preconditionsHold({ ifMatch: '*' }, doc), true);
    assert.equal(preconditionsHold({ ifMatch: '"other"' }, doc), false);
    assert.equal(preconditionsHold({ ifMatch: '*' }, undefined), false);
  });

  it('holds If-None-Match unless the document exists with a listed (or any, with *) tag', () => {
    const doc = stored('{"a":1}');
    assert.equal(preconditionsHold({ ifNoneMatch: '*' }, undefined), true);
    assert.equal(preconditionsHold({ ifNoneMatch: '*' }, doc), false);
    assert.equal(preconditionsHold({ ifNoneMatch: doc.etag }, doc), false);
    assert.equal(preconditionsHold({ ifNoneMatch: '"other"' }, doc), true);
  });

  it('reads only JSON objects as mergeable', () => {
    assert.deepEqual(asJsonObject(Buffer.from('{"a":1}'), 'application/json; charset=utf-8'), { a: 1 });
    assert.equal(asJsonObject(Buffer.from('[1]'), 'application/json'), undefined);
    assert.equal(asJsonObject(Buffer.from('{"a":1}'), 'text/plain'), undefined);
    assert.equal(asJsonObject(Buffer.from('{nope'), 'application/json'), undefined);
  });

  it('merges one level deep, the sent properties winning', () => {
    assert.deepEqual(mergeJson({ a: 1, b: { x: 1 } }, { b: { y: 2 }, c: 3 }), { a: 1, b: { y: 2 }, c: 3 });
  });

  it('finds a merge too deep past 64 levels, and leaves U+0000 and lone surrogates to the bytes', () => {
    const nested = (levels: number) => JSON.parse(`${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`);
    assert.equal(mergeDepthProblem(nested(64), 'document'), undefined);
    assert.equal(mergeDepthProblem(nested(10_000), 'document')?.path, `document${'.a'.repeat(64)}`);
    assert.equal(mergeDepthProblem({ 'a\u0000': '\ud800' }, 'document'), undefined);
  });
});
