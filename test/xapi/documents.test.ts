import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { writeBatchRows } from '../../src/platform/process-metrics.js';

type Params = Record<string, string>;

const AGENT = JSON.stringify({ mbox: 'mailto:learner@example.com' });
const ACTIVITY = 'https://example.com/courses/intro';

interface Resource {
  name: string;
  path: string;
  idParameter: 'stateId' | 'profileId';
  /** The addressing parameters without the id. */
  scope(): Params;
}

const RESOURCES: Resource[] = [
  {
    name: 'state',
    path: '/xapi/activities/state',
    idParameter: 'stateId',
    scope: () => ({ activityId: `${ACTIVITY}/${randomUUID()}`, agent: AGENT }),
  },
  {
    name: 'activity profile',
    path: '/xapi/activities/profile',
    idParameter: 'profileId',
    scope: () => ({ activityId: `${ACTIVITY}/${randomUUID()}` }),
  },
  {
    name: 'agent profile',
    path: '/xapi/agents/profile',
    idParameter: 'profileId',
    scope: () => ({ agent: JSON.stringify({ account: { homePage: 'https://example.com', name: randomUUID() } }) }),
  },
];

/** How many merge transactions (`batches`) have written how many merges, in this process so far. */
async function mergeBatches(): Promise<{ batches: number; merges: number }> {
  const { values } = await writeBatchRows.get();
  const of = (name: string) => values.find((value) => value.metricName === name && value.labels.writes === 'document_merges')?.value ?? 0;
  return { batches: of('learnbase_db_write_batch_rows_count'), merges: of('learnbase_db_write_batch_rows_sum') };
}

const url = (path: string, params: Params) => `${path}?${new URLSearchParams(params)}`;

function client(ctx: TestContext, tenant: GivenTenant, version = '2.0.0') {
  const headers = { ...tenant.xapi, 'x-experience-api-version': version };
  const send = (
    method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE',
    path: string,
    params: Params,
    body?: unknown,
    extra: Record<string, string> = {},
  ) => {
    const json = body !== undefined && !Buffer.isBuffer(body) && typeof body !== 'string';
    return ctx.app.inject({
      method,
      url: url(path, params),
      headers: { ...headers, ...(json ? { 'content-type': 'application/json' } : {}), ...extra },
      payload: json ? JSON.stringify(body) : (body as string | Buffer | undefined),
    });
  };
  return send;
}

