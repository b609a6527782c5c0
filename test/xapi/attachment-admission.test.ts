import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { parseMultipart } from '@remix-run/multipart-parser/node';
import { buildApp } from '../../src/server/app.js';
import { ATTACHMENT_FILES_FOLDER, attachmentFileName } from '../../src/modules/xapi/statements/attachments/attachment.store.js';
import { backupDataFolder, restoreDataFolder } from '../../src/platform/database/pglite-dump.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-client.js';
import { basic, PASSWORD } from '../launch/launch-fixtures.js';
import { describeEachBackend, testConfig, type TestContext } from '../support/build-test-app.js';
import { Given, type GivenTenant } from '../support/given.js';
import { heldBody } from '../support/held-body.js';

const BOUNDARY = 'lb-admission-boundary';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

function statementWith(data: Buffer, actor: Record<string, unknown> = { mbox: `mailto:${randomUUID()}@example.com` }) {
  return {
    id: randomUUID(),
    actor,
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
    object: { id: 'http://example.com/activities/video' },
    attachments: [
      {
        usageType: 'http://example.com/usage/video',
        display: { 'en-US': 'video' },
        contentType: 'video/mp4',
        length: data.length,
        sha2: sha256(data),
      },
    ],
  };
}

function multipart(statement: unknown, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(statement)}\r\n`),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Type: video/mp4\r\nContent-Transfer-Encoding: binary\r\nX-Experience-API-Hash: ${sha256(data)}\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

function post(ctx: TestContext, headers: Record<string, string>, payload: Buffer | Readable) {
  return ctx.app.inject({
    method: 'POST',
    url: '/xapi/statements',
    headers: { ...headers, 'content-type': `multipart/mixed; boundary=${BOUNDARY}` },
    payload,
  });
}

/** A learner credential of `tenant` for a new imported person, and that person's agent. */
async function givenLearner(ctx: TestContext, tenant: GivenTenant) {
  const email = `${randomUUID()}@example.com`;
  const imported = await ctx.app.inject({
    method: 'POST',
    url: '/api/import/users',
    headers: tenant.headers,
    payload: { users: [{ name: 'Ada', attributes: { email } }] },
  });
  assert.equal(imported.statusCode, 200, imported.body);
  const agent = { account: { homePage: `http://${tenant.name}.localhost`, name: email } };
  const username = `u-${randomBytes(6).toString('hex')}`;
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/basic',
    headers: tenant.headers,
    payload: { username, password: PASSWORD, data: { actor: agent } },
  });
  assert.equal(created.statusCode, 201, created.body);
  return { agent, headers: { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name, 'x-experience-api-version': '2.0.0' } };
}

/** The attachment parts of a multipart/mixed answer, by hash. */
async function partsOf(body: Buffer, contentType: string): Promise<Map<string, Buffer>> {
  const parts = new Map<string, Buffer>();
  let first = true;
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1] ?? '';
  for await (const part of parseMultipart(body, { boundary, maxFileSize: 64 * 1024 * 1024 })) {
    if (!first) parts.set(part.headers['x-experience-api-hash'] ?? '', Buffer.from(part.bytes));
    first = false;
  }
  return parts;
}

const dataFolder = mkdtempSync(join(tmpdir(), 'learnbase-attachment-admission-'));
after(() => rmSync(dataFolder, { recursive: true, force: true }));

describeEachBackend(
  'Admission of statement requests with attachments',
  (ctx) => {
    it('answers 429 with Retry-After to a learner whose tenant has an upload in flight; the admitted one is stored', async () => {
      const tenant = await ctx.given.tenant();
      const learner = await givenLearner(ctx, tenant);
      const data = randomBytes(64 * 1024);
      const statement = statementWith(data, learner.agent);
      const held = heldBody(multipart(statement, data));
      const first = post(ctx, learner.headers, held.body);
      await held.reading;

      const other = randomBytes(2 * 1024 * 1024);
      const refused = await post(ctx, learner.headers, multipart(statementWith(other, learner.agent), other));
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['retry-after'], '5');
      assert.equal(refused.headers['x-experience-api-version'], '2.0.0');
      assert.equal(refused.json().code, 'request.tenant_busy');
      assert.equal(refused.json().details.limit, 'attachments');

      // A JSON statement write carries no data: never counted.
      const json = await ctx.app.inject({
        method: 'POST',
        url: '/xapi/statements',
        headers: tenant.xapi,
        payload: {
          actor: { mbox: 'mailto:json@example.com' },
          verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
          object: { id: 'http://example.com/a' },
        },
      });
      assert.equal(json.statusCode, 200, json.body);

      held.finish();
      const stored = await first;
      assert.equal(stored.statusCode, 200, stored.body);
      const read = await ctx.app.inject({
        method: 'GET',
        url: `/xapi/statements?statementId=${statement.id}&attachments=true`,
        headers: tenant.xapi,
      });
      assert.equal(read.statusCode, 200);
      assert.deepEqual((await partsOf(read.rawPayload, String(read.headers['content-type']))).get(sha256(data)), data);
    });

    it('answers 503 with Retry-After to another tenant while the process has its uploads in flight, and admits again afterwards', async () => {
      const busy = await ctx.given.tenant();
      const other = await ctx.given.tenant();
      const data = randomBytes(1024);
      const held = heldBody(multipart(statementWith(data), data));
      const first = post(ctx, busy.xapi, held.body);
      await held.reading;

      const large = randomBytes(1024 * 1024 + 1);
      const refused = await post(ctx, other.xapi, multipart(statementWith(large), large));
      assert.equal(refused.statusCode, 503);
      assert.equal(refused.headers['retry-after'], '5');
      assert.equal(refused.json().code, 'request.server_busy');

      held.finish();
      assert.equal((await first).statusCode, 200);
      const again = await post(ctx, other.xapi, multipart(statementWith(large), large));
      assert.equal(again.statusCode, 200, again.body);
    });
  },
  { attachmentUploadsInFlight: 1, attachmentUploadsInFlightPerTenant: 1 },
);

