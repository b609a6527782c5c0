import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { Principal } from '../../src/kernel/principal.js';
import { NO_PEOPLE_CHANGES } from '../../src/kernel/people-changes.port.js';
import { issueApiKey } from '../../src/modules/auth/api-keys/api-key.service.js';
import { importFileContents } from '../../src/modules/imports/import-file.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';
import { basic, givenLaunch, PASSWORD } from '../launch/launch-fixtures.js';
import { drop, dropSettings, waitForFinished } from './drop-fixtures.js';

/**
 * The users import's `sync` mode (docs/identity.md, "A sync: people left out are deactivated"):
 * through the import folder (a `users-sync…` file) and `POST /api/import/users` with `"mode": "sync"`.
 */

const dropDir = mkdtempSync(join(tmpdir(), 'learnbase-drop-sync-'));
after(() => rmSync(dropDir, { recursive: true, force: true }));

/** What these tests read of an audit entry and of an import run. */
interface AuditEntry {
  actorId: string;
  source?: string;
  principal: { kind: string; id: string };
}
interface ImportRun {
  summary: Record<string, number>;
}
type Headers = Record<string, string>;

/** A sync may deactivate half of the people here: the tenants are small. */
const MAX_SHARE = 0.5;

const user = (name: string, email: string) => ({ name, attributes: { email } });
const csvOf = (users: Array<{ name: string; attributes: { email: string } }>) =>
  `name,email\n${users.map((person) => `${person.name},${person.attributes.email}`).join('\n')}\n`;

const ADA = user('Ada Lovelace', 'ada@example.com');
const ALAN = user('Alan Turing', 'alan@example.com');
const GRACE = user('Grace Hopper', 'grace@example.com');
const KATE = user('Katherine Johnson', 'kate@example.com');