describeEachBackend('the xAPI document resources', (ctx) => {
  for (const resource of RESOURCES) {
    const id = resource.idParameter;

    it(`${resource.name}: stores with PUT and answers the bytes, Content-Type, ETag and Last-Modified`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'bookmark' };
      const put = await send('PUT', resource.path, params, { page: 3 });
      assert.equal(put.statusCode, 204);
      const got = await send('GET', resource.path, params);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), { page: 3 });
      assert.match(String(got.headers['content-type']), /^application\/json/);
      assert.match(String(got.headers.etag), /^"[0-9a-f]{40}"$/);
      assert.ok(!Number.isNaN(Date.parse(String(got.headers['last-modified']))));
      const head = await send('HEAD', resource.path, params);
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers.etag, got.headers.etag);
    });

    it(`${resource.name}: keeps any content type byte for byte`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'blob' };
      const bytes = Buffer.from([0, 255, 1, 254, 10, 13, 0x80]);
      const put = await send('PUT', resource.path, params, bytes, { 'content-type': 'application/octet-stream' });
      assert.equal(put.statusCode, 204);
      const got = await send('GET', resource.path, params);
      assert.equal(got.headers['content-type'], 'application/octet-stream');
      assert.deepEqual(got.rawPayload, bytes);
      const text = await send('PUT', resource.path, { ...params, [id]: 'note' }, 'plain words', {
        'content-type': 'text/plain; charset=utf-8',
      });
      assert.equal(text.statusCode, 204);
      const note = await send('GET', resource.path, { ...params, [id]: 'note' });
      assert.equal(note.body, 'plain words');
      assert.equal(note.headers['content-type'], 'text/plain; charset=utf-8');
    });

    it(`${resource.name}: answers 404 for a document that is not there`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const res = await send('GET', resource.path, { ...resource.scope(), [id]: 'absent' });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 'documents.not_found');
    });

    it(`${resource.name}: merges JSON objects one level deep with POST, and stores when absent`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'progress' };
      assert.equal((await send('POST', resource.path, params, { a: 1, nested: { x: 1 } })).statusCode, 204);
      assert.equal((await send('POST', resource.path, params, { b: 2, nested: { y: 2 } })).statusCode, 204);
      const got = await send('GET', resource.path, params);
      assert.deepEqual(got.json(), { a: 1, b: 2, nested: { y: 2 } });
    });

    it(`${resource.name}: refuses to merge what is not a JSON object, and changes nothing`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'mixed' };
      await send('POST', resource.path, params, { a: 1 });
      const array = await send('POST', resource.path, params, [1, 2]);
      assert.equal(array.statusCode, 400);
      assert.equal(array.json().code, 'documents.not_mergeable');
      const text = await send('POST', resource.path, params, 'words', { 'content-type': 'text/plain' });
      assert.equal(text.statusCode, 400);
      const bad = await send('POST', resource.path, params, '{"broken":', { 'content-type': 'application/json' });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().code, 'documents.invalid_json');
      assert.deepEqual((await send('GET', resource.path, params)).json(), { a: 1 });

      const binary = { ...params, [id]: 'binary' };
      await send('PUT', resource.path, binary, 'raw', { 'content-type': 'application/octet-stream' });
      const onto = await send('POST', resource.path, binary, { a: 1 });
      assert.equal(onto.statusCode, 400);
      assert.equal((await send('GET', resource.path, binary)).body, 'raw');
    });

    it(`${resource.name}: lists ids, filtered by since`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const scope = resource.scope();
      await send('PUT', resource.path, { ...scope, [id]: 'first' }, { n: 1 });
      // The database's clock stamps documents; leave room for it to differ slightly from this process's.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const between = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 20));
      await send('PUT', resource.path, { ...scope, [id]: 'second' }, { n: 2 });
      const all = await send('GET', resource.path, scope);
      assert.equal(all.statusCode, 200);
      assert.deepEqual(all.json(), ['first', 'second']);
      assert.deepEqual((await send('GET', resource.path, { ...scope, since: between })).json(), ['second']);
      assert.deepEqual((await send('GET', resource.path, { ...scope, since: '2999-01-01T00:00:00Z' })).json(), []);
      // The one timestamp parser of statements refuses impossible dates here too, and a zone is required.
      for (const since of ['yesterday', '2024-02-30T00:00:00Z', '2023-02-29T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T00:00:00']) {
        const badSince = await send('GET', resource.path, { ...scope, since });
        assert.equal(badSince.statusCode, 400, since);
        assert.match(badSince.json().message, /'since'/);
      }
      assert.deepEqual((await send('GET', resource.path, { ...scope, since: '2024-02-29T00:00:00+01:00' })).json(), ['first', 'second']);
    });

    it(`${resource.name}: deletes one document with DELETE (204, also when absent)`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'gone' };
      await send('PUT', resource.path, params, { a: 1 });
      assert.equal((await send('DELETE', resource.path, params)).statusCode, 204);
      assert.equal((await send('GET', resource.path, params)).statusCode, 404);
      assert.equal((await send('DELETE', resource.path, params)).statusCode, 204);
    });

    it(`${resource.name}: honours If-Match and If-None-Match on every write`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'guarded' };
      assert.equal(
        (await send('PUT', resource.path, params, { v: 1 }, { 'if-match': '"nothing"' })).statusCode,
        412,
        'If-Match on an absent document',
      );
      assert.equal((await send('PUT', resource.path, params, { v: 1 }, { 'if-none-match': '*' })).statusCode, 204);
      assert.equal((await send('PUT', resource.path, params, { v: 2 }, { 'if-none-match': '*' })).statusCode, 412);
      const etag = String((await send('GET', resource.path, params)).headers.etag);
      const stale = '"0000000000000000000000000000000000000000"';
      assert.equal((await send('PUT', resource.path, params, { v: 2 }, { 'if-match': stale })).statusCode, 412);
      assert.equal((await send('POST', resource.path, params, { w: 1 }, { 'if-match': stale })).statusCode, 412);
      assert.equal((await send('DELETE', resource.path, params, undefined, { 'if-match': stale })).statusCode, 412);
      assert.deepEqual((await send('GET', resource.path, params)).json(), { v: 1 }, 'nothing changed');
      assert.equal((await send('PUT', resource.path, params, { v: 2 }, { 'if-match': etag })).statusCode, 204);
      const etag2 = String((await send('GET', resource.path, params)).headers.etag);
      assert.notEqual(etag2, etag);
      assert.equal((await send('POST', resource.path, params, { w: 1 }, { 'if-match': etag2 })).statusCode, 204);
      const etag3 = String((await send('GET', resource.path, params)).headers.etag);
      assert.equal((await send('DELETE', resource.path, params, undefined, { 'if-match': etag3 })).statusCode, 204);
      assert.equal((await send('GET', resource.path, params)).statusCode, 404);
    });

    it(`${resource.name}: answers 409 with a plain-text explanation to a 2.0.0 PUT without preconditions on an existing document`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'existing' };
      assert.equal((await send('PUT', resource.path, params, { v: 1 })).statusCode, 204, 'a new document needs no precondition');
      const res = await send('PUT', resource.path, params, { v: 2 });
      assert.equal(res.statusCode, 409);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.match(res.body, /If-Match/);
      assert.deepEqual((await send('GET', resource.path, params)).json(), { v: 1 });
    });

    it(`${resource.name}: answers a failed precondition as a JSON error, unlike the 409`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'preconditions' };
      const absent = await send('PUT', resource.path, params, { v: 1 }, { 'if-match': '*' });
      assert.equal(absent.statusCode, 412);
      assert.match(String(absent.headers['content-type']), /^application\/json/);
      assert.equal(absent.json().code, 'documents.precondition_failed');
      assert.equal((await send('GET', resource.path, params)).statusCode, 404, 'nothing stored');
    });

    it(`${resource.name}: the start-up banner's requests can each be repeated (POST merges, PUT with If-Match: *)`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'bookmark' };
      for (let round = 0; round < 2; round++) {
        assert.equal((await send('POST', resource.path, params, { page: 3 })).statusCode, 204);
        assert.deepEqual((await send('GET', resource.path, params)).json(), { page: 3 });
        assert.equal((await send('PUT', resource.path, params, { page: 4 }, { 'if-match': '*' })).statusCode, 204);
        assert.deepEqual((await send('GET', resource.path, params)).json(), { page: 4 });
      }
    });

    it(`${resource.name}: exactly one of two PUTs with the same If-Match wins`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'race' };
      await send('PUT', resource.path, params, { v: 0 });
      const etag = String((await send('GET', resource.path, params)).headers.etag);
      const results = await Promise.all([
        send('PUT', resource.path, params, { v: 'a' }, { 'if-match': etag }),
        send('PUT', resource.path, params, { v: 'b' }, { 'if-match': etag }),
      ]);
      assert.deepEqual(results.map((res) => res.statusCode).sort(), [204, 412]);
      const winner = results[0].statusCode === 204 ? 'a' : 'b';
      assert.deepEqual((await send('GET', resource.path, params)).json(), { v: winner });
    });

    it(`${resource.name}: stores each of 60 concurrent PUTs of new documents (written together), each with its own bytes`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const scope = resource.scope();
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, n) => send('PUT', resource.path, { ...scope, [id]: `doc-${n}` }, { n })),
      );
      assert.deepEqual(
        results.map((res) => res.statusCode),
        results.map(() => 204),
      );
      const listed = (await send('GET', resource.path, scope)).json() as string[];
      assert.equal(listed.length, 60);
      for (let n = 0; n < 60; n += 7) assert.deepEqual((await send('GET', resource.path, { ...scope, [id]: `doc-${n}` })).json(), { n });
    });

    it(`${resource.name}: of 20 concurrent 2.0.0 PUTs without preconditions of one new document, one stores it and 19 answer 409`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'contended' };
      const results = await Promise.all(Array.from({ length: 20 }, (_, n) => send('PUT', resource.path, params, { n })));
      const statuses = results.map((res) => res.statusCode);
      assert.equal(statuses.filter((status) => status === 204).length, 1, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 409).length, 19, statuses.join(','));
      const winner = results.findIndex((res) => res.statusCode === 204);
      assert.deepEqual((await send('GET', resource.path, params)).json(), { n: winner });
    });

    it(`${resource.name}: of 20 concurrent PUTs with If-None-Match: * of one new document, one stores it and 19 answer 412`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'created-once' };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, n) => send('PUT', resource.path, params, { n }, { 'if-none-match': '*' })),
      );
      const statuses = results.map((res) => res.statusCode);
      assert.equal(statuses.filter((status) => status === 204).length, 1, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 412).length, 19, statuses.join(','));
      const winner = results.findIndex((res) => res.statusCode === 204);
      assert.deepEqual((await send('GET', resource.path, params)).json(), { n: winner });
    });

    it(`${resource.name}: keeps every key of 50 concurrent merges into one document`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'merged' };
      const results = await Promise.all(Array.from({ length: 50 }, (_, n) => send('POST', resource.path, params, { [`k${n}`]: n })));
      assert.ok(results.every((res) => res.statusCode === 204));
      const stored = (await send('GET', resource.path, params)).json();
      assert.equal(Object.keys(stored).length, 50);
      for (let n = 0; n < 50; n++) assert.equal(stored[`k${n}`], n);
    });

    it(`${resource.name}: of 20 concurrent merges with the stored ETag in If-Match, one merges and 19 answer 412`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'guarded-merges' };
      await send('PUT', resource.path, params, { base: 0 });
      const etag = String((await send('GET', resource.path, params)).headers.etag);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, n) => send('POST', resource.path, params, { [`k${n}`]: n }, { 'if-match': etag })),
      );
      const statuses = results.map((res) => res.statusCode);
      assert.deepEqual([...statuses].sort(), [204, ...Array(19).fill(412)], statuses.join(','));
      const winner = statuses.indexOf(204);
      assert.deepEqual((await send('GET', resource.path, params)).json(), { base: 0, [`k${winner}`]: winner });

      // Into an absent document, If-None-Match: * lets only the first store it.
      const fresh = { ...params, [id]: 'created-by-merge' };
      const creates = await Promise.all(
        Array.from({ length: 20 }, (_, n) => send('POST', resource.path, fresh, { n }, { 'if-none-match': '*' })),
      );
      const created = creates.map((res) => res.statusCode);
      assert.equal(created.filter((status) => status === 204).length, 1, created.join(','));
      assert.deepEqual((await send('GET', resource.path, fresh)).json(), { n: created.indexOf(204) });
    });

    it(`${resource.name}: concurrent merges with and without preconditions each answer as in some order, and only the 204s are stored`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'mixed-preconditions' };
      await send('PUT', resource.path, params, { base: 0 });
      const etag = String((await send('GET', resource.path, params)).headers.etag);
      // n % 3: 0 needs the stored version, 1 needs any other (one a merge of this batch left), 2 needs nothing.
      const preconditions = (n: number): Record<string, string> =>
        n % 3 === 0 ? { 'if-match': etag } : n % 3 === 1 ? { 'if-none-match': etag } : {};
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, n) => send('POST', resource.path, params, { [`k${n}`]: n }, preconditions(n))),
      );
      const statuses = results.map((res) => res.statusCode);
      assert.ok(
        statuses.every((status, n) => status === 204 || (status === 412 && n % 3 !== 2)),
        statuses.join(','),
      );
      // Every merge changes the document: once one is stored, the stored ETag is gone for good.
      assert.ok(statuses.filter((status, n) => status === 204 && n % 3 === 0).length <= 1, statuses.join(','));
      const stored = (await send('GET', resource.path, params)).json();
      const expected: Record<string, number> = { base: 0 };
      statuses.forEach((status, n) => {
        if (status === 204) expected[`k${n}`] = n;
      });
      assert.deepEqual(stored, expected);
    });

    it(`${resource.name}: of concurrent merges, only the one that sends no JSON object fails`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const params = { ...resource.scope(), [id]: 'one-bad-merge' };
      await send('PUT', resource.path, params, { base: 0 });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          n === 7
            ? send('POST', resource.path, params, [1])
            : n === 13
              ? send('POST', resource.path, params, 'words', { 'content-type': 'text/plain' })
              : send('POST', resource.path, params, { [`k${n}`]: n }),
        ),
      );
      for (const [n, res] of results.entries()) {
        if (n === 7 || n === 13) {
          assert.equal(res.statusCode, 400, res.body);
          assert.equal(res.json().code, 'documents.not_mergeable');
        } else assert.equal(res.statusCode, 204, res.body);
      }
      const expected: Record<string, number> = { base: 0 };
      for (let n = 0; n < 20; n++) if (n !== 7 && n !== 13) expected[`k${n}`] = n;
      assert.deepEqual((await send('GET', resource.path, params)).json(), expected);
    });

    it(`${resource.name}: answers the seed's validation error for every missing parameter of a PUT`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const res = await send('PUT', resource.path, { extra: 'kept' }, { page: 1 });
      assert.equal(res.statusCode, 400);
      const required =
        resource.name === 'state' ? ['activityId', 'agent', id] : resource.name === 'activity profile' ? ['activityId', id] : ['agent', id];
      assert.deepEqual(res.json(), {
        code: 400,
        name: 'Bad Request',
        body: required.map((parameter) => ({
          name: 'ValidationError',
          description: `'query' must contain property '${parameter}'`,
          property: 'query',
          value: { extra: 'kept', document: { page: 1 } },
        })),
      });
      const post = await send('POST', resource.path, resource.scope(), { page: 1 });
      assert.equal(post.statusCode, 400);
      assert.equal(post.json().body[0].description, `'query' must contain property '${id}'`);
    });

    it(`${resource.name}: keeps tenants apart`, async () => {
      const a = await ctx.given.tenant();
      const b = await ctx.given.tenant();
      const params = { ...resource.scope(), [id]: 'private' };
      await client(ctx, a)('PUT', resource.path, params, { owner: 'a' });
      const sendB = client(ctx, b);
      assert.equal((await sendB('GET', resource.path, params)).statusCode, 404);
      assert.deepEqual((await sendB('GET', resource.path, { ...params, [id]: '' })).json(), []);
      assert.equal((await sendB('PUT', resource.path, params, { owner: 'b' })).statusCode, 204, "B's document is its own");
      assert.deepEqual((await client(ctx, a)('GET', resource.path, params)).json(), { owner: 'a' });
      const crossed = await ctx.app.inject({
        method: 'GET',
        url: url(resource.path, params),
        headers: { ...a.xapi, 'x-svc-tenant': b.name },
      });
      assert.equal(crossed.statusCode, 401);
      const anonymous = await ctx.app.inject({
        method: 'GET',
        url: url(resource.path, params),
        headers: { 'x-experience-api-version': '2.0.0' },
      });
      assert.equal(anonymous.statusCode, 401);
    });

    it(`${resource.name}: answers 413 above the document size limit`, async () => {
      const send = client(ctx, await ctx.given.tenant());
      const res = await send('PUT', resource.path, { ...resource.scope(), [id]: 'huge' }, Buffer.alloc(ctx.config.documentLimitBytes + 1), {
        'content-type': 'application/octet-stream',
      });
      assert.equal(res.statusCode, 413);
    });
  }

  it('profiles under xAPI 1.0.3: a PUT without preconditions is 400 on a new document and 409 on an existing one', async () => {
    const send = client(ctx, await ctx.given.tenant(), '1.0.3');
    for (const resource of RESOURCES.filter((r) => r.name !== 'state')) {
      const params = { ...resource.scope(), profileId: 'p' };
      const fresh = await send('PUT', resource.path, params, { v: 1 });
      assert.equal(fresh.statusCode, 400, resource.name);
      assert.equal(fresh.json().code, 'documents.precondition_required');
      assert.equal((await send('GET', resource.path, params)).statusCode, 404);
      assert.equal((await send('PUT', resource.path, params, { v: 1 }, { 'if-none-match': '*' })).statusCode, 204);
      assert.equal((await send('PUT', resource.path, params, { v: 2 })).statusCode, 409);
    }
  });

  it('state under xAPI 1.0.3: a PUT without preconditions replaces an existing document', async () => {
    const send = client(ctx, await ctx.given.tenant(), '1.0.3');
    const params = { ...RESOURCES[0].scope(), stateId: 's' };
    assert.equal((await send('PUT', '/xapi/activities/state', params, { v: 1 })).statusCode, 204);
    assert.equal((await send('PUT', '/xapi/activities/state', params, { v: 2 })).statusCode, 204);
    assert.deepEqual((await send('GET', '/xapi/activities/state', params)).json(), { v: 2 });
  });

  it('state under xAPI 1.0.3: 20 concurrent PUTs of one new document all succeed, and one of them is stored whole', async () => {
    const send = client(ctx, await ctx.given.tenant(), '1.0.3');
    const params = { ...RESOURCES[0].scope(), stateId: 'last-wins' };
    const bodies = Array.from({ length: 20 }, (_, n) => ({ n, pad: 'x'.repeat(n * 10) }));
    const results = await Promise.all(bodies.map((body) => send('PUT', '/xapi/activities/state', params, body)));
    assert.ok(results.every((res) => res.statusCode === 204));
    const stored = (await send('GET', '/xapi/activities/state', params)).json() as { n: number };
    assert.deepEqual(stored, bodies[stored.n]);
  });

  it('state: concurrent PUTs of new documents of two tenants each land in their own tenant', async () => {
    const [first, second] = [await ctx.given.tenant(), await ctx.given.tenant()];
    const scope = RESOURCES[0].scope();
    const puts = Array.from({ length: 30 }, (_, n) =>
      client(ctx, n % 2 ? second : first)('PUT', '/xapi/activities/state', { ...scope, stateId: `s${n}` }, { n, tenant: n % 2 }),
    );
    assert.ok((await Promise.all(puts)).every((res) => res.statusCode === 204));
    for (const [index, tenant] of [first, second].entries()) {
      const send = client(ctx, tenant);
      const ids = ((await send('GET', '/xapi/activities/state', scope)).json() as string[]).sort();
      assert.deepEqual(ids, Array.from({ length: 15 }, (_, k) => `s${2 * k + index}`).sort());
      assert.deepEqual((await send('GET', '/xapi/activities/state', { ...scope, stateId: `s${index}` })).json(), {
        n: index,
        tenant: index,
      });
    }
  });

  it('state: concurrent merges into several documents of two tenants each land in their own tenant, written together', async () => {
    const tenants = [await ctx.given.tenant(), await ctx.given.tenant()];
    const scope = RESOURCES[0].scope();
    // The same addresses in both tenants; s0 is stored already in each, s1 and s2 are not.
    for (const [t, tenant] of tenants.entries())
      await client(ctx, tenant)('PUT', '/xapi/activities/state', { ...scope, stateId: 's0' }, { t });
    const before = await mergeBatches();
    const merges = Array.from({ length: 60 }, (_, n) => ({ t: n % 2, stateId: `s${n % 3}`, n }));
    const results = await Promise.all(
      merges.map(({ t, stateId, n }) => client(ctx, tenants[t])('POST', '/xapi/activities/state', { ...scope, stateId }, { [`k${n}`]: t })),
    );
    assert.ok(
      results.every((res) => res.statusCode === 204),
      results.map((res) => res.statusCode).join(','),
    );
    const after = await mergeBatches();
    assert.equal(after.merges - before.merges, 60);
    assert.ok(after.batches - before.batches < 60, `${after.batches - before.batches} transactions for 60 merges`);
    for (const [t, tenant] of tenants.entries()) {
      for (const stateId of ['s0', 's1', 's2']) {
        const expected: Record<string, number> = stateId === 's0' ? { t } : {};
        for (const merge of merges) if (merge.t === t && merge.stateId === stateId) expected[`k${merge.n}`] = t;
        const got = await client(ctx, tenant)('GET', '/xapi/activities/state', { ...scope, stateId });
        assert.deepEqual(got.json(), expected, `tenant ${t}, ${stateId}`);
      }
    }
  });

  it('state: concurrent merges into a document a PUT stored as text each answer 400, and the other documents merge', async () => {
    const send = client(ctx, await ctx.given.tenant());
    const scope = RESOURCES[0].scope();
    const text = { ...scope, stateId: 'text' };
    await send('PUT', '/xapi/activities/state', text, 'raw words', { 'content-type': 'text/plain' });
    await send('PUT', '/xapi/activities/state', { ...scope, stateId: 'stored' }, { base: 0 });
    const before = (await send('GET', '/xapi/activities/state', text)).headers.etag;
    const targets = ['text', 'stored', 'absent'];
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, n) => send('POST', '/xapi/activities/state', { ...scope, stateId: targets[n % 3] }, { [`k${n}`]: n })),
    );
    const expected: Record<string, Record<string, number>> = { stored: { base: 0 }, absent: {} };
    for (const [n, res] of results.entries()) {
      if (n % 3 === 0) {
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().code, 'documents.not_mergeable');
      } else {
        assert.equal(res.statusCode, 204, res.body);
        expected[targets[n % 3]][`k${n}`] = n;
      }
    }
    const unchanged = await send('GET', '/xapi/activities/state', text);
    assert.equal(unchanged.body, 'raw words');
    assert.equal(unchanged.headers['content-type'], 'text/plain');
    assert.equal(unchanged.headers.etag, before);
    for (const stateId of ['stored', 'absent']) {
      assert.deepEqual((await send('GET', '/xapi/activities/state', { ...scope, stateId })).json(), expected[stateId]);
    }
  });

  it('state: merges racing PUTs of the same new documents each land: every merge key is stored, and a PUT only when it came first', async () => {
    const send = client(ctx, await ctx.given.tenant());
    const scope = RESOURCES[0].scope();
    const requests = Array.from({ length: 10 }, (_, d) => [
      send('PUT', '/xapi/activities/state', { ...scope, stateId: `d${d}` }, { put: d }),
      ...Array.from({ length: 5 }, (_, n) => send('POST', '/xapi/activities/state', { ...scope, stateId: `d${d}` }, { [`k${n}`]: n })),
    ]);
    const answers = await Promise.all(requests.map((document) => Promise.all(document)));
    for (const [d, [put, ...merges]] of answers.entries()) {
      assert.ok([204, 409].includes(put.statusCode), put.body);
      assert.ok(
        merges.every((res) => res.statusCode === 204),
        merges.map((res) => res.body).join(','),
      );
      const expected: Record<string, number> = put.statusCode === 204 ? { put: d } : {};
      for (let n = 0; n < 5; n++) expected[`k${n}`] = n;
      assert.deepEqual((await send('GET', '/xapi/activities/state', { ...scope, stateId: `d${d}` })).json(), expected);
    }
  });

  it('state: registrations are separate documents; lists and deletes filter by registration', async () => {
    const send = client(ctx, await ctx.given.tenant());
    const scope = RESOURCES[0].scope();
    const r1 = randomUUID();
    const r2 = randomUUID();
    await send('PUT', '/xapi/activities/state', { ...scope, stateId: 'a', registration: r1 }, { r: 1 });
    await send('PUT', '/xapi/activities/state', { ...scope, stateId: 'b', registration: r2 }, { r: 2 });
    await send('PUT', '/xapi/activities/state', { ...scope, stateId: 'c' }, { r: 0 });
    assert.equal((await send('GET', '/xapi/activities/state', { ...scope, stateId: 'a' })).statusCode, 404, 'without its registration');
    assert.deepEqual((await send('GET', '/xapi/activities/state', { ...scope, stateId: 'a', registration: r1 })).json(), { r: 1 });
    assert.deepEqual((await send('GET', '/xapi/activities/state', { ...scope, registration: r1 })).json(), ['a']);
    assert.deepEqual((await send('GET', '/xapi/activities/state', scope)).json(), ['a', 'b', 'c']);

    assert.equal((await send('DELETE', '/xapi/activities/state', { ...scope, registration: r1 })).statusCode, 204);
    assert.deepEqual((await send('GET', '/xapi/activities/state', scope)).json(), ['b', 'c']);
    assert.equal((await send('DELETE', '/xapi/activities/state', scope)).statusCode, 204);
    assert.deepEqual((await send('GET', '/xapi/activities/state', scope)).json(), []);

    const bad = await send('GET', '/xapi/activities/state', { ...scope, registration: 'not-a-uuid' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /'registration'/);
  });

  it('state: actorId addresses the same documents as agent', async () => {
    const send = client(ctx, await ctx.given.tenant());
    const activityId = `${ACTIVITY}/${randomUUID()}`;
    const account = { homePage: 'https://lms.example.com', name: 'learner-7' };
    await send('PUT', '/xapi/activities/state', { activityId, agent: JSON.stringify({ account }), stateId: 's' }, { via: 'agent' });
    const viaActorId = await send('GET', '/xapi/activities/state', {
      activityId,
      actorId: 'account|https://lms.example.com|learner-7',
      stateId: 's',
    });
    assert.equal(viaActorId.statusCode, 200);
    assert.deepEqual(viaActorId.json(), { via: 'agent' });
    const mbox = await send('GET', '/xapi/activities/state', { activityId, actorId: 'mbox|mailto:learner@example.com' });
    assert.deepEqual(mbox.json(), []);
    const bad = await send('GET', '/xapi/activities/state', { activityId, actorId: 'nonsense', stateId: 's' });
    assert.equal(bad.statusCode, 400);
  });

  it('state: refuses malformed agents with 400 naming the parameter', async () => {
    const send = client(ctx, await ctx.given.tenant());
    const activityId = `${ACTIVITY}/${randomUUID()}`;
    for (const agent of [
      'not json',
      '[]',
      '{"name":"no ifi"}',
      '{"mbox":"learner@example.com"}',
      '{"mbox":"mailto:a@b.c","openid":"https://x.y"}',
    ]) {
      const res = await send('PUT', '/xapi/activities/state', { activityId, agent, stateId: 's' }, { v: 1 });
      assert.equal(res.statusCode, 400, agent);
      assert.match(res.json().message, /'agent'/, agent);
    }
    assert.deepEqual((await send('GET', '/xapi/activities/state', { activityId, agent: AGENT })).json(), [], 'nothing stored');
  });
});
