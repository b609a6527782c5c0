import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

// JSON is UTF-8 (RFC 8259 §8.1): a body whose bytes are not is refused whole, never stored with
// U+FFFD in place of what was sent (issue 24, item 12's silent corruption, for JSON).

const NOT_UTF8 = Buffer.from([0x5a, 0xfc, 0x72, 0x69, 0x63, 0x68]); // "Zürich" in latin-1
const withBytes = (before: string, bytes: Buffer, after: string) => Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]);

describeEachBackend('JSON bodies that are not UTF-8', (ctx) => {
  const postStatement = (tenant: GivenTenant, payload: Buffer) =>
    ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: { ...tenant.xapi, 'content-type': 'application/json' }, payload });

  it('refuses a statement whose text is not UTF-8 (400 request.invalid_json) and stores nothing', async () => {
    const tenant = await ctx.given.tenant();
    const id = randomUUID();
    const res = await postStatement(
      tenant,
      withBytes(
        `{"id":"${id}","actor":{"mbox":"mailto:a@example.com","name":"`,
        NOT_UTF8,
        '"},"verb":{"id":"http://adlnet.gov/expapi/verbs/experienced"},"object":{"id":"http://example.com/a"}}',
      ),
    );
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'request.invalid_json');
    assert.match(res.json().message, /not UTF-8/);
    const read = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${id}`, headers: tenant.xapi });
    assert.equal(read.statusCode, 404);
  });

  it('still reads UTF-8 with a byte-order mark, and multi-byte text byte for byte', async () => {
    const tenant = await ctx.given.tenant();
    const id = randomUUID();
    const res = await postStatement(
      tenant,
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(
          `{"id":"${id}","actor":{"mbox":"mailto:a@example.com","name":"Zürich 😀"},"verb":{"id":"http://adlnet.gov/expapi/verbs/experienced"},"object":{"id":"http://example.com/a"}}`,
        ),
      ]),
    );
    assert.equal(res.statusCode, 200, res.body);
    const read = await ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${id}`, headers: tenant.xapi });
    assert.equal(read.json().actor.name, 'Zürich 😀');
  });

  it('refuses a users import in JSON that is not UTF-8 (400), importing nobody', async () => {
    const tenant = await ctx.given.tenant();
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/import/users',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: withBytes('{"users":[{"name":"Ada","attributes":{"email":"ada@example.com","city":"', NOT_UTF8, '"}}]}'),
    });
    assert.equal(res.statusCode, 400, res.body);
    const actors = await ctx.app.inject({ method: 'GET', url: '/api/actors', headers: tenant.headers });
    assert.equal(actors.statusCode, 200);
    assert.ok(!actors.body.includes('ada@example.com'), actors.body);
  });

  it('refuses a JSON document that is not UTF-8, written or merged (400), leaving the stored one as it was', async () => {
    const tenant = await ctx.given.tenant();
    const url = `/xapi/activities/state?${new URLSearchParams({ activityId: 'http://example.com/a', agent: '{"mbox":"mailto:a@example.com"}', stateId: 's' })}`;
    const headers = { ...tenant.xapi, 'content-type': 'application/json' };
    assert.equal((await ctx.app.inject({ method: 'PUT', url, headers, payload: '{"city":"Bern"}' })).statusCode, 204);
    for (const method of ['POST', 'PUT'] as const) {
      const res = await ctx.app.inject({
        method,
        url,
        headers: { ...headers, 'if-match': '*' },
        payload: withBytes('{"city":"', NOT_UTF8, '"}'),
      });
      assert.equal(res.statusCode, 400, `${method}: ${res.body}`);
    }
    const read = await ctx.app.inject({ method: 'GET', url, headers: tenant.xapi });
    assert.equal(read.body, '{"city":"Bern"}');
  });
});