describeEachBackend(
  'A users sync',
  (ctx: TestContext) => {
    before(() => ctx.app.ready());

    const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Headers, payload?: unknown) =>
      ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    async function importUsers(tenant: GivenTenant, users: unknown[]): Promise<void> {
      const res = await call('POST', '/api/import/users', tenant.headers, { users });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().skipped, 0, res.body);
    }

    /** The names of the tenant's actors of one kind (GET /api/actors?kind=), sorted. */
    async function names(tenant: GivenTenant, kind: 'people' | 'deactivated' | 'all'): Promise<string[]> {
      const res = await call('GET', `/api/actors?kind=${kind}&limit=1000`, tenant.headers);
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as Array<{ name?: string; mbox?: string }>).map((actor) => actor.name ?? JSON.stringify(actor.mbox)).sort();
    }

    async function credentialFor(tenant: GivenTenant, email: string): Promise<Headers> {
      const username = `u-${email.replace(/\W/g, '')}-${Date.now()}`;
      const res = await call('POST', '/api/auth/basic', tenant.headers, {
        username,
        password: PASSWORD,
        data: { actor: { account: { homePage: `http://${tenant.name}.localhost`, name: email } } },
      });
      assert.equal(res.statusCode, 201, res.body);
      return { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name };
    }

    const status = async (headers: Headers) => (await call('GET', '/api/me', headers)).statusCode;

    async function deactivations(tenant: GivenTenant): Promise<AuditEntry[]> {
      const res = await call('GET', '/api/audit?action=actor.deactivated&limit=1000', tenant.headers);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }

    async function runs(tenant: GivenTenant): Promise<ImportRun[]> {
      const res = await call('GET', '/api/import/history?limit=1000', tenant.headers);
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    }

    it('deactivates the active people a users-sync file leaves out, their credentials and launches with them, and keeps the others', async () => {
      // Lea, with a credential and a registered course (launch-fixtures.ts), and three more people.
      const launch = await givenLaunch(ctx, 'http://127.0.0.1:9');
      const tenant = launch.tenant;
      await importUsers(tenant, [ADA, ALAN, GRACE]);
      // An agent only a statement named is no person: a sync leaves it alone.
      const stated = await call('POST', '/xapi/statements', tenant.xapi, {
        actor: { mbox: 'mailto:visitor@example.com' },
        verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' },
        object: { id: launch.activityId },
      });
      assert.equal(stated.statusCode, 200, stated.body);
      const lea = { authorization: basic(launch.username, PASSWORD), 'x-svc-tenant': tenant.name };
      const alan = await credentialFor(tenant, ALAN.attributes.email);
      const ada = await credentialFor(tenant, ADA.attributes.email);
      const opened = await ctx.app.inject({ method: 'GET', url: launch.launchPath, headers: { host: `${tenant.name}.localhost:8080` } });
      assert.equal(opened.statusCode, 302, opened.body);
      const launched = { authorization: new URL(opened.headers.location as string).searchParams.get('auth') as string };
      assert.deepEqual([await status(lea), await status(alan), await status(ada), await status(launched)], [200, 200, 200, 200]);
      const assignment = await call('POST', '/api/assignments', tenant.headers, {
        name: 'Everyone',
        activityIds: [launch.activityId],
        people: { criteria: {} },
      });
      assert.equal(assignment.statusCode, 201, assignment.body);
      assert.equal(assignment.json().members, 4);

      // Ada and Grace (renamed) stay, Newton is new; Lea and Alan are left out: 2 of 4, the allowed half.
      const folder = join(dropDir, tenant.name);
      const file = [ADA, user('Grace B. Hopper', GRACE.attributes.email), user('Isaac Newton', 'isaac@example.com')];
      await drop(folder, 'users-sync.csv', csvOf(file));
      const done = await waitForFinished(folder, 'done', 'users-sync.csv');
      assert.ok(done.result.status === 'imported', JSON.stringify(done.result));
      assert.deepEqual(done.result.summary, {
        rows: 3,
        new: 1,
        existing: 2,
        deactivated: 2,
        skipped: 0,
        errorCount: 0,
        warningCount: 0,
        errors: [],
        warnings: [],
      });

      assert.deepEqual(await names(tenant, 'people'), ['"mailto:visitor@example.com"', 'Ada Lovelace', 'Grace B. Hopper', 'Isaac Newton']);
      assert.deepEqual(await names(tenant, 'deactivated'), ['Alan Turing', 'Lea']);
      // Their credentials are revoked, and the launch made with Lea's ends with it.
      assert.deepEqual([await status(lea), await status(alan), await status(ada), await status(launched)], [401, 401, 200, 401]);
      const item = await call('GET', `/api/assignments/item?id=${assignment.json().id}`, tenant.headers);
      assert.equal(item.json().members, 3, 'Lea and Alan left the assignment, Newton joined it');

      const audited = await deactivations(tenant);
      assert.deepEqual(
        audited.map((entry) => [entry.actorId, entry.source, entry.principal]).sort(),
        [ALAN.attributes.email, (launch.agent.account as { name: string }).name]
          .map((email) => `account|http://${tenant.name}.localhost|${email}`)
          .sort()
          .map((actorId) => [actorId, 'import-folder', { kind: 'operator', id: 'drop:users-sync.csv' }]),
      );
      const [run] = await runs(tenant);
      assert.equal(run.summary.deactivated, 2);
    });

    it('leaves a deactivated person of the file deactivated: a sync never reactivates', async () => {
      const tenant = await ctx.given.tenant();
      await importUsers(tenant, [ADA, ALAN, GRACE, KATE]);
      const folder = join(dropDir, tenant.name);
      await drop(folder, 'Users-Sync-1.csv', csvOf([ADA, ALAN, GRACE]));
      const first = await waitForFinished(folder, 'done', 'Users-Sync-1.csv');
      assert.ok(first.result.status === 'imported' && first.result.summary.deactivated === 1, JSON.stringify(first.result));

      await drop(folder, 'users-sync_2.json', JSON.stringify({ users: [ADA, ALAN, GRACE, user('Kate Johnson', KATE.attributes.email)] }));
      const second = await waitForFinished(folder, 'done', 'users-sync_2.json');
      assert.ok(second.result.status === 'imported', JSON.stringify(second.result));
      assert.deepEqual([second.result.summary.new, second.result.summary.existing, second.result.summary.deactivated], [0, 4, 0]);
      assert.deepEqual(await names(tenant, 'deactivated'), ['Kate Johnson'], 'updated, and still deactivated');
      assert.equal((await deactivations(tenant)).length, 1);
    });

    it('refuses a sync that would deactivate more than the allowed share: failed/, nothing imported, nobody deactivated', async () => {
      const tenant = await ctx.given.tenant();
      await importUsers(tenant, [ADA, ALAN, GRACE, KATE]);
      const folder = join(dropDir, tenant.name);
      await drop(folder, 'users-sync.csv', csvOf([user('Ada King', ADA.attributes.email), user('Isaac Newton', 'isaac@example.com')]));
      const failed = await waitForFinished(folder, 'failed', 'users-sync.csv');
      assert.ok(failed.result.status === 'refused');
      assert.deepEqual(failed.result.error, {
        code: 'imports.sync_guard',
        message:
          'The sync would deactivate 3 of 4 people (75%), more than the allowed 50% (LEARNBASE_IMPORT_SYNC_MAX_SHARE): ' +
          'is the file cut short? Nothing was imported and nobody deactivated.',
        details: { deactivating: 3, activePeople: 4, share: 0.75, maxShare: MAX_SHARE },
      });
      assert.deepEqual(await names(tenant, 'people'), ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Katherine Johnson']);
      assert.equal((await runs(tenant)).length, 1, 'only the first import');
      assert.deepEqual(await deactivations(tenant), []);
    });

    it('refuses a sync file with a row error whole, deactivating nobody', async () => {
      const tenant = await ctx.given.tenant();
      await importUsers(tenant, [ADA, ALAN, GRACE, KATE]);
      const folder = join(dropDir, tenant.name);
      await drop(folder, 'users-sync.csv', `${csvOf([ADA, ALAN, user('Isaac Newton', 'isaac@example.com')])},grace@example.com\n`);
      const failed = await waitForFinished(folder, 'failed', 'users-sync.csv');
      assert.ok(failed.result.status === 'refused');
      assert.equal(failed.result.error.code, 'imports.sync_invalid_rows');
      assert.deepEqual(failed.result.error.details, {
        errorCount: 1,
        errors: [{ type: 'missing_name', message: '"name" must be a non-empty string.', value: '', row: 4 }],
      });
      assert.deepEqual(await names(tenant, 'people'), ['Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Katherine Johnson']);
      assert.deepEqual(await deactivations(tenant), []);
    });

    it('POST /api/import/users with "mode": "sync": verify counts, CSV with ?mode=sync deactivates under the request’s source, the guard refuses', async () => {
      const tenant = await ctx.given.tenant();
      await importUsers(tenant, [ADA, ALAN, GRACE, KATE]);
      const three = [ADA, ALAN, GRACE];

      const checked = await call('POST', '/api/import/users', tenant.headers, { mode: 'sync', verify: true, users: three });
      assert.equal(checked.statusCode, 200, checked.body);
      assert.deepEqual(checked.json(), {
        rows: 3,
        new: 0,
        existing: 3,
        deactivated: 1,
        skipped: 0,
        errorCount: 0,
        warningCount: 0,
        errors: [],
        warnings: [],
      });
      assert.equal((await names(tenant, 'people')).length, 4, 'verify deactivates nobody');
      const merged = await call('POST', '/api/import/users', tenant.headers, { users: three });
      assert.equal(merged.json().deactivated, undefined, 'no count without a sync');
      assert.equal((await names(tenant, 'people')).length, 4);

      const guarded = await call('POST', '/api/import/users', tenant.headers, { mode: 'sync', users: [ADA] });
      assert.equal(guarded.statusCode, 400, guarded.body);
      assert.equal(guarded.json().code, 'imports.sync_guard');

      const synced = await ctx.app.inject({
        method: 'POST',
        url: '/api/import/users?mode=sync',
        headers: { ...tenant.headers, 'content-type': 'text/csv', 'svc-account-source': 'hr-sync' },
        payload: csvOf(three),
      });
      assert.equal(synced.statusCode, 200, synced.body);
      assert.equal(synced.json().deactivated, 1);
      assert.deepEqual(await names(tenant, 'deactivated'), ['Katherine Johnson']);
      const [entry] = await deactivations(tenant);
      assert.deepEqual([entry.source, entry.principal], ['hr-sync', { kind: 'api_key', id: tenant.key }]);
    });

    it('refuses a sync to a credential limited to an organisation subtree (403), and a mode it does not know (400)', async () => {
      const tenant = await ctx.given.tenant();
      const structure = await call('PUT', '/api/import/organisation', tenant.headers, [{ id: 'HQ' }]);
      assert.ok(structure.statusCode < 300, structure.body);
      const record = (await new TenancyService(ctx.db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
      const scoped = await issueApiKey(ctx.db, record, 'HQ');
      const headers = { authorization: basic(scoped.key, scoped.secret), 'x-svc-tenant': tenant.name };
      const refused = await call('POST', '/api/import/users', headers, { mode: 'sync', users: [] });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().code, 'auth.out_of_scope');

      const unknown = await call('POST', '/api/import/users', tenant.headers, { mode: 'replace', users: [] });
      assert.equal(unknown.statusCode, 400, unknown.body);
      assert.deepEqual([unknown.json().code, unknown.json().details], ['imports.invalid_body', { field: 'mode' }]);
      const query = await call('POST', '/api/import/users?mode=all', tenant.headers, { users: [] });
      assert.equal(query.statusCode, 400, query.body);
      assert.deepEqual([query.json().code, query.json().details], ['imports.invalid_body', { field: 'mode' }]);
    });

    it('refuses a users file whose body asks for a sync where no sync runs (learnbase import)', async () => {
      const tenant = await ctx.given.tenant();
      const record = (await new TenancyService(ctx.db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
      const principal: Principal = { kind: 'operator', tenant: record, id: 'cli:test' };
      await assert.rejects(
        importFileContents(ctx.db, principal, {
          kind: 'users',
          file: 'users.json',
          bytes: Buffer.from(JSON.stringify({ mode: 'sync', users: [ADA] })),
          verify: false,
          baseDomain: ctx.config.baseDomain,
          peopleChanges: NO_PEOPLE_CHANGES,
        }),
        { code: 'imports.sync_unavailable', status: 400 },
      );
    });
  },
  { ...dropSettings(dropDir), importSyncMaxShare: MAX_SHARE },
);
