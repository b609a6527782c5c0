import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

/*
 * `__proto__` and `constructor` keys are data wherever JSON is accepted. Every body here is JSON
 * text: a JavaScript literal `{ __proto__: … }` would set a prototype, not a key.
 */

const PROTO_VALUE = '{"__proto__":{"x":1}}';
const CONSTRUCTOR_VALUE = '{"constructor":{"prototype":{"polluted":true}}}';
const EXTENSION = 'http://example.com/ext/proto';
const OTHER_EXTENSION = 'http://example.com/ext/constructor';

/** Nothing reached Object.prototype: a fresh object has neither key the bodies carried. */
function assertNotPolluted(): void {
  const fresh: Record<string, unknown> = {};
  assert.equal(fresh.x, undefined);
  assert.equal(fresh.polluted, undefined);
  assert.equal(Object.getPrototypeOf(fresh), Object.prototype);
  assert.deepEqual(
    Object.getOwnPropertyNames(Object.prototype).filter((name) => name === 'x' || name === 'polluted'),
    [],
  );
}

const statementText = (id: string, protoValue = PROTO_VALUE, actor = '{"mbox":"mailto:learner@example.com"}') =>
  `{"id":"${id}","actor":${actor},` +
  `"verb":{"id":"http://adlnet.gov/expapi/verbs/experienced"},` +
  `"object":{"id":"http://example.com/a","definition":{"extensions":{"${EXTENSION}":${PROTO_VALUE}}}},` +
  `"result":{"extensions":{"${EXTENSION}":${protoValue},"${OTHER_EXTENSION}":${CONSTRUCTOR_VALUE}}},` +
  `"context":{"extensions":{"${EXTENSION}":{"a":${PROTO_VALUE}}}}}`;

