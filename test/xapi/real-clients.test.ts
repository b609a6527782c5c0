import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { it } from 'node:test';
import XAPIPackage from '@xapi/xapi';
import { describeEachBackend } from '../support/build-test-app.js';

type Json = Record<string, unknown>;

// A CommonJS package: its module.exports is the class, which also carries itself as `default`.
const XAPI = XAPIPackage.default;
// TinCanJS is a CommonJS bundle without types; its Node build talks HTTP itself.
const TinCan = createRequire(import.meta.url)('tincanjs');

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A statement by a fresh learner about a fresh activity, with one text attachment of `data`. */
function statementWith(data: Buffer): Json {
  const n = randomUUID().slice(0, 8);
  return {
    id: randomUUID(),
    actor: { objectType: 'Agent', mbox: `mailto:client-${n}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
    object: { objectType: 'Activity', id: `http://example.com/activities/${n}` },
    attachments: [
      {
        usageType: 'http://example.com/attachment-usage/certificate',
        display: { 'en-US': 'Certificate' },
        contentType: 'text/plain',
        length: data.length,
        sha2: sha256(data),
      },
    ],
  };
}

describeEachBackend('real xAPI clients from npm, unmodified, with attachments', (ctx) => {
  it('@xapi/xapi stores a statement with an attachment, then reads it back with attachments=true', async () => {
    const tenant = await ctx.given.tenant();
    // Its fetch adapter: with axios (the default) in Node, the library's multipart Blob goes out as
    // application/octet-stream, which an LRS must refuse; in a browser both adapters send it right.
    const xapi = new XAPI({ endpoint: `${await ctx.url()}/xapi/`, auth: tenant.authorization, version: '1.0.3', adapter: 'fetch' });
    const data = Buffer.from(`certificate ${randomUUID()}`);
    const statement = statementWith(data);
    const sent = await xapi.sendStatement({
      statement: statement as never,
      attachments: [data.buffer.slice(data.byteOffset, data.byteOffset + data.length) as ArrayBuffer],
    });
    assert.equal(sent.status, 200);
    assert.deepEqual(sent.data, [statement.id]);

    // Stored once, by hash, in the tenant.
    const { rows } = await ctx.db.query<{ data: unknown }>('SELECT data FROM xapi_attachments WHERE tenant_id = $1 AND sha2 = $2', [
      tenant.id,
      sha256(data),
    ]);
    assert.equal(rows.length, 1);

    const one = await xapi.getStatement({ statementId: statement.id as string, attachments: true });
    assert.equal(one.status, 200);
    const [json, ...parts] = one.data as unknown as [Json, ...unknown[]];
    assert.equal(json.id, statement.id);
    assert.equal(parts.length, 1);
    assert.equal(String(parts[0]), data.toString());

    const list = await xapi.getStatements({ agent: statement.actor as never, attachments: true });
    assert.equal(list.status, 200);
    const [result, ...listed] = list.data as unknown as [{ statements: Json[] }, ...unknown[]];
    assert.deepEqual(
      result.statements.map((found) => found.id),
      [statement.id],
    );
    assert.deepEqual(listed.map(String), [data.toString()]);
  });

  it('TinCanJS stores a statement with an attachment and queries it back', async () => {
    const tenant = await ctx.given.tenant();
    const lrs = new TinCan.LRS({
      endpoint: `${await ctx.url()}/xapi/`,
      username: tenant.key,
      password: tenant.secret,
      allowFail: false,
      version: '1.0.2',
    });
    const content = `transcript ${randomUUID()}`;
    const n = randomUUID().slice(0, 8);
    const statement = new TinCan.Statement({
      actor: { mbox: `mailto:tincan-${n}@example.com` },
      verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
      target: { id: `http://example.com/activities/${n}` },
      attachments: [
        {
          usageType: 'http://example.com/attachment-usage/transcript',
          display: { 'en-US': 'Transcript' },
          contentType: 'text/plain',
          content,
        },
      ],
    });

    const saved = await new Promise<{ error: unknown; xhr: { status: number; responseText: string } }>((resolve) =>
      lrs.saveStatement(statement, {
        callback: (error: unknown, xhr: { status: number; responseText: string }) => resolve({ error, xhr }),
      }),
    );
    assert.equal(saved.error, null, saved.xhr?.responseText);
    assert.equal(saved.xhr.status, 204);

    const queried = await new Promise<{
      error: unknown;
      result: { statements: Array<{ id: string; attachments: Array<{ sha2: string }> }> };
    }>((resolve) =>
      lrs.queryStatements({
        params: { agent: new TinCan.Agent({ mbox: `mailto:tincan-${n}@example.com` }) },
        callback: (error: unknown, result: { statements: Array<{ id: string; attachments: Array<{ sha2: string }> }> }) =>
          resolve({ error, result }),
      }),
    );
    assert.equal(queried.error, null);
    assert.deepEqual(
      queried.result.statements.map((found) => found.id),
      [statement.id],
    );
    assert.equal(queried.result.statements[0].attachments[0].sha2, sha256(Buffer.from(content)));

    const res = await ctx.app.inject({
      method: 'GET',
      url: `/xapi/statements?statementId=${statement.id}&attachments=true`,
      headers: tenant.xapi,
    });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^multipart\/mixed; boundary=/);
    assert.ok(res.rawPayload.includes(Buffer.from(content)), 'the attachment data is served back');
  });
});
