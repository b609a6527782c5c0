import assert from 'node:assert/strict';
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { parseMultipart } from '@remix-run/multipart-parser/node';
import fc from 'fast-check';
import { CompactSign } from 'jose';
import { multipartStatementBody } from './xapi.fuzz-routes.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Json = Record<string, unknown>;

const SIGNATURE = 'http://adlnet.gov/expapi/attachments/signature';
const BOUNDARY = 'lb-test-boundary-31415';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** A valid statement by a fresh learner, with overrides. */
function statement(overrides: Json = {}): Json {
  const n = randomUUID().slice(0, 8);
  return {
    actor: { objectType: 'Agent', mbox: `mailto:learner-${n}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { objectType: 'Activity', id: `http://example.com/activities/${n}` },
    ...overrides,
  };
}

/** The attachment metadata of `data`, with overrides. */
function attachment(data: Buffer, overrides: Json = {}): Json {
  return {
    usageType: 'http://example.com/attachment-usage/test',
    display: { 'en-US': 'A test attachment' },
    contentType: 'application/octet-stream',
    length: data.length,
    sha2: sha256(data),
    ...overrides,
  };
}

interface Part {
  data: Buffer;
  headers?: Record<string, string | undefined>;
}

/** A multipart/mixed statement request: the JSON part, then one part per attachment. */
function multipart(statements: unknown, parts: Part[], options: { firstType?: string; preamble?: string } = {}): Buffer {
  const chunks: Buffer[] = [
    Buffer.from(
      `${options.preamble ?? ''}--${BOUNDARY}\r\nContent-Type: ${options.firstType ?? 'application/json'}\r\n\r\n${JSON.stringify(statements)}`,
    ),
  ];
  for (const part of parts) {
    const headers: Record<string, string | undefined> = {
      'Content-Type': 'application/octet-stream',
      'Content-Transfer-Encoding': 'binary',
      'X-Experience-API-Hash': sha256(part.data),
      ...part.headers,
    };
    const lines = Object.entries(headers).flatMap(([name, value]) => (value === undefined ? [] : [`${name}: ${value}`]));
    chunks.push(Buffer.from(`\r\n--${BOUNDARY}\r\n${lines.join('\r\n')}\r\n\r\n`), part.data);
  }
  chunks.push(Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** Signs `payload` (a statement) as a compact JWS. */
async function sign(payload: unknown, key: KeyObject, alg = 'RS256', header: Json = {}): Promise<Buffer> {
  const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader({ ...header, alg }).sign(key);
  return Buffer.from(jws);
}

/** `sent` with a signature attachment holding `jws`, and the part to send with it. */
function signed(sent: Json, jws: Buffer, overrides: Json = {}): { statement: Json; part: Part } {
  return {
    statement: { ...sent, attachments: [attachment(jws, { usageType: SIGNATURE, display: { 'en-US': 'Signature' }, ...overrides })] },
    part: { data: jws },
  };
}

interface Answer {
  json: unknown;
  parts: Array<{ headers: Record<string, string | undefined>; data: Buffer }>;
}

/** Parses a multipart/mixed answer back into its JSON part and its attachment parts. */
function parseAnswer(contentType: string, body: Buffer): Answer {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)?.[2];
  assert.ok(boundary, `no boundary in ${contentType}`);
  const [first, ...rest] = [...parseMultipart(body, { boundary, maxFileSize: 1 << 26, maxTotalSize: 1 << 26 })];
  assert.equal(first.headers['content-type'], 'application/json');
  return { json: JSON.parse(first.text), parts: rest.map((part) => ({ headers: { ...part.headers }, data: Buffer.from(part.bytes) })) };
}

const answerOf = (res: { statusCode: number; headers: Record<string, unknown>; rawPayload: Buffer; body: string }) => {
  assert.equal(res.statusCode, 200, res.body);
  return parseAnswer(String(res.headers['content-type']), res.rawPayload);
};

function requests(ctx: TestContext) {
  const write = (method: 'POST' | 'PUT', tenant: GivenTenant, body: Buffer, query = '', headers: Json = {}) =>
    ctx.app.inject({
      method,
      url: `/xapi/statements${query}`,
      headers: { ...tenant.xapi, 'content-type': `multipart/mixed; boundary=${BOUNDARY}`, ...headers } as never,
      payload: body,
    });
  return {
    post: (tenant: GivenTenant, body: Buffer, headers: Json = {}) => write('POST', tenant, body, '', headers),
    put: (tenant: GivenTenant, id: string, body: Buffer) => write('PUT', tenant, body, `?statementId=${id}`),
    get: (tenant: GivenTenant, query: Record<string, string>, method: 'GET' | 'HEAD' = 'GET') =>
      ctx.app.inject({ method, url: `/xapi/statements?${new URLSearchParams(query)}`, headers: tenant.xapi }),
    storedHashes: async (tenant: GivenTenant) =>
      (await ctx.db.query<{ sha2: string }>('SELECT sha2 FROM xapi_attachments WHERE tenant_id = $1 ORDER BY sha2', [tenant.id])).rows.map(
        (row) => row.sha2,
      ),
    statementCount: async (tenant: GivenTenant) =>
      Number((await ctx.db.query<{ n: string }>('SELECT count(*) AS n FROM xapi_statements WHERE tenant_id = $1', [tenant.id])).rows[0].n),
  };
}

describeEachBackend('statement attachments (multipart/mixed)', (ctx) => {
  const { post, put, get, storedHashes, statementCount } = requests(ctx);

  describe('POST and PUT /xapi/statements with attachment parts', () => {
    it('stores a statement with its attachment and answers it with attachments=true', async () => {
      const tenant = await ctx.given.tenant();
      const data = Buffer.concat([Buffer.from('here is a simple attachment '), randomBytes(64), Buffer.from([0, 0xff, 0x0d, 0x0a])]);
      const sent = statement({ attachments: [attachment(data, { contentType: 'image/png' })] });
      const res = await post(tenant, multipart(sent, [{ data, headers: { 'Content-Type': 'image/png' } }]));
      assert.equal(res.statusCode, 200, res.body);
      const [id] = res.json();
      assert.deepEqual(await storedHashes(tenant), [sha256(data)]);

      const got = await get(tenant, { statementId: id, attachments: 'true' });
      assert.equal(got.statusCode, 200, got.body);
      const answer = answerOf(got);
      assert.equal((answer.json as Json).id, id);
      assert.equal(answer.parts.length, 1);
      assert.deepEqual(answer.parts[0].data, data);
      assert.equal(answer.parts[0].headers['x-experience-api-hash'], sha256(data));
      assert.equal(answer.parts[0].headers['content-transfer-encoding'], 'binary');
      assert.equal(answer.parts[0].headers['content-type'], 'image/png');

      const plain = await get(tenant, { statementId: id });
      assert.match(String(plain.headers['content-type']), /^application\/json/);
    });

    it('stores a batch whose statements share an attachment, and answers each attachment once in a page', async () => {
      const tenant = await ctx.given.tenant();
      const [a, b, shared] = ['first', 'second', 'shared'].map((text) => Buffer.from(`${text} ${randomUUID()}`));
      const batch = [
        statement({ attachments: [attachment(a), attachment(shared)] }),
        statement({ attachments: [attachment(shared, { contentType: 'text/plain' }), attachment(b)] }),
      ];
      const res = await post(tenant, multipart(batch, [{ data: a }, { data: shared }, { data: b }]));
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().length, 2);
      assert.deepEqual(await storedHashes(tenant), [a, b, shared].map((item) => sha256(item)).sort());

      const page = await get(tenant, { attachments: 'true' });
      assert.equal(page.statusCode, 200);
      const answer = parseAnswer(String(page.headers['content-type']), page.rawPayload);
      assert.equal((answer.json as { statements: Json[] }).statements.length, 2);
      assert.deepEqual(
        answer.parts.map((part) => part.headers['x-experience-api-hash']).sort(),
        [a, b, shared].map((item) => sha256(item)).sort(),
      );
      for (const part of answer.parts) assert.equal(sha256(part.data), part.headers['x-experience-api-hash']);
    });

    it('stores the same data once per tenant, however often it is sent', async () => {
      const tenant = await ctx.given.tenant();
      const data = Buffer.from(`certificate ${randomUUID()}`);
      for (let round = 0; round < 2; round += 1) {
        const res = await post(tenant, multipart(statement({ attachments: [attachment(data)] }), [{ data }]));
        assert.equal(res.statusCode, 200, res.body);
      }
      assert.deepEqual(await storedHashes(tenant), [sha256(data)]);
      assert.equal(await statementCount(tenant), 2);
    });

    it('stores a PUT statement with its attachment', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      const data = Buffer.from('put attachment');
      const res = await put(tenant, id, multipart(statement({ id, attachments: [attachment(data)] }), [{ data }]));
      assert.equal(res.statusCode, 204, res.body);
      const answer = answerOf(await get(tenant, { statementId: id, attachments: 'true' }));
      assert.deepEqual(
        answer.parts.map((part) => part.data.toString()),
        ['put attachment'],
      );
    });

    it('accepts a fileUrl attachment with or without its data, and multipart/mixed without attachments', async () => {
      const tenant = await ctx.given.tenant();
      const data = Buffer.from(`elsewhere ${randomUUID()}`);
      const withUrl = attachment(data, { fileUrl: 'http://over.there.com/file.txt' });
      assert.equal((await post(tenant, multipart(statement({ attachments: [withUrl] }), []))).statusCode, 200);
      assert.deepEqual(await storedHashes(tenant), []);
      const json = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: tenant.xapi,
        payload: statement({ attachments: [withUrl] }),
      });
      assert.equal(json.statusCode, 200, json.body);
      const both = await post(tenant, multipart(statement({ attachments: [withUrl] }), [{ data }]));
      assert.equal(both.statusCode, 200, both.body);
      assert.deepEqual(await storedHashes(tenant), [sha256(data)]);
      assert.equal((await post(tenant, multipart(statement(), []))).statusCode, 200);
    });

    it('accepts a preamble before the first boundary and header names without a space', async () => {
      const tenant = await ctx.given.tenant();
      const data = Buffer.from('no spaces');
      const body = Buffer.from(
        `\r\n--${BOUNDARY}\r\nContent-Type:application/json\r\n\r\n${JSON.stringify(statement({ attachments: [attachment(data)] }))}` +
          `\r\n--${BOUNDARY}\r\nContent-Type:text/plain\r\nContent-Transfer-Encoding:binary\r\nX-Experience-API-Hash:${sha256(data)}\r\n\r\nno spaces\r\n--${BOUNDARY}--`,
      );
      const res = await post(tenant, body);
      assert.equal(res.statusCode, 200, res.body);
    });

    it('answers HEAD with attachments=true with the multipart headers and no body', async () => {
      const tenant = await ctx.given.tenant();
      const data = Buffer.from('head');
      const [id] = (await post(tenant, multipart(statement({ attachments: [attachment(data)] }), [{ data }]))).json();
      const head = await get(tenant, { statementId: id, attachments: 'true' }, 'HEAD');
      assert.equal(head.statusCode, 200);
      assert.match(String(head.headers['content-type']), /^multipart\/mixed; boundary=/);
      assert.ok(head.headers['x-experience-api-consistent-through']);
      assert.equal(head.rawPayload.length, 0);
    });
  });

  describe('refusals (nothing stored)', () => {
    const refused: Array<[string, () => { body: Buffer; type?: string }, number, string]> = [
      [
        'an attachment without fileUrl whose part is missing',
        () => {
          const [a, b] = [Buffer.from('a'), Buffer.from('b')];
          return { body: multipart(statement({ attachments: [attachment(a), attachment(b)] }), [{ data: a }]) };
        },
        400,
        'statements.attachment_missing',
      ],
      [
        'a part no attachment uses',
        () => {
          const a = Buffer.from('a');
          return { body: multipart(statement({ attachments: [attachment(a)] }), [{ data: a }, { data: Buffer.from('extra') }]) };
        },
        400,
        'statements.attachment_unused',
      ],
      [
        'a part whose data does not match its hash',
        () => {
          const a = Buffer.from('a');
          return {
            body: multipart(statement({ attachments: [attachment(a)] }), [
              { data: Buffer.from('not a'), headers: { 'X-Experience-API-Hash': sha256(a) } },
            ]),
          };
        },
        400,
        'statements.attachment_hash_mismatch',
      ],
      [
        'a part without X-Experience-API-Hash',
        () => {
          const a = Buffer.from('a');
          return {
            body: multipart(statement({ attachments: [attachment(a)] }), [{ data: a, headers: { 'X-Experience-API-Hash': undefined } }]),
          };
        },
        400,
        'statements.invalid_attachment_part',
      ],
      [
        'a part in base64',
        () => {
          const a = Buffer.from('a');
          return {
            body: multipart(statement({ attachments: [attachment(a)] }), [{ data: a, headers: { 'Content-Transfer-Encoding': 'base64' } }]),
          };
        },
        400,
        'statements.invalid_attachment_part',
      ],
      [
        'a first part that is not JSON',
        () => ({ body: multipart(statement(), [], { firstType: 'text/plain' }) }),
        400,
        'statements.invalid_multipart',
      ],
      [
        'statements in two parts',
        () => {
          const json = JSON.stringify(statement());
          const part = `--${BOUNDARY}\r\nContent-Type: application/json\r\n\r\n${json}\r\n`;
          return { body: Buffer.from(`${part}${part}--${BOUNDARY}--\r\n`) };
        },
        400,
        'statements.invalid_attachment_part',
      ],
      [
        'a Content-Type without boundary',
        () => ({ body: multipart(statement(), []), type: 'multipart/mixed' }),
        400,
        'statements.invalid_multipart',
      ],
      [
        'a body without the closing boundary',
        () => ({ body: multipart(statement(), []).subarray(0, -`--${BOUNDARY}--\r\n`.length) }),
        400,
        'statements.invalid_multipart',
      ],
      ['an empty body', () => ({ body: Buffer.alloc(0) }), 400, 'statements.invalid_multipart'],
      [
        // Data, as in an application/json body: here a property no statement has.
        'a "__proto__" key where a statement has no such property',
        () => ({
          body: Buffer.from(`--${BOUNDARY}\r\nContent-Type: application/json\r\n\r\n[{"__proto__":{"polluted":1}}]\r\n--${BOUNDARY}--`),
        }),
        400,
        'statement.invalid',
      ],
      [
        'statements that are not UTF-8',
        () => ({
          body: Buffer.concat([
            Buffer.from(`--${BOUNDARY}\r\nContent-Type: application/json\r\n\r\n"`),
            Buffer.from([0xff, 0xfe]),
            Buffer.from(`"\r\n--${BOUNDARY}--`),
          ]),
        }),
        400,
        'statements.invalid_multipart',
      ],
      [
        'invalid JSON in the first part',
        () => ({ body: Buffer.from(`--${BOUNDARY}\r\nContent-Type: application/json\r\n\r\n{"actor":\r\n--${BOUNDARY}--`) }),
        400,
        'statements.invalid_multipart',
      ],
    ];
    for (const [what, build, status, code] of refused) {
      it(`answers ${status} ${code} to ${what}`, async () => {
        const tenant = await ctx.given.tenant();
        const { body, type } = build();
        const res = await post(tenant, body, type ? { 'content-type': type } : {});
        assert.equal(res.statusCode, status, res.body);
        assert.equal(res.json().code, code);
        assert.equal(await statementCount(tenant), 0);
        assert.deepEqual(await storedHashes(tenant), []);
      });
    }

    it('answers 400 naming fileUrl to a JSON request with an attachment that has neither fileUrl nor data', async () => {
      const tenant = await ctx.given.tenant();
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: tenant.xapi,
        payload: [statement(), statement({ attachments: [attachment(Buffer.from('x'))] })],
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, 'statements.attachment_missing');
      assert.match(res.json().message, /statements\[1\]\.attachments\[0\]\.fileUrl is required/);
      assert.equal(await statementCount(tenant), 0);
    });

    it('stores no data when a statement of the batch conflicts', async () => {
      const tenant = await ctx.given.tenant();
      const id = randomUUID();
      assert.equal((await post(tenant, multipart(statement({ id }), []))).statusCode, 200);
      const data = Buffer.from('never stored');
      const res = await post(tenant, multipart([statement({ attachments: [attachment(data)] }), statement({ id })], [{ data }]));
      assert.equal(res.statusCode, 409, res.body);
      assert.deepEqual(await storedHashes(tenant), []);
      assert.equal(await statementCount(tenant), 1);
    });
  });

  describe('tenancy', () => {
    it("never answers another tenant's attachment data, even for the same hash", async () => {
      const [owner, other] = [await ctx.given.tenant(), await ctx.given.tenant()];
      const data = Buffer.from(`private ${randomUUID()}`);
      const [id] = (await post(owner, multipart(statement({ attachments: [attachment(data)] }), [{ data }]))).json();
      assert.equal((await get(other, { statementId: id, attachments: 'true' })).statusCode, 404);
      // The other tenant names the same hash with a fileUrl and sends no data: it gets none.
      const [mine] = (
        await post(other, multipart(statement({ attachments: [attachment(data, { fileUrl: 'http://example.com/f' })] }), []))
      ).json();
      const got = await get(other, { statementId: mine, attachments: 'true' });
      assert.equal(got.statusCode, 200);
      assert.deepEqual(parseAnswer(String(got.headers['content-type']), got.rawPayload).parts, []);
      assert.deepEqual(await storedHashes(other), []);
    });
  });

  describe('signed statements', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

    for (const alg of ['RS256', 'RS384', 'RS512']) {
      it(`stores a statement signed with ${alg}`, async () => {
        const tenant = await ctx.given.tenant();
        const sent = statement({ id: randomUUID(), result: { duration: 'PT1.234S' } });
        const { statement: withSignature, part } = signed(sent, await sign(sent, privateKey, alg));
        const res = await post(tenant, multipart(withSignature, [part]));
        assert.equal(res.statusCode, 200, res.body);
        const answer = answerOf(await get(tenant, { statementId: sent.id as string, attachments: 'true' }));
        assert.deepEqual(answer.parts[0].data, part.data);
      });
    }

    it('compares the payload as statements are compared: key order, durations to 0.01 s, and what the LRS assigns', async () => {
      const tenant = await ctx.given.tenant();
      const sent = statement({ result: { duration: 'PT1.234S' } });
      const payload = {
        result: { duration: 'PT1.23S' },
        object: sent.object,
        verb: { ...(sent.verb as Json), display: { fr: 'fini' } },
        actor: sent.actor,
      };
      const { statement: withSignature, part } = signed(sent, await sign(payload, privateKey));
      const res = await post(tenant, multipart(withSignature, [part]));
      assert.equal(res.statusCode, 200, res.body);
    });

    it('verifies a signature with its x5c chain', async () => {
      const tenant = await ctx.given.tenant();
      const sent = statement();
      const x5c = [LEAF_CERT, CA_CERT].map(der);
      const { statement: withSignature, part } = signed(sent, await sign(sent, leafKey(), 'RS256', { x5c }));
      const res = await post(tenant, multipart(withSignature, [part]));
      assert.equal(res.statusCode, 200, res.body);
    });

    const refusedSignatures: Array<[string, (sent: Json) => Promise<{ statement: Json; part: Part }>]> = [
      ['a payload that is another statement', async (sent) => signed(sent, await sign(statement(), privateKey))],
      ['a payload with another result', async (sent) => signed(sent, await sign({ ...sent, result: { success: true } }, privateKey))],
      [
        'the HS256 algorithm',
        async (sent) => {
          const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(sent)))
            .setProtectedHeader({ alg: 'HS256' })
            .sign(randomBytes(32));
          return signed(sent, Buffer.from(jws));
        },
      ],
      ['a JWS that is not one', async (sent) => signed(sent, Buffer.from('this is not a JWS'))],
      [
        'a payload that is not JSON',
        async (sent) => {
          const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(sent).replace('"', "'")))
            .setProtectedHeader({ alg: 'RS256' })
            .sign(privateKey);
          return signed(sent, Buffer.from(jws));
        },
      ],
      [
        'a signature whose contentType is not application/octet-stream',
        async (sent) => signed(sent, await sign(sent, privateKey), { contentType: 'text/plain; charset=ascii' }),
      ],
      [
        'an x5c certificate whose key did not sign',
        async (sent) => signed(sent, await sign(sent, privateKey, 'RS256', { x5c: [der(LEAF_CERT)] })),
      ],
      [
        'an x5c chain whose certificates are unrelated',
        async (sent) => signed(sent, await sign(sent, leafKey(), 'RS256', { x5c: [der(LEAF_CERT), der(OTHER_CERT)] })),
      ],
      [
        'an x5c that is not a certificate',
        async (sent) => signed(sent, await sign(sent, privateKey, 'RS256', { x5c: ['bm90IGEgY2VydA=='] })),
      ],
    ];
    for (const [what, build] of refusedSignatures) {
      it(`answers 400 statements.invalid_signature to ${what}, storing nothing`, async () => {
        const tenant = await ctx.given.tenant();
        const { statement: withSignature, part } = await build(statement());
        const res = await post(tenant, multipart(withSignature, [part]));
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().code, 'statements.invalid_signature');
        assert.equal(await statementCount(tenant), 0);
        assert.deepEqual(await storedHashes(tenant), []);
      });
    }

    it('answers 400 to a signature attachment sent without its JWS', async () => {
      const tenant = await ctx.given.tenant();
      const sent = statement();
      const { statement: withSignature } = signed(sent, await sign(sent, privateKey), { fileUrl: 'http://example.com/signature' });
      const res = await post(tenant, multipart(withSignature, []));
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'statements.invalid_signature');
    });
  });
});