function xapi(ctx: TestContext, tenant: GivenTenant) {
  return (method: 'GET' | 'PUT' | 'POST', url: string, payload?: string) =>
    ctx.app.inject({
      method,
      url,
      headers: { ...tenant.xapi, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      payload,
    });
}

describeEachBackend('JSON with "__proto__" and "constructor" keys', (ctx) => {
  afterEach(assertNotPolluted);

  it('stores a statement with "__proto__" in its extensions and answers them back as data', async () => {
    const send = xapi(ctx, await ctx.given.tenant());
    const id = randomUUID();
    const posted = await send('POST', '/xapi/statements', statementText(id));
    assert.equal(posted.statusCode, 200, posted.body);

    for (const format of ['exact', 'canonical', 'ids']) {
      const got = await send('GET', `/xapi/statements?statementId=${id}&format=${format}`);
      assert.equal(got.statusCode, 200, got.body);
      assert.ok(got.body.includes(`"result":{"extensions":{`), got.body);
      assert.ok(got.body.includes(`"${EXTENSION}":${PROTO_VALUE}`), `${format}: ${got.body}`);
      assert.ok(got.body.includes(`"${OTHER_EXTENSION}":${CONSTRUCTOR_VALUE}`), `${format}: ${got.body}`);
      assert.ok(got.body.includes(`"${EXTENSION}":{"a":${PROTO_VALUE}}`), `${format}: ${got.body}`);
      const statement = JSON.parse(got.body) as { result: { extensions: Record<string, object> } };
      assert.equal(Object.getPrototypeOf(statement.result.extensions[EXTENSION]), Object.prototype);
      assert.deepEqual(Object.keys(statement.result.extensions[EXTENSION]), ['__proto__']);
    }
  });

  it('stores such a statement sent as multipart/mixed too (issue 24)', async () => {
    const tenant = await ctx.given.tenant();
    const id = randomUUID();
    const boundary = 'proto-boundary';
    const posted = await ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: { ...tenant.xapi, 'content-type': `multipart/mixed; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Type: application/json\r\n\r\n${statementText(id)}\r\n--${boundary}--\r\n`,
    });
    assert.equal(posted.statusCode, 200, posted.body);
    const got = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${id}`, headers: tenant.xapi });
    assert.ok(got.body.includes(`"${EXTENSION}":${PROTO_VALUE}`), got.body);
  });

  it('names a "__proto__" property where xAPI defines none as the unknown property it is (400)', async () => {
    const send = xapi(ctx, await ctx.given.tenant());
    const res = await send(
      'POST',
      '/xapi/statements',
      statementText(randomUUID(), PROTO_VALUE, '{"mbox":"mailto:learner@example.com","__proto__":{"name":"x"}}'),
    );
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().details.property, 'statement.actor.__proto__');
  });

  it('takes the same statement again by PUT, and tells a statement differing only under "__proto__" apart (409)', async () => {
    const send = xapi(ctx, await ctx.given.tenant());
    const id = randomUUID();
    assert.equal((await send('PUT', `/xapi/statements?statementId=${id}`, statementText(id))).statusCode, 204);
    assert.equal((await send('PUT', `/xapi/statements?statementId=${id}`, statementText(id))).statusCode, 204);
    const differing = await send('PUT', `/xapi/statements?statementId=${id}`, statementText(id, '{"__proto__":{"x":2}}'));
    assert.equal(differing.statusCode, 409, differing.body);
  });

  it('stores and merges documents holding a "__proto__" property byte for byte', async () => {
    const send = xapi(ctx, await ctx.given.tenant());
    const query = new URLSearchParams({ activityId: 'http://example.com/a', agent: '{"mbox":"mailto:learner@example.com"}', stateId: 's' });
    const url = `/xapi/activities/state?${query}`;
    const document = `{"__proto__":{"x":1},"constructor":{"prototype":{"polluted":true}},"a":1}`;
    assert.equal((await send('PUT', url, document)).statusCode, 204);
    const got = await send('GET', url);
    assert.equal(got.statusCode, 200);
    assert.equal(got.body, document);

    assert.equal((await send('POST', url, '{"__proto__":{"y":2},"b":2}')).statusCode, 204);
    const merged = await send('GET', url);
    assert.equal(merged.body, '{"__proto__":{"y":2},"constructor":{"prototype":{"polluted":true}},"a":1,"b":2}');

    const profileUrl = `/xapi/activities/profile?${new URLSearchParams({ activityId: 'http://example.com/a', profileId: 'p' })}`;
    assert.equal((await send('POST', profileUrl, '{"a":1}')).statusCode, 204);
    assert.equal((await send('POST', profileUrl, '{"__proto__":{"x":1}}')).statusCode, 204);
    assert.equal((await send('GET', profileUrl)).body, '{"a":1,"__proto__":{"x":1}}');
  });

  it('reads an agent query parameter holding "__proto__" as an agent', async () => {
    const tenant = await ctx.given.tenant();
    const send = xapi(ctx, tenant);
    const agent = '{"mbox":"mailto:learner@example.com","__proto__":{"mbox":"mailto:other@example.com"}}';
    const stateUrl = `/xapi/activities/state?${new URLSearchParams({ activityId: 'http://example.com/a', agent, stateId: 's' })}`;
    assert.equal((await send('PUT', stateUrl, '{"a":1}')).statusCode, 204);
    const plain = `/xapi/activities/state?${new URLSearchParams({ activityId: 'http://example.com/a', agent: '{"mbox":"mailto:learner@example.com"}', stateId: 's' })}`;
    assert.equal((await send('GET', plain)).body, '{"a":1}');
    const person = await send('GET', `/xapi/agents?${new URLSearchParams({ agent })}`);
    assert.equal(person.statusCode, 200, person.body);
    assert.deepEqual(person.json().mbox, ['mailto:learner@example.com']);
  });

  it('imports a "__proto__" attribute from CSV and JSON, and takes the actor it shows back in the agent upsert', async () => {
    const tenant = await ctx.given.tenant();
    const attributesKey = `http://${ctx.config.baseDomain}/api/ext/agent/attributes`;
    const csv = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: { ...tenant.headers, 'content-type': 'text/csv' },
      payload: 'name,email,__proto__,constructor\nAda,ada@example.org,"{""x"":1}",Object\n',
    });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.equal(csv.json().new, 1, csv.body);
    const json = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: '{"users":[{"name":"Bea","attributes":{"email":"bea@example.org","__proto__":"{\\"x\\":1}","constructor":"Object"}}]}',
    });
    assert.equal(json.statusCode, 200, json.body);
    assert.equal(json.json().new, 1, json.body);

    const list = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: tenant.headers });
    assert.equal(list.statusCode, 200, list.body);
    const actors = JSON.parse(list.body) as Array<Record<string, any>>;
    const ada = actors.find((actor) => actor.name === 'Ada');
    assert.ok(ada, list.body);
    assert.deepEqual(
      new Map(Object.entries(ada.extensions[attributesKey])),
      new Map([
        ['email', 'ada@example.org'],
        ['__proto__', '{"x":1}'],
        ['constructor', 'Object'],
      ]),
    );
    assert.ok(list.body.includes(`"__proto__":"{\\"x\\":1}"`), list.body);

    // Sent back as GET /api/actors shows it, with one attribute changed.
    const adaText = JSON.stringify(ada).replace('"constructor":"Object"', '"constructor":"Function"');
    const upsert = await ctx.app.inject({
      method: 'PUT',
      url: '/api/actors/agents',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: adaText,
    });
    assert.equal(upsert.statusCode, 200, upsert.body);
    assert.ok(upsert.body.includes(`"__proto__":"{\\"x\\":1}"`), upsert.body);
    assert.ok(upsert.body.includes(`"constructor":"Function"`), upsert.body);
  });
});
