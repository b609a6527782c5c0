import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

type Message = { type: string; message: string; value: string; row: number };
type Summary = { rows: number; new: number; existing: number; skipped: number; errors: Message[]; warnings: Message[] };

const sendCsv = (ctx: TestContext, tenant: GivenTenant, body: Buffer | string, contentType = 'text/csv', query = '') =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/import/users${query}`,
    headers: { ...tenant.headers, 'content-type': contentType },
    payload: body,
  });

/** The tenant's imported users, `name → attributes`, and how many user imports it recorded. */
async function stored(ctx: TestContext, tenant: GivenTenant) {
  const actors = await ctx.db.query<{ name: string; attributes: Record<string, string> }>(
    `SELECT name, attributes FROM actors WHERE tenant_id = $1 AND attributes IS NOT NULL ORDER BY name`,
    [tenant.id],
  );
  const runs = await ctx.db.query(`SELECT 1 FROM import_runs WHERE tenant_id = $1 AND kind = 'users'`, [tenant.id]);
  return { users: Object.fromEntries(actors.rows.map((row) => [row.name, row.attributes])), runs: runs.rows.length };
}

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

describeEachBackend('POST /api/import/users as CSV: line ends and charsets', (ctx) => {
  it('reads records ending in CR alone, LF alone, CRLF, and all three in one file', async () => {
    for (const [ends, text] of [
      ['CR', 'name,email\rAda,ada@example.org\rBea,bea@example.org\r'],
      ['LF', 'name,email\nAda,ada@example.org\nBea,bea@example.org\n'],
      ['CRLF', 'name,email\r\nAda,ada@example.org\r\nBea,bea@example.org\r\n'],
      ['mixed, no end on the last', 'name,email,note\r\nAda,ada@example.org,"two\rlines"\r\rBea,bea@example.org,x\nCid,cid@example.org,y'],
    ]) {
      const tenant = await ctx.given.tenant();
      const res = await sendCsv(ctx, tenant, text);
      assert.equal(res.statusCode, 200, `${ends}: ${res.body}`);
      const summary = res.json() as Summary;
      const expected = ends.startsWith('mixed') ? 3 : 2;
      assert.deepEqual([summary.rows, summary.new, summary.errors], [expected, expected, []], ends);
      const { users } = await stored(ctx, tenant);
      assert.deepEqual(Object.keys(users), ['Ada', 'Bea', 'Cid'].slice(0, expected), ends);
      if (ends.startsWith('mixed')) assert.equal(users.Ada.note, 'two\rlines');
    }
  });

  it('makes a row with bytes that are not UTF-8 that row’s error, naming it, and imports the others', async () => {
    const tenant = await ctx.given.tenant();
    const body = bytes(
      'name,email,city\nAda,ada@example.org,Z',
      [0xc3, 0xbc],
      'rich\nBea,bea@example.org,Z',
      [0xfc],
      'rich\nCid,cid@example.org,',
      [0xe2, 0x82],
      '!\n',
    );
    const verified = await sendCsv(ctx, tenant, body, 'text/csv', '?verify=true');
    assert.equal(verified.statusCode, 200, verified.body);
    const res = await sendCsv(ctx, tenant, body);
    assert.equal(res.statusCode, 200, res.body);
    const summary = res.json() as Summary;
    assert.deepEqual(verified.json(), summary);
    assert.deepEqual([summary.rows, summary.new, summary.skipped], [3, 1, 2]);
    assert.deepEqual(
      summary.errors.map((error) => [error.row, error.type, error.value]),
      [
        [2, 'invalid_encoding', 'Z\\xFCrich'],
        [3, 'invalid_encoding', '\\xE2\\x82!'],
      ],
    );
    assert.match(summary.errors[0].message, /^Row 2 is not valid UTF-8: the bytes of its "city" cell/);
    assert.match(summary.errors[1].message, /^Row 3 is not valid UTF-8/);
    const { users } = await stored(ctx, tenant);
    assert.deepEqual(users, { Ada: { email: 'ada@example.org', city: 'Zürich' } });
    assert.ok(!JSON.stringify(users).includes('\uFFFD'));
  });

  it('keeps a valid U+FFFD and a U+FEFF inside a file that has a bad row elsewhere, as in a valid file', async () => {
    const tenant = await ctx.given.tenant();
    const body = bytes([0xef, 0xbb, 0xbf], 'name,email,mark\nAda,ada@example.org,\uFFFD\uFEFFx\nBea,bea@example.org,', [0xff], '\n');
    const res = await sendCsv(ctx, tenant, body);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(
      (res.json() as Summary).errors.map((error) => [error.row, error.type]),
      [[2, 'invalid_encoding']],
    );
    assert.deepEqual((await stored(ctx, tenant)).users, { Ada: { email: 'ada@example.org', mark: '\uFFFD\uFEFFx' } });
  });

  it('reads the charset the Content-Type names: iso-8859-1, latin1, windows-1252, utf-8, quoted or not', async () => {
    // 0xFC is ü in all three single-byte charsets; 0x80 is € in windows-1252, which WHATWG (and every browser) reads iso-8859-1 as.
    const latin = bytes('name,email,city\nJ', [0xfc], 'rgen,jurgen@example.org,Z', [0xfc], 'rich ', [0x80], '\n');
    for (const contentType of [
      'text/csv; charset=iso-8859-1',
      'text/csv;charset="latin1"',
      'text/csv; charset=Windows-1252',
      'text/csv; charset=cp1252',
    ]) {
      const tenant = await ctx.given.tenant();
      const res = await sendCsv(ctx, tenant, latin, contentType);
      assert.equal(res.statusCode, 200, `${contentType}: ${res.body}`);
      assert.deepEqual((res.json() as Summary).errors, [], contentType);
      assert.deepEqual((await stored(ctx, tenant)).users, { Jürgen: { email: 'jurgen@example.org', city: 'Zürich €' } }, contentType);
    }
    const tenant = await ctx.given.tenant();
    const utf8 = await sendCsv(ctx, tenant, 'name,email\nJürgen,jurgen@example.org\n', 'text/csv; charset=UTF-8');
    assert.equal(utf8.json().new, 1, utf8.body);
    assert.deepEqual(Object.keys((await stored(ctx, tenant)).users), ['Jürgen']);
  });

  it('answers a latin-1 file sent without its charset with the rows it cannot read, storing no U+FFFD', async () => {
    const tenant = await ctx.given.tenant();
    const res = await sendCsv(ctx, tenant, bytes('name,email\nJ', [0xfc], 'rgen,jurgen@example.org\nAda,ada@example.org\n'));
    assert.equal(res.statusCode, 200, res.body);
    const summary = res.json() as Summary;
    assert.deepEqual(
      summary.errors.map((error) => [error.row, error.type, error.value]),
      [[1, 'invalid_encoding', 'J\\xFCrgen']],
    );
    assert.match(summary.errors[0].message, /"name" cell/);
    assert.deepEqual(Object.keys((await stored(ctx, tenant)).users), ['Ada']);
  });

  it('reads a charset with bytes it does not define per row too (iso-8859-7 has no 0xAE)', async () => {
    const tenant = await ctx.given.tenant();
    const res = await sendCsv(
      ctx,
      tenant,
      bytes('name,email\n', [0xc1, 0xeb, 0xfd, 0xea, 0xe7], ',a@example.org\nX', [0xae], ',x@example.org\n'),
      'text/csv; charset=iso-8859-7',
    );
    assert.equal(res.statusCode, 200, res.body);
    const summary = res.json() as Summary;
    assert.deepEqual(
      summary.errors.map((error) => [error.row, error.type, error.value]),
      [[2, 'invalid_encoding', 'X\\xAE']],
    );
    assert.match(summary.errors[0].message, /^Row 2 is not valid iso-8859-7/);
    assert.deepEqual(Object.keys((await stored(ctx, tenant)).users), ['Αλύκη']);
  });

  it('answers 415 naming a charset it does not know or cannot split into cells, importing and recording nothing', async () => {
    const tenant = await ctx.given.tenant();
    for (const charset of ['klingon-8', 'utf-16le', 'UTF-16', 'iso-2022-jp']) {
      const res = await sendCsv(ctx, tenant, 'name,email\nAda,ada@example.org\n', `text/csv; charset=${charset}`);
      assert.equal(res.statusCode, 415, `${charset}: ${res.body}`);
      assert.equal(res.json().code, 'imports.unsupported_charset');
      assert.equal(res.json().details.charset, charset);
      assert.ok(res.json().message.includes(`"${charset}"`), res.body);
    }
    assert.deepEqual(await stored(ctx, tenant), { users: {}, runs: 0 });
  });

  it('refuses a file whose header is not text in its charset (400), importing nothing', async () => {
    const tenant = await ctx.given.tenant();
    const res = await sendCsv(ctx, tenant, bytes('name,e', [0xff], 'mail\nAda,ada@example.org\n'));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().code, 'imports.invalid_csv');
    assert.match(res.json().message, /header is not valid UTF-8: e\\xFFmail/);
    assert.deepEqual(await stored(ctx, tenant), { users: {}, runs: 0 });
  });
});