describeEachBackend('statement attachments: generated multipart/mixed bodies', (ctx) => {
  it('never answers 5xx, and refuses with the error shape', async () => {
    const tenant = await ctx.given.tenant();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(multipartStatementBody, fc.boolean(), async ({ contentType, payload }, asPut) => {
        const res = await ctx.app.inject({
          method: asPut ? 'PUT' : 'POST',
          url: asPut ? `/xapi/statements?statementId=${randomUUID()}` : '/xapi/statements',
          headers: { ...tenant.xapi, 'content-type': contentType },
          payload,
        });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body}`);
        if (res.statusCode >= 400) assert.equal(typeof res.json().code, 'string', res.body);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150), seed: 20_261_123 },
    );
    // Both outcomes must be reached, or the generator tests nothing.
    assert.ok(
      [...statuses.keys()].some((status) => status < 300),
      JSON.stringify([...statuses]),
    );
    assert.ok(
      [...statuses.keys()].some((status) => status === 400),
      JSON.stringify([...statuses]),
    );
  });
});

describeEachBackend(
  'statement attachments over the size limit',
  (ctx) => {
    const { post, storedHashes, statementCount } = requests(ctx);

    it('answers 413 to a request larger than LEARNBASE_XAPI_ATTACHMENT_LIMIT_BYTES, storing nothing', async () => {
      const tenant = await ctx.given.tenant();
      const data = randomBytes(5000);
      const res = await post(tenant, multipart(statement({ attachments: [attachment(data)] }), [{ data }]));
      assert.equal(res.statusCode, 413, res.body);
      assert.equal(res.json().code, 'statements.attachments_too_large');
      assert.equal(await statementCount(tenant), 0);
      assert.deepEqual(await storedHashes(tenant), []);
    });

    it('answers 413 to a streamed body without Content-Length, too', async () => {
      const tenant = await ctx.given.tenant();
      const data = randomBytes(5000);
      const body = multipart(statement({ attachments: [attachment(data)] }), [{ data }]);
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: { ...tenant.xapi, 'content-type': `multipart/mixed; boundary=${BOUNDARY}` },
        payload: Readable.from([body.subarray(0, 3000), body.subarray(3000)]),
      });
      assert.equal(res.statusCode, 413, res.body);
      assert.deepEqual(await storedHashes(tenant), []);
    });

    it('accepts a request within the limit', async () => {
      const tenant = await ctx.given.tenant();
      const data = randomBytes(1000);
      const res = await post(tenant, multipart(statement({ attachments: [attachment(data)] }), [{ data }]));
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(await storedHashes(tenant), [sha256(data)]);
    });
  },
  { xapiAttachmentLimitBytes: 4096 },
);

/** The base64 DER of a PEM certificate, as x5c holds it. */
const der = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
const leafKey = () => createPrivateKey(LEAF_KEY);

// A test CA, a signer certificate it issued (with its key) and an unrelated self-signed CA,
// made once with openssl (valid until 2126); test data only.
const LEAF_KEY = `-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCvgYZoHImbzLTB
kEvBbGOm0TodOuqOUAwym+LYF8K5xF1f62Dzqs6mr6WKcBya8zVFcrJUcoHlglRP
a1zvs7m+TpHAG7IEmjQgi3fhdZR1AUUo0N6VEIN/vxc16jg8rXDG43pmTMNm/ruv
KBidiEucAYGG4bEV94zefvQuZHv/OeuIez1ka79dZAqEji8p4IE53j31oG4adv5D
xhjSqv7xhfDv5evhFNr6VNA+ZG9KuTaNxaHxa6vZpJEITfzN9i+3gfHbv8HDWUNJ
TzGnh26vfG+3QVNU+KO+OczJLfyB4PJz25Titd1Px4mgXBLg1W92czC4gnNDP6sF
nuE2NpGPAgMBAAECggEAE+vg5MpweEXZMqt9Xdw+x32yWgUJANRnPgthyWORD+MR
MkUWgTIfON5xLPCi3pfCsTpesaU5x2JuzYEDUJYW/FoQwzyhjVIvno4WMnpVOp7F
SefDjCoOsx5utQj8Dy8kwP6rMxd9iqBZj30+pgsFghTNrhDKOBMcY1kHwIhZZtPs
3oqeD7B1lyBQi4km+tPbZ+1eecqEAhXRj9iV7bR+aS8C8jlxRmL0cypVOZLbLues
TOLWcXY0aGHeQ7oiOo92Q1Jr2cGH4JLSat7aPiapkXu6HIqlhlbV4wCRjK4RMzPf
Jr7cC1bPUUB5w8NpvjEZpabIvraUqaIadEMoSWtb+QKBgQDrD33VvIiuR3WngsFT
6t6kbazwhYbw1oS2dHF5ch10mejQoCmsrOhg3YQBnGAsefjYoll97bqi2/tAVqmo
tp9PrjX7iJTjA9/KtkJde3gZLp1KkX5DdRTpNlMh32yqK9PBph+/ePiEs0eiqLHD
veydBouT1/fVWH0jSd9RkDGVQwKBgQC/I+dTRcqW3TiyOz8OYob/zaVLrWPLXN4X
kvb1H/qpJzbYe6IcLVFOBmuMzbf5qT//m66mbiTOQv6adJRCT1/ukO4chHfvFzRE
LHR6QA6nx8mDXJcu0AM+TgCYoZHEROB5xdpL7OS6CHYGabRf8ZD4eOf6Srq/fzoC
iqdrJpCnxQKBgQCR/g0psu8xTzDD2XI5rKabeYLv3/7vlkzXBXt08mtZAD6ZVOCN
Xtb1Up+qYHVbKmZkJnFuxTgl7nseerTlFIfd9VWR5EKUvNNCE/EkHot5GHqY1cSW
ISHbtuHrJ9lV1+KtY4BUa83unWrgm+XMrSlIXchTCs/ishMG19rbzbL+AQKBgEIw
BpyZYEvZkxZ02aL7j0/pQEHyasozAF0dcRL03fHROHbCaSJktvDT3E5Htltntlem
61WKcohSPqPxlp1XqxqLaUjKvlU2rcylsDfdErYawrcQSvHU6iqbDC3OVRGn4CuK
zcrY32NkJqqV0/YdSlwgUgQj+ILzZX0X0l2SXykZAoGATpQH1qmWoBl6BasczIMn
3XXNeq+SRAaly0h3mRPLNP75f0EBiolIRbQ4Bq4A5/+4tk2vurxoo6M5D0NYbu1u
n2WLELqCafWxfPGV0lnLBs1sltME5SDGJndbdDk0ZaXrd4mutmK89pCCw+nK0brz
VW+ZKMUtWYdKw+G/Wow/zkQ=
-----END PRIVATE KEY-----
`;
const LEAF_CERT = `-----BEGIN CERTIFICATE-----
MIICxTCCAa0CFD3tmLhczloB6FABeN/gL8F8tTcHMA0GCSqGSIb3DQEBCwUAMBwx
GjAYBgNVBAMMEWxlYXJuYmFzZSB0ZXN0IENBMCAXDTI2MTEyMzE5MzM0M1oYDzIx
MjYxMDMwMTkzMzQzWjAgMR4wHAYDVQQDDBVsZWFybmJhc2UgdGVzdCBzaWduZXIw
ggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCvgYZoHImbzLTBkEvBbGOm
0TodOuqOUAwym+LYF8K5xF1f62Dzqs6mr6WKcBya8zVFcrJUcoHlglRPa1zvs7m+
TpHAG7IEmjQgi3fhdZR1AUUo0N6VEIN/vxc16jg8rXDG43pmTMNm/ruvKBidiEuc
AYGG4bEV94zefvQuZHv/OeuIez1ka79dZAqEji8p4IE53j31oG4adv5DxhjSqv7x
hfDv5evhFNr6VNA+ZG9KuTaNxaHxa6vZpJEITfzN9i+3gfHbv8HDWUNJTzGnh26v
fG+3QVNU+KO+OczJLfyB4PJz25Titd1Px4mgXBLg1W92czC4gnNDP6sFnuE2NpGP
AgMBAAEwDQYJKoZIhvcNAQELBQADggEBAIfngJHccOd9eg7QzOu8GtKlXA3vaq/I
y0vJT80QrrzIZ47nhS02x8IrKiBTqyfpLTGaJvdW7IncsSEHFdA3JPB+acEY0V3R
3L/s3ux0AebSxLh2fqcrn0k08XuwrbX5Swq1f8WXsQRgSyNZzGOPnqG/QPqUrcjG
4PkgsQgxVzkFxpJj6l41r+vdAX/PxwF23HN4SYVdQopL3YOXKZ1mdoUdZTQNPeFJ
BeAFxljeSKYOHQcOf1bTYrVm4zm2OlgpMSHlEmonAnN4LhrcBoL+uYnF7gSwz35s
SaBYKQY69NtW7HGm6PQRvgZp7IKdhBdimF7rA+qqIRp2cGX513VQ3hY=
-----END CERTIFICATE-----
`;
const CA_CERT = `-----BEGIN CERTIFICATE-----
MIIDKzCCAhOgAwIBAgIUU2M4hS/BN/kptWE7qTcYzL/++SYwDQYJKoZIhvcNAQEL
BQAwHDEaMBgGA1UEAwwRbGVhcm5iYXNlIHRlc3QgQ0EwIBcNMjYxMTIzMTkzMzQz
WhgPMjEyNjEwMzAxOTMzNDNaMBwxGjAYBgNVBAMMEWxlYXJuYmFzZSB0ZXN0IENB
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtkzuZjevQZd07o9MyMVw
7YzmtlqUIiwI0ppCCLdeLCGHBZkKsF9/7yHx2ZBFisnN+3MPMx01sEeNvIIXG266
imYeYZqnQwOKu5CPwbiolsIiHdulgnTzqG8SONh3G/JSiWgUwJMmLZOoXkri3XR6
EoKx6vpED/hUoCoZJk8bQuGPdM4b4XEemR8h/hAGQBlTUomUTb4TY3PJQOy/GS1T
IhpbbSGezFDwzD9dR70HTUnucYG5Hym7mUWm3nunpJeHTFWQ3v1XiyuJQt6DbJw9
yvmBLczAs+7jl37JrwsYIXBqYDoF69QiG47yPKp4Fj5TpjPuPoAPyWXClsVwvIpP
mQIDAQABo2MwYTAdBgNVHQ4EFgQUBLkndjXVwsuO6/mcYR3KT4pSUUEwHwYDVR0j
BBgwFoAUBLkndjXVwsuO6/mcYR3KT4pSUUEwDwYDVR0TAQH/BAUwAwEB/zAOBgNV
HQ8BAf8EBAMCAgQwDQYJKoZIhvcNAQELBQADggEBAEolrwNZn7nmhRPsPFKnEECi
QyrUfNlCAH0HkKvbXSDFsLdOrhrJGuoyLiih8OSbjRDeXaaVKBn6R0KI+p27vabP
NLIPe9oOuW9/7vlYokxIYsR8Q5qs039tZCRcha1rL0IMAJ17q2lUyMQOM+F3++UX
1oyV5oPBV4Ncc7CYjeIlPmMIHie68tf9fZQm5hSG/OHpAz9XADDppp/SHGA72RQA
YeKKkmgSqKYn63ArG6vIGhkkX2en10YxWqa+PQTN0DVvWiVN19epDVZ8EWOetm3g
Rm1F9hd2rxEoTthWAN1tYlL76Ws0hezGGHceR+Ih61/10A6LbFgIVU1gbz0zDxw=
-----END CERTIFICATE-----
`;
const OTHER_CERT = `-----BEGIN CERTIFICATE-----
MIIDETCCAfmgAwIBAgIUcNKP4leXAnayecD9C0pCSn7VrrgwDQYJKoZIhvcNAQEL
BQAwFzEVMBMGA1UEAwwMdW5yZWxhdGVkIENBMCAXDTI2MTEyMzE5MzM0NFoYDzIx
MjYxMDMwMTkzMzQ0WjAXMRUwEwYDVQQDDAx1bnJlbGF0ZWQgQ0EwggEiMA0GCSqG
SIb3DQEBAQUAA4IBDwAwggEKAoIBAQDPm21/rQGyTpsREGyNWSZzoyjPqQaek2vl
gpmuVor9SqahIHivn7hNzRRRSv84tyKVkSCoD0t6Eg2G1kehQkAVZ0ELAQ+ttLAB
CsrPENFsZw5daEjrf93RQat4ntGzerrnBhkrbj4cDIPfbBAMhLGIUkFqi4Z+3zh1
BCycbbN/gQBMo5GV5rVd1MPU6rgEH+exSU/OsNjAicayeXtC1IvNR7ljsXlhhWdk
fdamoMXl4ZEh3PMGsv810tsS4/P91uhZ2RimNNrAs5f7or3Qc7qC8B7Or0P5OU2m
msiMIu7GOhuCggS0xFHEJY2U87tdILBW1dWBM+VFm8m0/czsK2SxAgMBAAGjUzBR
MB0GA1UdDgQWBBRwNfNpvbNnLMa3vewsOe3C+mKkqDAfBgNVHSMEGDAWgBRwNfNp
vbNnLMa3vewsOe3C+mKkqDAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEBCwUA
A4IBAQDBnAHNLjacazHkjUZgaJmrrYsI+um3mZ854SusdvMvBRYMYhnjSo1nlkND
buyuzf5qioCaYjgsIC9Ugp+aeA9VYKPcNvoEAFAyz6ctVZX2WmrAS98iDDzfzmEg
tNVM+QrWnaFD4qE3YJFEnmVW6kwvmpWgkzypE1yoKDiAD/zoBWzisgH2Ou/q2j5M
O8S8lLYzeC08iC2N4rcmeZjmEvntjlvaxnZmmWCEvewHpygtZv6iXh2KD8iMmzr2
u1IERw7c7iYVaB7PA4D+U1e3z0Qd2l+tr/2ZTPNFnOWsVrL2lKRQQBdhrtyAhFhh
kI3sRlV5LGWC878J8ozLHM/QYRKw
-----END CERTIFICATE-----
`;