describeEachBackend(
  'Attachment data in files beside a PGlite folder',
  (ctx) => {
    it('keeps the data in a file named by tenant and hash, and answers it with attachments=true', async () => {
      const tenant = await ctx.given.tenant();
      const data = randomBytes(3 * 1024 * 1024);
      const statement = statementWith(data);
      const stored = await post(ctx, tenant.xapi, multipart(statement, data));
      assert.equal(stored.statusCode, 200, stored.body);
      const file = join(dataFolder, 'pgdata', ATTACHMENT_FILES_FOLDER, attachmentFileName(tenant.id, sha256(data)));
      assert.deepEqual(readFileSync(file), data);
      // The same data again (another statement) is kept once.
      assert.equal((await post(ctx, tenant.xapi, multipart(statementWith(data), data))).statusCode, 200);

      const read = await ctx.app.inject({
        method: 'GET',
        url: `/xapi/statements?statementId=${statement.id}&attachments=true`,
        headers: tenant.xapi,
      });
      assert.equal(read.statusCode, 200);
      assert.deepEqual((await partsOf(read.rawPayload, String(read.headers['content-type']))).get(sha256(data)), data);
      // Another tenant's statement naming the hash gets nothing of it.
      const other = await ctx.given.tenant();
      const elsewhere = statementWith(data);
      (elsewhere.attachments[0] as Record<string, unknown>).fileUrl = 'http://example.com/video.mp4';
      assert.equal(
        (await ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers: other.xapi, payload: elsewhere })).statusCode,
        200,
      );
      const foreign = await ctx.app.inject({
        method: 'GET',
        url: `/xapi/statements?statementId=${elsewhere.id}&attachments=true`,
        headers: other.xapi,
      });
      assert.equal((await partsOf(foreign.rawPayload, String(foreign.headers['content-type']))).size, 0);
    });
  },
  // The app keeps files in this folder; the database itself is the backend's (in-memory PGlite, or PostgreSQL).
  { database: { kind: 'pglite', dataDir: dataFolder } },
);

describe('A PGlite backup and restore', () => {
  it('carries the attachment files with the database', async () => {
    const source = mkdtempSync(join(tmpdir(), 'learnbase-attachment-backup-'));
    const target = `${source}-restored`;
    const file = `${source}.tar.gz`;
    try {
      const data = randomBytes(256 * 1024);
      const statement = statementWith(data);
      let tenantId: string;
      let headers: Record<string, string>;
      {
        const db = await PgliteDatabase.open(source);
        await migrate(db);
        const app = await buildApp(testConfig({ database: { kind: 'pglite', dataDir: source } }), db, { logger: false });
        const tenant = await new Given(app, db).tenant('backup-attachments');
        tenantId = tenant.id;
        headers = tenant.xapi;
        const stored = await app.inject({
          method: 'POST',
          url: '/xapi/statements',
          headers: { ...tenant.xapi, 'content-type': `multipart/mixed; boundary=${BOUNDARY}` },
          payload: multipart(statement, data),
        });
        assert.equal(stored.statusCode, 200, stored.body);
        await app.close();
        await db.close();
      }
      await backupDataFolder(source, file, { force: false });
      await restoreDataFolder(target, file, { force: false });
      assert.ok(existsSync(join(target, 'pgdata', ATTACHMENT_FILES_FOLDER, attachmentFileName(tenantId, sha256(data)))));

      const db = await PgliteDatabase.open(target);
      const app = await buildApp(testConfig({ database: { kind: 'pglite', dataDir: target } }), db, { logger: false });
      try {
        // The API key is in the restored database too.
        const read = await app.inject({ method: 'GET', url: `/xapi/statements?statementId=${statement.id}&attachments=true`, headers });
        assert.equal(read.statusCode, 200, read.body);
        assert.deepEqual((await partsOf(read.rawPayload, String(read.headers['content-type']))).get(sha256(data)), data);
      } finally {
        await app.close();
        await db.close();
      }
    } finally {
      for (const path of [source, target, file]) rmSync(path, { recursive: true, force: true });
    }
  });
});
