import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { it, type TestContext } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { operationIdOf } from '../../src/platform/http/common-schemas.js';
import { describeEachBackend } from '../support/build-test-app.js';

const ROOT = join(import.meta.dirname, '..', '..');
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The warnings redocly's recommended rules still give, each for a reason (docs/api-description.md). */
const KNOWN_WARNINGS = new Set(['operation-4xx-response', 'operation-2xx-response']);

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  responses: Record<string, unknown>;
}

type Document = { servers?: { url: string }[]; paths: Record<string, Record<string, Operation>> };

function operationsOf(document: Document): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

/** A folder under node_modules/.cache (so the compiled client resolves `openapi-fetch`), removed after the test. */
async function scratchFolder(t: TestContext): Promise<string> {
  const cache = join(ROOT, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const folder = await mkdtemp(join(cache, 'learnbase-openapi-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  return folder;
}

async function fetchDocument(baseUrl: string): Promise<Document> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  assert.equal(res.status, 200);
  return (await res.json()) as Document;
}

/** redocly's CLI with the repository's redocly.yaml, on the document saved in `folder`. */
async function lint(
  document: Document,
  folder: string,
): Promise<{ totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] }> {
  const file = join(folder, 'openapi.json');
  await writeFile(file, JSON.stringify(document));
  const cli = join(ROOT, 'node_modules', '.bin', 'redocly');
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const run = await promisify(execFile)(cli, ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'], {
    cwd: ROOT,
    env,
  }).catch((failed: { stdout?: string }) => failed);
  return JSON.parse(String(run.stdout));
}

/** The small client compiled against the generated types: each function calls one operation. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export type Client = ReturnType<typeof createClient<paths>>;

export const connect = (baseUrl: string, headers: Record<string, string>): Client => createClient<paths>({ baseUrl, headers });

export async function replaceSettings(client: Client, uniqueAttributes: string[]) {
  const { data, error, response } = await client.PUT('/api/settings', { body: { uniqueAttributes } });
  return { status: response.status, stored: data?.uniqueAttributes, code: error?.code };
}

export async function readSettings(client: Client) {
  const { data, error, response } = await client.GET('/api/settings');
  return { status: response.status, uniqueAttributes: data?.uniqueAttributes, code: error?.code };
}

export async function recordStatement(client: Client, statement: object) {
  const { data, response } = await client.POST('/xapi/statements', { body: statement });
  const ids: string[] | undefined = data;
  return { status: response.status, ids };
}

type StatementsAnswer = paths['/xapi/statements']['get']['responses'][200]['content']['application/json'];
type StatementPage = Extract<StatementsAnswer, { more: string }>;
const isPage = (answer: StatementsAnswer): answer is StatementPage => 'more' in answer && Array.isArray(answer.statements);

export async function listStatements(client: Client, verb: string) {
  const { data, response } = await client.GET('/xapi/statements', { params: { query: { verb, limit: 10 } } });
  const statements = data && isPage(data) ? data.statements : [];
  return { status: response.status, ids: statements.map((statement) => statement.id) };
}
`;

interface CompiledClient {
  connect(baseUrl: string, headers: Record<string, string>): unknown;
  replaceSettings(client: unknown, uniqueAttributes: string[]): Promise<{ status: number; stored?: string[]; code?: string }>;
  readSettings(client: unknown): Promise<{ status: number; uniqueAttributes?: string[]; code?: string }>;
  recordStatement(client: unknown, statement: object): Promise<{ status: number; ids?: string[] }>;
  listStatements(client: unknown, verb: string): Promise<{ status: number; ids: string[] }>;
}

/** Generates the types with openapi-typescript and compiles the client with the TypeScript compiler (strict) into `folder`. */
async function compileClient(document: Document, folder: string): Promise<CompiledClient> {
  const types = astToString(await openapiTS(document as never, { silent: true }));
  await writeFile(join(folder, 'schema.d.ts'), types);
  await writeFile(join(folder, 'client.ts'), CLIENT);
  await writeFile(join(folder, 'package.json'), JSON.stringify({ type: 'module' }));
  const program = ts.createProgram([join(folder, 'client.ts')], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
    outDir: folder,
  });
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  assert.deepEqual(
    diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
    [],
    'the generated types and the client compile',
  );
  return import(pathToFileURL(join(folder, 'client.js')).href) as Promise<CompiledClient>;
}

const statement = (verb: string) => ({
  actor: { mbox: 'mailto:ada@example.com' },
  verb: { id: verb },
  object: { id: 'http://example.com/activities/openapi' },
});

