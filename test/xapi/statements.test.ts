import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { describeEachBackend } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Json = Record<string, unknown>;

const VOIDED = 'http://adlnet.gov/expapi/verbs/voided';
const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A valid statement by a fresh learner about a fresh activity, with overrides. */
function statement(overrides: Json = {}): Json {
  const n = randomUUID().slice(0, 8);
  return {
    actor: { objectType: 'Agent', name: `Learner ${n}`, mbox: `mailto:learner-${n}@example.com` },
    verb: { id: COMPLETED, display: { 'en-US': 'completed' } },
    object: { objectType: 'Activity', id: `http://example.com/activities/${n}`, definition: { name: { 'en-US': `Course ${n}` } } },
    ...overrides,
  };
}

const voiding = (target: string, overrides: Json = {}) =>
  statement({ verb: { id: VOIDED, display: { 'en-US': 'voided' } }, object: { objectType: 'StatementRef', id: target }, ...overrides });

describeEachBackend('xAPI statements resource', (ctx) => {
  const post = (tenant: GivenTenant, payload: unknown, headers: Json = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: { ...tenant.xapi, ...headers } as never,
      payload: payload as never,
    });
  const put = (tenant: GivenTenant, statementId: string, payload: unknown) =>
    ctx.app.inject({ method: 'PUT', url: `/xapi/statements?statementId=${statementId}`, headers: tenant.xapi, payload: payload as never });
  const get = (tenant: GivenTenant, query: Record<string, string>, headers: Json = {}) =>
    ctx.app.inject({
      method: 'GET',
      url: `/xapi/statements?${new URLSearchParams(query)}`,
      headers: { ...tenant.xapi, ...headers } as never,
    });
  const store = async (tenant: GivenTenant, payload: unknown): Promise<string[]> => {
    const res = await post(tenant, payload);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const ids = (body: { statements: Json[] }) => body.statements.map((item) => item.id as string);

  describe('POST /xapi/statements', () => {
    it('stores one statement and answers its id in an array', async () => {
      const tenant = await ctx.given.tenant();
      const sent = statement();
      const res = await post(tenant, sent);
      assert.equal(res.statusCode, 200);
      const [id] = res.json();
      assert.match(id, UUID);
      const got = await get(tenant, { statementId: id });
      assert.equal(got.statusCode, 200);
      const body = got.json();
      assert.equal(body.id, id);
      assert.deepEqual(body.actor, sent.actor);
      assert.deepEqual(body.verb, sent.verb);
      assert.deepEqual(body.object, sent.object);
    });

    it('sets stored, timestamp (= stored when absent), version and the API key as authority', async () => {
      const tenant = await ctx.given.tenant();
      const before = Date.now();
      const [id] = await store(tenant, statement());
      const body = (await get(tenant, { statementId: id })).json();
      const stored = Date.parse(body.stored);
      assert.ok(stored >= before - 5 && stored <= Date.now() + 5);
      assert.equal(body.timestamp, body.stored);
      assert.equal(body.version, '2.0.0');
      assert.deepEqual(body.authority, { objectType: 'Agent', account: { homePage: 'http://localhost:80', name: tenant.key } });
    });

    it('keeps a timestamp and a version it was sent, and overwrites a sent authority and stored', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(
        tenant,
        statement({
          timestamp: '2020-01-02T03:04:05.678+02:00',
          version: '1.0.3',
          stored: '2001-01-01T00:00:00Z',
          authority: { mbox: 'mailto:someone@example.com' },
        }),
      );
      const body = (await get(tenant, { statementId: id })).json();
      assert.equal(body.timestamp, '2020-01-02T03:04:05.678+02:00');
      assert.equal(body.version, '1.0.3');
      assert.notEqual(body.stored, '2001-01-01T00:00:00Z');
      assert.equal(body.authority.account.name, tenant.key);
    });

    it('sets version 1.0.0 on a statement sent with X-Experience-API-Version 1.0.3', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(tenant, statement());
      const legacy = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: { ...tenant.xapi, 'x-experience-api-version': '1.0.3' },
        payload: statement(),
      });
      assert.equal(legacy.statusCode, 200);
      assert.equal((await get(tenant, { statementId: legacy.json()[0] })).json().version, '1.0.0');
      assert.equal((await get(tenant, { statementId: id })).json().version, '2.0.0');
    });

    it('stores a batch and answers the ids in the order sent, keeping the ids given', async () => {
      const tenant = await ctx.given.tenant();
      const given = randomUUID();
      const res = await post(tenant, [statement(), statement({ id: given }), statement()]);
      assert.equal(res.statusCode, 200);
      const answered: string[] = res.json();
      assert.equal(answered.length, 3);
      assert.equal(answered[1], given);
      for (const id of answered) assert.equal((await get(tenant, { statementId: id })).statusCode, 200);
    });

    it('stores nothing of a batch when one statement is invalid, naming it', async () => {
      const tenant = await ctx.given.tenant();
      const good = randomUUID();
      const res = await post(tenant, [statement({ id: good }), statement({ verb: { id: 'completed' } })]);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'statement.invalid');
      assert.match(res.json().message, /statements\[1\]\.verb\.id/);
      assert.equal((await get(tenant, { statementId: good })).statusCode, 404);
    });

    it('stores nothing of a batch when one id conflicts with a stored statement', async () => {
      const tenant = await ctx.given.tenant();
      const taken = randomUUID();
      await store(tenant, statement({ id: taken }));
      const fresh = randomUUID();
      const res = await post(tenant, [statement({ id: fresh }), statement({ id: taken })]);
      assert.equal(res.statusCode, 409);
      assert.equal((await get(tenant, { statementId: fresh })).statusCode, 404);
    });

    it('answers 400 to a batch that uses one id twice', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      const res = await post(tenant, [statement({ id }), statement({ id })]);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'statements.duplicate_id');
      assert.equal((await get(tenant, { statementId: id })).statusCode, 404);
    });

    it('answers 200 to the same statement sent again and leaves the stored one unchanged', async () => {
      const tenant = await ctx.given.tenant();
      const sent = statement({ id: randomUUID() });
      await store(tenant, sent);
      const first = (await get(tenant, { statementId: sent.id as string })).json();
      // Differences the LRS itself causes are ignored: verb display, activity definition, member order, ids' case.
      const again = { ...sent, id: (sent.id as string).toUpperCase(), verb: { id: COMPLETED }, object: { id: (sent.object as Json).id } };
      const res = await post(tenant, again);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), [sent.id]);
      assert.deepEqual((await get(tenant, { statementId: sent.id as string })).json(), first);
    });

    it('answers 409 to a different statement with a stored id, and keeps the stored one', async () => {
      const tenant = await ctx.given.tenant();
      const sent = statement({ id: randomUUID() });
      await store(tenant, sent);
      const res = await post(tenant, { ...sent, result: { success: true } });
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().code, 'statements.conflict');
      assert.equal((await get(tenant, { statementId: sent.id as string })).json().result, undefined);
    });

    it('stores single context activities as arrays of one', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(tenant, statement({ context: { contextActivities: { parent: { id: 'http://example.com/p' } } } }));
      const body = (await get(tenant, { statementId: id })).json();
      assert.deepEqual(body.context.contextActivities.parent, [{ id: 'http://example.com/p' }]);
    });

    it('answers 200 with an empty array to an empty batch', async () => {
      const tenant = await ctx.given.tenant();
      const res = await post(tenant, []);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), []);
    });

    const invalid: Array<[string, Json, RegExp]> = [
      ['an unknown top-level property', { mood: 'happy' }, /statement\.mood is not a property/],
      ['a missing actor', { actor: undefined }, /statement\.actor is required/],
      ['a missing verb', { verb: undefined }, /statement\.verb is required/],
      ['a missing object', { object: undefined }, /statement\.object is required/],
      ['an id that is not a UUID', { id: 'not-a-uuid' }, /statement\.id must be a UUID/],
      [
        'an agent with two IFIs',
        { actor: { mbox: 'mailto:a@example.com', openid: 'http://example.com/a' } },
        /statement\.actor.*exactly one inverse functional identifier/,
      ],
      ['an agent without an IFI', { actor: { name: 'Nobody' } }, /statement\.actor.*exactly one/],
      ['an mbox without mailto:', { actor: { mbox: 'a@example.com' } }, /statement\.actor.*mbox/],
      ['an anonymous group without members', { actor: { objectType: 'Group', name: 'G' } }, /statement\.actor\.member is required/],
      [
        'a group with a group as a member',
        { actor: { objectType: 'Group', member: [{ objectType: 'Group', mbox: 'mailto:g@example.com' }] } },
        /statement\.actor\.member\[0\]\.objectType/,
      ],
      ['an actor of another objectType', { actor: { objectType: 'Person', mbox: 'mailto:a@example.com' } }, /statement\.actor\.objectType/],
      ['a verb id without a scheme', { verb: { id: 'completed' } }, /statement\.verb\.id must be an IRI/],
      ['a verb display with a bad language tag', { verb: { id: COMPLETED, display: { a12345678: 'x' } } }, /statement\.verb\.display/],
      [
        'a verb display that is not text',
        { verb: { id: COMPLETED, display: { 'en-US': 3 } } },
        /statement\.verb\.display\.en-US must be a string/,
      ],
      ['an activity without an id', { object: { objectType: 'Activity' } }, /statement\.object\.id is required/],
      ['an unknown objectType', { object: { objectType: 'Thing', id: 'http://example.com/x' } }, /statement\.object\.objectType/],
      [
        'an unknown interactionType',
        { object: { id: 'http://example.com/q', definition: { interactionType: 'essay' } } },
        /statement\.object\.definition\.interactionType/,
      ],
      [
        'choices on a likert interaction',
        { object: { id: 'http://example.com/q', definition: { interactionType: 'likert', choices: [{ id: 'a' }] } } },
        /statement\.object\.definition\.choices/,
      ],
      [
        'an extension key that is not an IRI',
        { object: { id: 'http://example.com/q', definition: { extensions: { color: 'red' } } } },
        /statement\.object\.definition\.extensions/,
      ],
      ['a StatementRef with a bad id', { object: { objectType: 'StatementRef', id: '1234' } }, /statement\.object\.id must be a UUID/],
      [
        'a SubStatement inside a SubStatement',
        {
          object: {
            objectType: 'SubStatement',
            actor: { mbox: 'mailto:a@example.com' },
            verb: { id: COMPLETED },
            object: {
              objectType: 'SubStatement',
              actor: { mbox: 'mailto:a@example.com' },
              verb: { id: COMPLETED },
              object: { id: 'http://example.com/a' },
            },
          },
        },
        /statement\.object\.object\.objectType/,
      ],
      [
        'a SubStatement with an id',
        {
          object: {
            objectType: 'SubStatement',
            id: randomUUID(),
            actor: { mbox: 'mailto:a@example.com' },
            verb: { id: COMPLETED },
            object: { id: 'http://example.com/a' },
          },
        },
        /statement\.object\.id is not a property/,
      ],
      ['a scaled score above 1', { result: { score: { scaled: 1.5 } } }, /statement\.result\.score\.scaled/],
      ['a raw score below min', { result: { score: { raw: 1, min: 2, max: 5 } } }, /statement\.result\.score\.raw/],
      ['success given as text', { result: { success: 'true' } }, /statement\.result\.success must be true or false/],
      ['a duration that is not ISO 8601', { result: { duration: '1 hour' } }, /statement\.result\.duration/],
      ['a registration that is not a UUID', { context: { registration: 'abc' } }, /statement\.context\.registration must be a UUID/],
      [
        'revision when the object is not an Activity',
        { object: { objectType: 'Agent', mbox: 'mailto:b@example.com' }, context: { revision: '2' } },
        /statement\.context\.revision may only be used when the object is an Activity/,
      ],
      ['a team that is not a Group', { context: { team: { mbox: 'mailto:t@example.com' } } }, /statement\.context\.team\.objectType/],
      [
        'a context statement that is not a StatementRef',
        { context: { statement: { id: randomUUID() } } },
        /statement\.context\.statement\.objectType/,
      ],
      ['a timestamp that is not ISO 8601', { timestamp: '01/02/2020' }, /statement\.timestamp must be an ISO 8601 timestamp/],
      ['a timestamp with the -00:00 offset', { timestamp: '2008-09-15T15:53:00.601-00:00' }, /statement\.timestamp/],
      ['a timestamp on 30 February', { timestamp: '2021-02-30T00:00:00Z' }, /statement\.timestamp/],
      ['a version other than 1.0.x or 2.0.x', { version: '1.1.0' }, /statement\.version/],
      ['a null value', { result: null }, /statement\.result must be a JSON object/],
      [
        'the voided verb with an Activity object',
        { verb: { id: VOIDED }, object: { id: 'http://example.com/a' } },
        /statement\.object must be a StatementRef/,
      ],
      [
        'an attachment without a fileUrl',
        {
          attachments: [
            { usageType: 'http://example.com/u', display: { en: 'a' }, contentType: 'text/plain', length: 1, sha2: 'a'.repeat(64) },
          ],
        },
        /statement\.attachments\[0\]\.fileUrl is required/,
      ],
    ];
    for (const [what, overrides, message] of invalid) {
      it(`answers 400 naming the property to ${what}`, async () => {
        const tenant = await ctx.given.tenant();
        const res = await post(tenant, statement(overrides));
        assert.equal(res.statusCode, 400, res.body);
        assert.match(res.json().message, message);
      });
    }

    it('accepts context agents and groups in 2.0.0 and refuses them in 1.0.3', async () => {
      const tenant = await ctx.given.tenant();
      const context = {
        contextAgents: [{ objectType: 'contextAgent', agent: { mbox: 'mailto:c@example.com' }, relevantTypes: ['http://example.com/t'] }],
        contextGroups: [{ objectType: 'contextGroup', group: { objectType: 'Group', member: [{ mbox: 'mailto:d@example.com' }] } }],
      };
      assert.equal((await post(tenant, statement({ context }))).statusCode, 200);
      const legacy = await post(tenant, statement({ context }), { 'x-experience-api-version': '1.0.3' });
      assert.equal(legacy.statusCode, 400);
      assert.match(legacy.json().message, /statement\.context\.contextAgents/);
    });

    it('accepts an attachment with a fileUrl, a SubStatement and a full interaction definition', async () => {
      const tenant = await ctx.given.tenant();
      const res = await post(
        tenant,
        statement({
          object: {
            objectType: 'SubStatement',
            actor: { objectType: 'Group', mbox: 'mailto:team@example.com', member: [{ mbox: 'mailto:m@example.com' }] },
            verb: { id: 'http://example.com/verbs/will-answer' },
            object: {
              id: 'http://example.com/questions/1',
              definition: {
                interactionType: 'choice',
                correctResponsesPattern: ['a'],
                choices: [{ id: 'a', description: { en: 'A' } }, { id: 'b' }],
              },
            },
            timestamp: '2024-01-01T00:00:00Z',
          },
          result: { score: { scaled: 0.5, raw: 5, min: 0, max: 10 }, duration: 'PT4H35M59.14S', completion: true },
          attachments: [
            {
              usageType: 'http://example.com/usage',
              display: { 'en-US': 'Certificate' },
              contentType: 'application/pdf',
              length: 1200,
              sha2: 'b'.repeat(64),
              fileUrl: 'https://example.com/certificate.pdf',
            },
          ],
        }),
      );
      assert.equal(res.statusCode, 200, res.body);
    });

    it('answers 400 to a body that is not JSON, and to an invalid statement sent as multipart/mixed', async () => {
      const tenant = await ctx.given.tenant();
      const broken = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: { ...tenant.xapi, 'content-type': 'application/json' },
        payload: '{"actor":',
      });
      assert.equal(broken.statusCode, 400);
      const multipart = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: { ...tenant.xapi, 'content-type': 'multipart/mixed; boundary=abc' },
        payload: '--abc\r\nContent-Type: application/json\r\n\r\n{}\r\n--abc--\r\n',
      });
      assert.equal(multipart.statusCode, 400);
      // Attachments themselves are tested in test/xapi/attachment.test.ts.
      assert.equal(multipart.json().code, 'statement.invalid');
    });

    it('answers 400 to a body in another media type', async () => {
      const tenant = await ctx.given.tenant();
      for (const type of ['multipart/form-data; boundary=abc', 'text/plain', 'application/x-www-form-urlencoded']) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/xapi/statements',
          headers: { ...tenant.xapi, 'content-type': type },
          payload: JSON.stringify(statement()),
        });
        assert.equal(res.statusCode, 400, type);
        assert.equal(res.json().code, 'statements.unsupported_media_type');
      }
    });

    it('answers 400 to a parameter the resource does not define', async () => {
      const tenant = await ctx.given.tenant();
      const res = await ctx.app.inject({ method: 'POST', url: '/xapi/statements?foo=1', headers: tenant.xapi, payload: statement() });
      assert.equal(res.statusCode, 400);
    });
  });

  describe('PUT /xapi/statements', () => {
    it('stores the statement under statementId and answers 204', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      const res = await put(tenant, id, statement());
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      assert.equal((await get(tenant, { statementId: id })).json().id, id);
    });

    it('accepts an id in the body equal to statementId', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      assert.equal((await put(tenant, id, statement({ id }))).statusCode, 204);
    });

    it('answers 400 when the body id differs from statementId', async () => {
      const tenant = await ctx.given.tenant();
      const res = await put(tenant, randomUUID(), statement({ id: randomUUID() }));
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'statements.id_mismatch');
    });

    it('answers 400 without statementId, with a malformed one, or with an array body', async () => {
      const tenant = await ctx.given.tenant();
      const missing = await ctx.app.inject({ method: 'PUT', url: '/xapi/statements', headers: tenant.xapi, payload: statement() });
      assert.equal(missing.statusCode, 400);
      assert.equal((await put(tenant, 'nope', statement())).statusCode, 400);
      assert.equal((await put(tenant, randomUUID(), [statement()])).statusCode, 400);
    });

    it('answers 204 to the same statement again and 409 to a different one under a stored id', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      const sent = statement();
      assert.equal((await put(tenant, id, sent)).statusCode, 204);
      assert.equal((await put(tenant, id, sent)).statusCode, 204);
      const other = await put(tenant, id, statement());
      assert.equal(other.statusCode, 409);
      assert.deepEqual((await get(tenant, { statementId: id })).json().actor, sent.actor);
    });
  });

  describe('GET /xapi/statements by statementId', () => {
    it('answers JSON with Last-Modified = stored and X-Experience-API-Consistent-Through', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(tenant, statement());
      const res = await get(tenant, { statementId: id });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const stored = Date.parse(res.json().stored);
      assert.equal(Date.parse(String(res.headers['last-modified'])), stored - (stored % 1000));
      const through = Date.parse(String(res.headers['x-experience-api-consistent-through']));
      assert.ok(through >= stored);
      assert.equal(res.headers['x-experience-api-version'], '2.0.0');
    });

    it('answers HEAD with the headers and no body', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(tenant, statement());
      const res = await ctx.app.inject({ method: 'HEAD', url: `/xapi/statements?statementId=${id}`, headers: tenant.xapi });
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, '');
      assert.ok(res.headers['x-experience-api-consistent-through']);
    });

    it('answers 404 to an unknown id', async () => {
      const tenant = await ctx.given.tenant();
      const res = await get(tenant, { statementId: randomUUID() });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 'statements.not_found');
      assert.ok(res.headers['x-experience-api-consistent-through']);
    });

    it('answers 400 to statementId with another filter, but accepts format and attachments', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(tenant, statement());
      for (const extra of <Array<Record<string, string>>>[
        { verb: COMPLETED },
        { limit: '1' },
        { ascending: 'true' },
        { voidedStatementId: id },
        { since: '2020-01-01T00:00:00Z' },
      ]) {
        const res = await get(tenant, { statementId: id, ...extra });
        assert.equal(res.statusCode, 400, JSON.stringify(extra));
      }
      assert.equal((await get(tenant, { statementId: id, format: 'ids', attachments: 'false' })).statusCode, 200);
      const voidedWithFilter = await get(tenant, { voidedStatementId: id, agent: '{"mbox":"mailto:a@example.com"}' });
      assert.equal(voidedWithFilter.statusCode, 400);
    });

    it('answers 400 to a malformed statementId, an unknown format, an unknown or miscased parameter', async () => {
      const tenant = await ctx.given.tenant();
      assert.equal((await get(tenant, { statementId: 'abc' })).statusCode, 400);
      assert.equal((await get(tenant, { format: 'full' })).statusCode, 400);
      assert.equal((await get(tenant, { foo: 'bar' })).statusCode, 400);
      assert.equal((await get(tenant, { StatementId: randomUUID() })).statusCode, 400);
    });

    it('answers attachments=true as multipart/mixed with the statement as its JSON part', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(tenant, statement());
      const res = await get(tenant, { statementId: id, attachments: 'true' });
      assert.equal(res.statusCode, 200);
      const boundary = /boundary=(\S+)/.exec(String(res.headers['content-type']))?.[1];
      assert.ok(boundary);
      const [, part] = res.body.split(`--${boundary}`);
      const json = part.split('\r\n\r\n')[1];
      assert.equal(JSON.parse(json).id, id);
    });
  });

  describe('voiding', () => {
    it('hides a voided statement from statementId and lists, and answers it by voidedStatementId', async () => {
      const tenant = await ctx.given.tenant();
      const target = statement();
      const [targetId] = await store(tenant, target);
      const [voidingId] = await store(tenant, voiding(targetId));
      assert.equal((await get(tenant, { statementId: targetId })).statusCode, 404);
      const voided = await get(tenant, { voidedStatementId: targetId });
      assert.equal(voided.statusCode, 200);
      assert.equal(voided.json().id, targetId);
      assert.equal((await get(tenant, { statementId: voidingId })).statusCode, 200);
      const listed = ids((await get(tenant, {})).json());
      assert.ok(!listed.includes(targetId));
      assert.ok(listed.includes(voidingId));
    });

    it('answers 404 to voidedStatementId of a statement that is not voided', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(tenant, statement());
      assert.equal((await get(tenant, { voidedStatementId: id })).statusCode, 404);
      assert.equal((await get(tenant, { voidedStatementId: randomUUID() })).statusCode, 404);
    });

    it('never voids a voiding statement', async () => {
      const tenant = await ctx.given.tenant();
      const [targetId] = await store(tenant, statement());
      const [voidingId] = await store(tenant, voiding(targetId));
      assert.equal((await post(tenant, voiding(voidingId))).statusCode, 200);
      assert.equal((await get(tenant, { statementId: voidingId })).statusCode, 200);
      assert.equal((await get(tenant, { voidedStatementId: voidingId })).statusCode, 404);
    });

    it('accepts a voiding statement whose target is unknown, and voids the target when it arrives later', async () => {
      const tenant = await ctx.given.tenant();
      const later = randomUUID();
      assert.equal((await post(tenant, voiding(later))).statusCode, 200);
      await store(tenant, statement({ id: later }));
      assert.equal((await get(tenant, { statementId: later })).statusCode, 404);
      assert.equal((await get(tenant, { voidedStatementId: later })).statusCode, 200);
    });

    it('voids a target stored concurrently with its voiding statement', async () => {
      const tenant = await ctx.given.tenant();
      const targets = Array.from({ length: 10 }, () => randomUUID());
      await Promise.all(targets.flatMap((target) => [store(tenant, statement({ id: target })), store(tenant, voiding(target))]));
      for (const target of targets) assert.equal((await get(tenant, { voidedStatementId: target })).statusCode, 200, target);
    });

    it('voids a target sent in the same batch as its voiding statement', async () => {
      const tenant = await ctx.given.tenant();
      const target = randomUUID();
      await store(tenant, [statement({ id: target }), voiding(target)]);
      assert.equal((await get(tenant, { voidedStatementId: target })).statusCode, 200);
    });
  });

  describe('GET /xapi/statements (StatementResult)', () => {
    it("answers the tenant's statements newest stored first, with an empty more", async () => {
      const tenant = await ctx.given.tenant();
      const [first] = await store(tenant, statement());
      const [second] = await store(tenant, statement());
      const res = await get(tenant, {});
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.ok(res.headers['x-experience-api-consistent-through']);
      assert.deepEqual(res.json(), { statements: res.json().statements, more: '' });
      assert.deepEqual(ids(res.json()), [second, first]);
      assert.deepEqual(ids((await get(tenant, { ascending: 'true' })).json()), [first, second]);
    });

    it('answers an empty StatementResult when nothing matches', async () => {
      const tenant = await ctx.given.tenant();
      const res = await get(tenant, { verb: 'http://example.com/never' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { statements: [], more: '' });
    });

    it('pages with limit and a working more link, in both orders', async () => {
      const tenant = await ctx.given.tenant();
      const stored: string[] = [];
      for (let i = 0; i < 3; i += 1) stored.push(...(await store(tenant, [statement(), statement()])));
      for (const ascending of [false, true]) {
        const seen: string[] = [];
        let url = `/xapi/statements?limit=4${ascending ? '&ascending=true' : ''}`;
        let pages = 0;
        while (url) {
          const res = await ctx.app.inject({ method: 'GET', url, headers: tenant.xapi });
          assert.equal(res.statusCode, 200, res.body);
          const body = res.json();
          assert.ok(body.statements.length <= 4);
          seen.push(...(ids(body) as string[]));
          url = body.more;
          pages += 1;
        }
        assert.equal(pages, 2);
        assert.deepEqual(seen, ascending ? stored : [...stored].reverse());
      }
    });

    it('keeps the filters on the more link', async () => {
      const tenant = await ctx.given.tenant();
      const verb = { id: 'http://example.com/verbs/paged' };
      const matching = await store(tenant, [statement({ verb }), statement({ verb }), statement({ verb })]);
      await store(tenant, statement());
      const first = (await get(tenant, { verb: verb.id, limit: '2' })).json();
      assert.equal(first.statements.length, 2);
      const second = (await ctx.app.inject({ method: 'GET', url: first.more, headers: tenant.xapi })).json();
      assert.deepEqual([...ids(first), ...ids(second)], [...matching].reverse());
      assert.equal(second.more, '');
    });

    it('answers 400 to a cursor it did not issue', async () => {
      const tenant = await ctx.given.tenant();
      const res = await get(tenant, { cursor: 'garbage' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'statements.invalid_cursor');
    });

    it('filters by agent: actor, object, a group the agent is a member of, and by IFI alone', async () => {
      const tenant = await ctx.given.tenant();
      const agent = { mbox: `mailto:filter-${randomUUID()}@example.com` };
      const [asActor] = await store(tenant, statement({ actor: { ...agent, name: 'Someone' } }));
      const [asObject] = await store(tenant, statement({ object: { objectType: 'Agent', ...agent } }));
      const [asMember] = await store(
        tenant,
        statement({ actor: { objectType: 'Group', member: [agent, { mbox: 'mailto:x@example.com' }] } }),
      );
      const [asInstructor] = await store(tenant, statement({ context: { instructor: agent } }));
      await store(tenant, statement());
      const direct = ids((await get(tenant, { agent: JSON.stringify(agent) })).json());
      assert.deepEqual(direct, [asMember, asObject, asActor]);
      const related = ids((await get(tenant, { agent: JSON.stringify(agent), related_agents: 'true' })).json());
      assert.deepEqual(related, [asInstructor, asMember, asObject, asActor]);
    });

    it('matches the API key as authority with related_agents', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(tenant, statement());
      const authority = { account: { homePage: 'http://localhost:80', name: tenant.key } };
      assert.deepEqual(ids((await get(tenant, { agent: JSON.stringify(authority), related_agents: 'true' })).json()), [id]);
      assert.deepEqual(ids((await get(tenant, { agent: JSON.stringify(authority) })).json()), []);
    });

    it('filters by verb, activity (related_activities widens it) and registration', async () => {
      const tenant = await ctx.given.tenant();
      const activity = `http://example.com/activities/${randomUUID()}`;
      const registration = randomUUID();
      const verb = { id: `http://example.com/verbs/${randomUUID()}` };
      const [asObject] = await store(tenant, statement({ object: { id: activity } }));
      const [asParent] = await store(
        tenant,
        statement({ verb, context: { registration, contextActivities: { parent: [{ id: activity }] } } }),
      );
      assert.deepEqual(ids((await get(tenant, { activity })).json()), [asObject]);
      assert.deepEqual(ids((await get(tenant, { activity, related_activities: 'true' })).json()), [asParent, asObject]);
      assert.deepEqual(ids((await get(tenant, { verb: verb.id })).json()), [asParent]);
      assert.deepEqual(ids((await get(tenant, { registration })).json()), [asParent]);
      assert.deepEqual(ids((await get(tenant, { registration: registration.toUpperCase() })).json()), [asParent]);
      assert.deepEqual(ids((await get(tenant, { verb: verb.id, activity })).json()), []);
    });

    it('also answers statements that target a matching statement, but never a voided one', async () => {
      const tenant = await ctx.given.tenant();
      const activity = `http://example.com/activities/${randomUUID()}`;
      const [original] = await store(tenant, statement({ object: { id: activity } }));
      const [reference] = await store(
        tenant,
        statement({ verb: { id: 'http://example.com/verbs/confirmed' }, object: { objectType: 'StatementRef', id: original } }),
      );
      const [referenceOfReference] = await store(
        tenant,
        statement({ verb: { id: 'http://example.com/verbs/noted' }, object: { objectType: 'StatementRef', id: reference } }),
      );
      assert.deepEqual(ids((await get(tenant, { activity })).json()), [referenceOfReference, reference, original]);
      const [voidingId] = await store(tenant, voiding(original));
      assert.deepEqual(ids((await get(tenant, { activity })).json()), [voidingId, referenceOfReference, reference]);
    });

    it('filters by since (exclusive) and until (inclusive) on stored', async () => {
      const tenant = await ctx.given.tenant();
      const [first] = await store(tenant, statement());
      const firstStored = (await get(tenant, { statementId: first })).json().stored;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const [second] = await store(tenant, statement());
      assert.deepEqual(ids((await get(tenant, { since: firstStored })).json()), [second]);
      assert.deepEqual(ids((await get(tenant, { until: firstStored })).json()), [first]);
    });

    it('answers 400 to malformed filter values', async () => {
      const tenant = await ctx.given.tenant();
      for (const query of <Array<Record<string, string>>>[
        { agent: 'not json' },
        { agent: '{"name":"no ifi"}' },
        { verb: 'completed' },
        { activity: 'no scheme' },
        { registration: 'abc' },
        { since: 'yesterday' },
        { until: '2020-13-01T00:00:00Z' },
        { limit: '-1' },
        { limit: 'ten' },
        // Ajv's coercion reads these as numbers (+text); only a decimal integer is a limit.
        { limit: 'Infinity' },
        { limit: '0x10' },
        { limit: '1e309' },
        { limit: '1e1' },
        { limit: '5.0' },
        { limit: ' 5' },
        { since: '2024-02-30T00:00:00Z' },
        { ascending: 'yes' },
        { related_agents: '1' },
      ]) {
        const res = await get(tenant, query);
        assert.equal(res.statusCode, 400, JSON.stringify(query));
        assert.match(res.json().message, new RegExp(Object.keys(query)[0]), JSON.stringify(query));
      }
    });

    it('answers format=ids with identifiers only', async () => {
      const tenant = await ctx.given.tenant();
      const [id] = await store(
        tenant,
        statement({ actor: { objectType: 'Group', name: 'Team', member: [{ name: 'M', mbox: 'mailto:m@example.com' }] } }),
      );
      const [listed] = (await get(tenant, { format: 'ids' })).json().statements;
      assert.equal(listed.id, id);
      assert.deepEqual(listed.actor, { objectType: 'Group', member: [{ mbox: 'mailto:m@example.com' }] });
      assert.deepEqual(listed.verb, { id: COMPLETED });
      assert.deepEqual(Object.keys(listed.object), ['id']);
    });

    it('answers format=canonical with the latest definition and one language per map, chosen by Accept-Language', async () => {
      const tenant = await ctx.given.tenant();
      const activity = `http://example.com/activities/${randomUUID()}`;
      const [old] = await store(
        tenant,
        statement({
          verb: { id: COMPLETED, display: { 'en-US': 'completed', 'fr-FR': 'terminé' } },
          object: { id: activity, definition: { name: { 'en-US': 'Old name' } } },
        }),
      );
      await store(tenant, statement({ object: { id: activity, definition: { name: { 'en-US': 'New name', 'fr-FR': 'Nouveau nom' } } } }));
      const french = (await get(tenant, { statementId: old, format: 'canonical' }, { 'accept-language': 'fr;q=0.9, de' })).json();
      assert.deepEqual(french.object.definition.name, { 'fr-FR': 'Nouveau nom' });
      assert.deepEqual(french.verb.display, { 'fr-FR': 'terminé' });
      const exact = (await get(tenant, { statementId: old }, { 'accept-language': 'fr' })).json();
      assert.deepEqual(exact.object.definition.name, { 'en-US': 'Old name' });
      assert.deepEqual(exact.verb.display, { 'en-US': 'completed', 'fr-FR': 'terminé' });
    });
  });

  describe('tenancy and authentication', () => {
    it('never shows a statement of tenant A to tenant B, and lets both use the same id', async () => {
      const a = await ctx.given.tenant();
      const b = await ctx.given.tenant();
      const id = randomUUID();
      await store(a, statement({ id }));
      assert.equal((await get(b, { statementId: id })).statusCode, 404);
      assert.deepEqual((await get(b, {})).json().statements, []);
      assert.equal((await put(b, id, statement())).statusCode, 204);
      assert.notDeepEqual((await get(a, { statementId: id })).json().actor, (await get(b, { statementId: id })).json().actor);
    });

    it("refuses tenant B's key used against tenant A with 401", async () => {
      const a = await ctx.given.tenant();
      const b = await ctx.given.tenant();
      const [id] = await store(a, statement());
      const res = await ctx.app.inject({
        method: 'GET',
        url: `/xapi/statements?statementId=${id}`,
        headers: { ...b.xapi, 'x-svc-tenant': a.name },
      });
      assert.equal(res.statusCode, 401);
    });

    it('answers 401 without credentials, on reads and writes', async () => {
      const tenant = await ctx.given.tenant();
      const headers = { 'x-experience-api-version': '2.0.0', 'x-svc-tenant': tenant.name };
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/xapi/statements', headers })).statusCode, 401);
      const write = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers, payload: statement() });
      assert.equal(write.statusCode, 401);
      assert.ok(write.headers['x-experience-api-consistent-through']);
    });

    it('answers 400 without X-Experience-API-Version', async () => {
      const tenant = await ctx.given.tenant();
      const res = await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: tenant.headers, payload: statement() });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'xapi.version_missing');
    });
  });
});
