import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startCli, waitForOutput } from '../support/cli.js';
import { copyMigratedDataFolder } from '../support/templates.js';

const HR = 'https://hr.example.com';
const COURSE = 'https://example.com/courses/a';
const actorIdOf = (employeeId: string) => `account|${HR}|${employeeId}`;

/**
 * The command line's imports reach learning's dynamic assignments in their own transaction
 * (docs/architecture.md, "People changes"), whether the command is handed to the server holding the
 * PGlite folder or opens the folder itself.
 */
describe('learnbase import and dynamic assignments', () => {
  const folder = mkdtempSync(join(tmpdir(), 'learnbase-assignments-cli-'));
  const data = join(folder, 'data');
  const cli = (...args: string[]) => runCli([...args, '--data', data]);
  const file = (name: string, content: unknown) => {
    const path = join(folder, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  };
  let server: ReturnType<typeof startCli> | undefined;
  let base = '';
  let authorization = '';

  const serve = async () => {
    server = startCli(['serve', '--port', '0', '--data', data]);
    base = /listening on (http:\/\/\S+)/.exec(await waitForOutput(server, /listening on (http:\/\/\S+)/))![1]!;
  };
  const stop = async () => {
    const running = server!;
    server = undefined;
    running.kill('SIGTERM');
    await new Promise((resolve) => running.once('close', resolve));
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization, 'x-svc-tenant': 'acme', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  const members = async (id: string) =>
    (await api('GET', `/api/assignments/people?id=${id}`)).people.map((person: { actorId: string; leftAt?: string }) => [
      person.actorId,
      person.leftAt !== undefined,
    ]);
  const imported = async (...args: string[]) => {
    const result = await cli('import', ...args, '--tenant', 'acme', '--json');
    assert.equal(result.code, 0, result.stderr);
  };

  before(async () => {
    await copyMigratedDataFolder(data);
    assert.equal((await cli('tenant', 'create', 'acme')).code, 0);
    const key = await cli('apikey', 'create', '--tenant', 'acme', '--json');
    const { key: id, secret } = JSON.parse(key.stdout) as { key: string; secret: string };
    authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  });
  after(async () => {
    if (server) await stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('handed to the server, and run on the folder itself, the imports of users and of the organisation move people in and out', async () => {
    await serve();
    await api('PUT', '/api/settings', { uniqueAttributes: ['employeeId'], accountHomePage: HR, organisationAttribute: 'positionNumber' });
    await api('PUT', '/api/activities', [{ id: COURSE, definition: {} }]);
    // Handed off: the server runs the imports on its open database.
    await imported('organisation', file('organisation.json', [{ id: 'CTO' }, { id: 'DEV1', parentId: 'CTO' }]));
    const red = await api('POST', '/api/assignments', {
      name: 'Red',
      activityIds: [COURSE],
      people: { criteria: { field: 'attributes.team', op: 'eq', value: 'red' } },
    });
    const cto = await api('POST', '/api/assignments', { name: 'CTO', activityIds: [COURSE], people: { organisationId: 'CTO' } });
    assert.deepEqual([red.members, cto.members], [0, 0]);

    await imported(
      'users',
      file('users.json', {
        users: [
          { name: 'One', attributes: { employeeId: 'E1', team: 'red', positionNumber: 'DEV1' } },
          { name: 'Two', attributes: { employeeId: 'E2', team: 'blue', positionNumber: 'CTO' } },
        ],
      }),
    );
    assert.deepEqual(await members(red.id), [[actorIdOf('E1'), false]]);
    assert.deepEqual(await members(cto.id), [
      [actorIdOf('E1'), false],
      [actorIdOf('E2'), false],
    ]);
    // DEV1 leaves the CTO's subtree: E1, who did nothing, is no longer listed.
    await imported('organisation', file('organisation.json', [{ id: 'CTO' }, { id: 'DEV1' }]));
    assert.deepEqual(await members(cto.id), [[actorIdOf('E2'), false]]);

    // No server: the command opens the folder itself.
    await stop();
    await imported(
      'users',
      file('more-users.json', [{ name: 'Three', attributes: { employeeId: 'E3', team: 'red', positionNumber: 'CTO' } }]),
    );
    await imported('organisation', file('organisation.json', [{ id: 'CTO' }, { id: 'DEV1', parentId: 'CTO' }]));
    await serve();
    assert.deepEqual(await members(red.id), [
      [actorIdOf('E1'), false],
      [actorIdOf('E3'), false],
    ]);
    assert.deepEqual(await members(cto.id), [
      [actorIdOf('E1'), false],
      [actorIdOf('E2'), false],
      [actorIdOf('E3'), false],
    ]);
  });
});