describeEachBackend('the API description at /openapi.json', (ctx) => {
  it('names every operation once, with a summary, a tag and its error responses', async () => {
    const baseUrl = await ctx.url();
    const document = await fetchDocument(baseUrl);
    assert.deepEqual(
      document.servers?.map((server) => server.url),
      [baseUrl],
    );
    const operations = operationsOf(document);
    assert.ok(operations.length > 40, `${operations.length} operations`);
    for (const { method, path, operation } of operations) {
      const name = `${method.toUpperCase()} ${path}`;
      const expected = operationIdOf(method, path);
      assert.equal(
        operation.operationId,
        expected,
        `${name}: operationId ${operation.operationId}, by the scheme ${expected} (docs/api-description.md)`,
      );
      assert.ok(operation.summary, `${name} has a summary`);
      assert.equal(operation.tags?.length, 1, `${name} has a tag`);
      assert.ok(
        Object.keys(operation.responses).some((status) => /^4\d\d$/.test(status)) || path === '/.well-known/oauth-authorization-server',
        `${name} describes its errors`,
      );
    }
    const ids = operations.map(({ operation }) => operation.operationId);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });

  it('describes the errors every /api and /xapi route can answer with the API error schema', async () => {
    const document = await fetchDocument(await ctx.url());
    const settings = document.paths['/api/settings'].get.responses as Record<
      string,
      { content: Record<string, { schema: { required: string[] } }> }
    >;
    for (const status of ['400', '401', '403', '404', '429']) {
      assert.deepEqual(settings[status].content['application/json'].schema.required, ['code', 'message'], status);
    }
    assert.ok((settings['429'] as { headers?: Record<string, unknown> }).headers?.['Retry-After'], 'a 429 names Retry-After');
    const unknownTenant = await fetch(`${await ctx.url()}/api/settings`, { headers: { 'x-svc-tenant': 'nobody-here' } });
    assert.equal(unknownTenant.status, 404);
    assert.equal((await unknownTenant.json()).code, 'tenant.not_found');
  });

  it('passes redocly lint with the recommended rules without errors', async (t) => {
    const report = await lint(await fetchDocument(await ctx.url()), await scratchFolder(t));
    assert.equal(report.totals.errors, 0, JSON.stringify(report.problems));
    const unexpected = report.problems.filter((problem) => !KNOWN_WARNINGS.has(problem.ruleId));
    assert.deepEqual(unexpected, []);
  });

  it('gives a client generated by openapi-typescript that compiles and calls the server', async (t) => {
    const baseUrl = await ctx.url();
    const client = await compileClient(await fetchDocument(baseUrl), await scratchFolder(t));
    const tenant = await ctx.given.tenant();
    const api = client.connect(baseUrl, tenant.xapi);

    assert.deepEqual(await client.replaceSettings(api, ['employeeId', 'email']), {
      status: 200,
      stored: ['employeeId', 'email'],
      code: undefined,
    });
    assert.deepEqual(await client.readSettings(api), { status: 200, uniqueAttributes: ['employeeId', 'email'], code: undefined });
    const invalid = await client.replaceSettings(api, []);
    assert.equal(invalid.status, 400);
    assert.match(String(invalid.code), /\./);

    const verb = `http://example.com/verbs/openapi-${ctx.backend}`;
    const recorded = await client.recordStatement(api, statement(verb));
    assert.equal(recorded.status, 200);
    assert.equal(recorded.ids?.length, 1);
    assert.deepEqual(await client.listStatements(api, verb), { status: 200, ids: recorded.ids });

    const other = await ctx.given.tenant();
    const wrongTenant = client.connect(baseUrl, { ...other.xapi, 'x-svc-tenant': tenant.name });
    assert.deepEqual(await client.readSettings(wrongTenant), { status: 401, uniqueAttributes: undefined, code: 'auth.unauthorized' });
    const anonymous = client.connect(baseUrl, { 'x-svc-tenant': tenant.name });
    assert.equal((await client.readSettings(anonymous)).status, 401);
    const otherSettings = await client.readSettings(client.connect(baseUrl, other.headers));
    assert.deepEqual(otherSettings.uniqueAttributes, ['email'], 'the other tenant keeps its own settings');
  });
});

describeEachBackend(
  'the API description behind LEARNBASE_PUBLIC_URL',
  (ctx) => {
    it('names the public URL as its server, whatever host the request came in on', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json', headers: { host: 'internal:8080' } });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().servers, [{ url: 'https://lrs.example.org/learnbase', description: 'This server' }]);
    });
  },
  { publicUrl: 'https://lrs.example.org/learnbase' },
);
