import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { PageQuery, pageOf, sendPageHeaders } from './paged-list.js';

describe('PageQuery', () => {
  it('declares limit (1-1000, default 100) and skip (from 0, default 0), naming the items', () => {
    const query = JSON.parse(JSON.stringify(PageQuery('runs')));
    assert.deepEqual(query.properties, {
      limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'At most this many runs (1-1000, default 100).' },
      skip: { type: 'integer', minimum: 0, default: 0, description: 'Runs to pass over.' },
    });
    assert.equal(query.required, undefined);
  });

  it('puts the list’s filters first and keeps the object’s options', () => {
    const query = JSON.parse(
      JSON.stringify(PageQuery('entries', { source: Type.Optional(Type.String()) }, { additionalProperties: false })),
    );
    assert.deepEqual(Object.keys(query.properties), ['source', 'limit', 'skip']);
    assert.equal(query.additionalProperties, false);
  });
});

describe('pageOf', () => {
  it('fills in the defaults of what was not sent', () => {
    assert.deepEqual(pageOf({}), { limit: 100, skip: 0 });
    assert.deepEqual(pageOf({ limit: 5, skip: 10 }), { limit: 5, skip: 10 });
  });
});

describe('sendPageHeaders', () => {
  async function answer(list: Parameters<typeof sendPageHeaders>[1], earlierLink?: string) {
    const app = Fastify();
    app.get('/list', async (_request, reply) => {
      if (earlierLink !== undefined) reply.header('Link', earlierLink);
      sendPageHeaders(reply, list);
      return [];
    });
    const response = await app.inject({ method: 'GET', url: '/list' });
    await app.close();
    return response.headers;
  }

  it('links the next page, the query first and the page moved on, while items follow', async () => {
    const headers = await answer({
      url: 'http://example.com/api/actors',
      query: { kind: 'people' },
      page: { limit: 2, skip: 4 },
      shown: 2,
      total: 7,
    });
    assert.equal(headers['x-total-count'], '7');
    assert.equal(headers.link, '<http://example.com/api/actors?kind=people&limit=2&skip=6>; rel="next"');
  });

  it('sends no Link on the last page', async () => {
    const headers = await answer({ url: 'http://example.com/api/actors', page: { limit: 2, skip: 4 }, shown: 2, total: 6 });
    assert.equal(headers['x-total-count'], '6');
    assert.equal(headers.link, undefined);
  });

  it('writes the next link before a Link the answer has already, in one header', async () => {
    const deprecation = '<http://example.com/guides/oauth>; rel="deprecation"; type="text/html"';
    const headers = await answer({ url: 'http://example.com/api/actors', page: { limit: 1, skip: 0 }, shown: 1, total: 2 }, deprecation);
    assert.equal(headers.link, `<http://example.com/api/actors?limit=1&skip=1>; rel="next", ${deprecation}`);
  });
});
