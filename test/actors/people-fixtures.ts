import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createAdmin } from '../../src/modules/auth/admins/admin.service.js';
import { issueApiKey } from '../../src/modules/auth/api-keys/api-key.service.js';
import { createClient } from '../../src/modules/auth/oauth/clients/client.service.js';
import { issueCode } from '../../src/modules/auth/oauth/code.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';
import type { Tenant } from '../../src/kernel/principal.js';
import { REDIRECT_URI, redeemCode, type GivenClient } from '../auth/oauth-token-fixtures.js';
import type { TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

/**
 * A tenant with an organisation structure and people placed in it, for the scoped credentials
 * (scoped-access.test.ts) and the managers (managers.test.ts). Who is inside a subtree, and who
 * manages whom, the tests compute from these lists themselves (`below`), not from the server.
 *
 *     CEO ── CTO ─┬─ ENG ── DEV1
 *          │      └─ OPS
 *          └─ CFO ── ACC
 */
export const ORGANISATION = [
  { id: 'CEO', attributes: { title: 'Chief Executive' } },
  { id: 'CTO', parentId: 'CEO', attributes: { title: 'Chief Technology Officer' } },
  { id: 'ENG', parentId: 'CTO', attributes: { title: 'Engineering' } },
  { id: 'DEV1', parentId: 'ENG', attributes: { title: 'Developers' } },
  { id: 'OPS', parentId: 'CTO', attributes: { title: 'Operations' } },
  { id: 'CFO', parentId: 'CEO', attributes: { title: 'Chief Financial Officer' } },
  { id: 'ACC', parentId: 'CFO', attributes: { title: 'Accounts' } },
];

export interface Person {
  name: string;
  attributes: Record<string, string>;
}

const person = (name: string, position: string | undefined, extra: Record<string, string> = {}): Person => ({
  name,
  attributes: { email: `${name.toLowerCase()}@example.com`, ...(position === undefined ? {} : { position }), ...extra },
});

/** The named people: Tom and Tim hold the same position (peers), Nell none, Zed one the structure does not have. */
export const NAMED = [
  person('Carla', 'CEO'),
  person('Tom', 'CTO'),
  person('Tim', 'CTO'),
  person('Eve', 'ENG'),
  person('Dan', 'DEV1'),
  person('Dora', 'DEV1'),
  person('Otto', 'OPS'),
  person('Fay', 'CFO', { budget: '100' }),
  person('Abe', 'ACC'),
  person('Nell', undefined),
  person('Zed', 'GHOST'),
];

/** 21 operators (enough for the attribute catalogue's enum) and 3 accountants, with a shift each. */
export const CROWD = [
  ...Array.from({ length: 21 }, (_, i) => person(`Op${String(i + 1).padStart(2, '0')}`, 'OPS', { shift: i % 2 === 0 ? 'early' : 'late' })),
  ...Array.from({ length: 3 }, (_, i) => person(`Acc${i + 1}`, 'ACC', { shift: 'night' })),
];

export const PEOPLE = [...NAMED, ...CROWD];

/** An agent named by statements only: no attributes, so no position. */
export const WALKER = { name: 'Walker', mbox: 'mailto:walker@example.com' };

export const COURSE = 'https://example.com/courses/safety';
export const PASSWORD = 'a learner password';

/** The entry `root` and every entry below it, from ORGANISATION (`withRoot` false: below only). */
export function below(root: string, withRoot = true): Set<string> {
  const found = new Set(withRoot ? [root] : []);
  let level = [root];
  while (level.length > 0) {
    const next = ORGANISATION.filter((entry) => entry.parentId !== undefined && level.includes(entry.parentId)).map((entry) => entry.id);
    for (const id of next) found.add(id);
    level = next;
  }
  return found;
}

/** The people placed in the subtree of `root`. */
export const peopleIn = (root: string, withRoot = true): Person[] => {
  const entries = below(root, withRoot);
  return PEOPLE.filter((someone) => someone.attributes.position !== undefined && entries.has(someone.attributes.position));
};

export const named = (name: string): Person => PEOPLE.find((someone) => someone.name === name) ?? assert.fail(`no ${name}`);

export interface World {
  tenant: GivenTenant;
  record: Tenant;
  /** The account every imported person gets: `{homePage: http://{tenant}.localhost, name: email}`. */
  agent(name: string): { account: { homePage: string; name: string } };
  actorId(name: string): string;
  /** Headers of an API key of the tenant limited to `scope` (an entry id). */
  scopedKey(scope: string): Promise<Record<string, string>>;
  /** Headers with the Bearer token of a new admin limited to `scope` (undefined: the whole tenant), through the code exchange. */
  admin(scope?: string): Promise<{ headers: Record<string, string>; adminId: string; email: string; refreshToken: string }>;
  /** A Bearer token for `adminId` through a new code: a new sign-in. */
  signIn(adminId: string): Promise<{ access_token: string; refresh_token: string }>;
  /** Headers of a learner credential of the person `name` (made once, by the unscoped key). */
  learner(name: string): Promise<Record<string, string>>;
  client: GivenClient;
}

export const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

/**
 * Builds the world in a new tenant through the API (the unscoped demo-like key): settings, the
 * structure, PEOPLE, the course, a completion of it by everyone and by WALKER, and one
 * notification per person (`object.n` their name).
 */
export async function givenWorld(ctx: TestContext): Promise<World> {
  const tenant = await ctx.given.tenant();
  const record = (await new TenancyService(ctx.db, 0).findById(tenant.id)) ?? assert.fail('no tenant');
  const home = `http://${tenant.name}.${ctx.config.baseDomain}`;
  const agent = (name: string) => ({ account: { homePage: home, name: named(name).attributes.email } });
  const send = async (method: 'PUT' | 'POST', url: string, payload: unknown, headers = tenant.headers) => {
    const res = await ctx.app.inject({ method, url, headers, payload: payload as object });
    assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
    return res;
  };
  await send('PUT', '/api/settings', { organisationAttribute: 'position' });
  await send('PUT', '/api/import/organisation', ORGANISATION);
  const imported = await send('POST', '/api/import/users', { users: PEOPLE });
  assert.equal(imported.json().new, PEOPLE.length, imported.body);
  await send('PUT', '/api/activities', [
    { id: COURSE, definition: { name: { 'en-US': 'Safety' } }, launchUrl: 'https://content.example.com/safety/' },
  ]);
  const completed = { id: 'http://adlnet.gov/expapi/verbs/completed' };
  await send(
    'POST',
    '/xapi/statements',
    [
      ...PEOPLE.map((someone) => ({ actor: agent(someone.name), verb: completed, object: { id: COURSE } })),
      { actor: WALKER, verb: completed, object: { id: COURSE } },
    ],
    tenant.xapi,
  );
  await send(
    'POST',
    '/api/notifications',
    PEOPLE.map((someone) => ({ actor: agent(someone.name), activity: { id: COURSE }, channel: 'email', object: { n: someone.name } })),
  );

  const client = await createClient(ctx.db, record, [REDIRECT_URI]);
  const signIn = async (adminId: string) => {
    const code = await issueCode(ctx.db, { tenantId: tenant.id, clientId: client.clientId, adminId, redirectUri: REDIRECT_URI });
    const res = await redeemCode(ctx.app, client, code);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { access_token: string; refresh_token: string };
  };
  const learners = new Map<string, Record<string, string>>();
  return {
    tenant,
    record,
    agent,
    actorId: (name) => `account|${home}|${named(name).attributes.email}`,
    client,
    signIn,
    async scopedKey(scope) {
      const { key, secret } = await issueApiKey(ctx.db, record, scope);
      return { authorization: basic(key, secret), 'x-svc-tenant': tenant.name };
    },
    async admin(scope) {
      const email = `admin-${randomBytes(4).toString('hex')}@example.com`;
      const created = await createAdmin(ctx.db, record, email, 'an admin password', scope);
      const tokens = await signIn(created.id);
      return {
        headers: { authorization: `Bearer ${tokens.access_token}`, 'x-svc-tenant': tenant.name },
        adminId: created.id,
        email,
        refreshToken: tokens.refresh_token,
      };
    },
    async learner(name) {
      const known = learners.get(name);
      if (known) return known;
      const username = `${name.toLowerCase()}-${randomBytes(4).toString('hex')}`;
      await send('POST', '/api/auth/basic', { username, password: PASSWORD, data: { actor: agent(name) } });
      const headers = { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name };
      learners.set(name, headers);
      return headers;
    },
  };
}
