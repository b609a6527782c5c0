import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { describeEachBackend, type TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

// The attack run of issue 24 (items 1-5), replayed through HTTP: what a learner credential and a
// launch token may store, void and read is their own learner's, and nobody else's.

type Headers = Record<string, string>;
type Json = Record<string, any>;

const PASSWORD = 'a random learner password';
const PASSED = { id: 'http://adlnet.gov/expapi/verbs/passed', display: { 'en-US': 'passed' } };
const EXPERIENCED = { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } };
const VOIDED = { id: 'http://adlnet.gov/expapi/verbs/voided', display: { 'en-US': 'voided' } };
const BOUNDARY = 'lb-learner-scope-boundary';

const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

interface Learner {
  email: string;
  agent: Json;
  username: string;
  /** The learner credential's headers for /xapi/ (2.0.0) and /api/. */
  headers: Headers;
}

interface World {
  tenant: GivenTenant;
  mallory: Learner;
  victor: Learner;
  /** A launchable course, a module below it, and another launchable course beside it. */
  course: string;
  module: string;
  otherCourse: string;
}

async function givenWorld(ctx: TestContext): Promise<World> {
  const tenant = await ctx.given.tenant();
  const home = `http://${tenant.name}.localhost`;
  const emails = ['mallory@example.com', 'victor@example.com'];
  const imported = await ctx.app.inject({
    method: 'POST',
    url: '/api/import/users',
    headers: tenant.headers,
    payload: { users: emails.map((email) => ({ name: email.split('@')[0], attributes: { email } })) },
  });
  assert.equal(imported.statusCode, 200, imported.body);
  const [mallory, victor] = await Promise.all(
    emails.map(async (email): Promise<Learner> => {
      const agent = { objectType: 'Agent', account: { homePage: home, name: email } };
      const username = `u-${randomBytes(6).toString('hex')}`;
      const created = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/basic',
        headers: tenant.headers,
        payload: { username, password: PASSWORD, data: { actor: agent } },
      });
      assert.equal(created.statusCode, 201, created.body);
      const headers = { authorization: basic(username, PASSWORD), 'x-svc-tenant': tenant.name, 'x-experience-api-version': '2.0.0' };
      return { email, agent, username, headers };
    }),
  );
  const course = `https://courses.example.com/${randomBytes(3).toString('hex')}`;
  const registered = await ctx.app.inject({
    method: 'PUT',
    url: '/api/activities',
    headers: tenant.headers,
    payload: [
      { id: course, definition: { name: { 'en-US': 'The course' } }, launchUrl: 'https://content.example.com/course/' },
      { id: `${course}/module-1`, definition: { name: { 'en-US': 'Module 1' } }, parentId: course },
      { id: `${course}-other`, definition: { name: { 'en-US': 'Another course' } }, launchUrl: 'https://content.example.com/other/' },
    ],
  });
  assert.ok(registered.statusCode < 300, registered.body);
  return { tenant, mallory: mallory!, victor: victor!, course, module: `${course}/module-1`, otherCourse: `${course}-other` };
}

/** Launches `activityId` with the learner's credential: the launch token's headers and registration. */
async function launchToken(
  ctx: TestContext,
  world: World,
  learner: Learner,
  activityId = world.course,
): Promise<{ headers: Headers; registration: string }> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/api/activities/launch?${new URLSearchParams({ activityId, auth: basic(learner.username, PASSWORD) })}`,
    headers: { host: `${world.tenant.name}.localhost:8080` },
  });
  assert.equal(res.statusCode, 302, res.body);
  const location = new URL(res.headers.location as string);
  return {
    headers: { authorization: location.searchParams.get('auth')!, 'x-svc-tenant': world.tenant.name, 'x-experience-api-version': '2.0.0' },
    registration: location.searchParams.get('registration')!,
  };
}

const post = (ctx: TestContext, headers: Headers, body: unknown) =>
  ctx.app.inject({ method: 'POST', url: '/xapi/statements', headers, payload: body as object });

const statement = (actor: Json, objectId: string, overrides: Json = {}): Json => ({
  id: randomUUID(),
  actor,
  verb: PASSED,
  object: { objectType: 'Activity', id: objectId },
  result: { success: true, completion: true },
  ...overrides,
});

async function records(ctx: TestContext, world: World, learner: Learner): Promise<Json[]> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/api/actors/completions?${new URLSearchParams({ agent: JSON.stringify(learner.agent) })}`,
    headers: world.tenant.headers,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function storedActor(ctx: TestContext, world: World, learner: Learner): Promise<Json> {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/actors?limit=1000', headers: world.tenant.headers });
  assert.equal(res.statusCode, 200, res.body);
  const found = (res.json() as Json[]).find((actor) => actor.account?.name === learner.email);
  assert.ok(found, `${learner.email} is listed`);
  return found;
}

async function statementById(ctx: TestContext, world: World, id: string, voided = false): Promise<number> {
  const res = await ctx.app.inject({
    method: 'GET',
    url: `/xapi/statements?${voided ? 'voidedStatementId' : 'statementId'}=${id}`,
    headers: world.tenant.xapi,
  });
  return res.statusCode;
}

/** Victor is still an Agent: listed as one, upserted as one, and a new credential can be made for him. */
async function assertStillAnAgent(ctx: TestContext, world: World): Promise<void> {
  const victor = await storedActor(ctx, world, world.victor);
  assert.notEqual(victor.objectType, 'Group', JSON.stringify(victor));
  const upserted = await ctx.app.inject({
    method: 'PUT',
    url: '/api/actors/agents',
    headers: world.tenant.headers,
    payload: { ...world.victor.agent, name: 'Victor' },
  });
  assert.equal(upserted.statusCode, 200, upserted.body);
  const credential = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/basic',
    headers: world.tenant.headers,
    payload: { username: `u-${randomBytes(6).toString('hex')}`, password: PASSWORD, data: { actor: world.victor.agent } },
  });
  assert.equal(credential.statusCode, 201, credential.body);
}

function multipart(statements: unknown, parts: Buffer[]): Buffer {
  const chunks: Buffer[] = [Buffer.from(`--${BOUNDARY}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(statements)}`)];
  for (const data of parts) {
    chunks.push(
      Buffer.from(
        `\r\n--${BOUNDARY}\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\nX-Experience-API-Hash: ${sha256(data)}\r\n\r\n`,
      ),
      data,
    );
  }
  chunks.push(Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const attachment = (data: Buffer, overrides: Json = {}): Json => ({
  usageType: 'http://example.com/attachment-usage/certificate',
  display: { 'en-US': 'Certificate' },
  contentType: 'application/octet-stream',
  length: data.length,
  sha2: sha256(data),
  ...overrides,
});

describeEachBackend('A learner credential stores statements for its own learner only (issue 24, items 1 and 3)', (ctx) => {
  it('refuses an identified Group carrying another person’s identifier with itself as a member (403), and that person stays an Agent', async () => {
    const world = await givenWorld(ctx);
    const forged = statement(
      { objectType: 'Group', name: 'Victor', account: world.victor.agent.account, member: [world.mallory.agent] },
      world.course,
    );
    const res = await post(ctx, world.mallory.headers, forged);
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().code, 'statements.forbidden');
    assert.equal(res.json().details.path, 'statement.actor');
    assert.equal(await statementById(ctx, world, forged.id), 404, 'nothing stored');
    assert.deepEqual(await records(ctx, world, world.victor), []);
    await assertStillAnAgent(ctx, world);
  });

  it('refuses an anonymous Group whose members include someone else, and gives nobody a record', async () => {
    const world = await givenWorld(ctx);
    const forged = statement({ objectType: 'Group', member: [world.mallory.agent, world.victor.agent] }, world.course);
    const res = await post(ctx, world.mallory.headers, [forged]);
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().details.path, 'statements[0].actor');
    assert.deepEqual(await records(ctx, world, world.victor), []);
    assert.deepEqual(await records(ctx, world, world.mallory), []);
  });

  it('refuses a Group even when it is only the learner (an identified group has an identity of its own)', async () => {
    const world = await givenWorld(ctx);
    const res = await post(ctx, world.mallory.headers, statement({ objectType: 'Group', member: [world.mallory.agent] }, world.course));
    assert.equal(res.statusCode, 403, res.body);
  });

  it('stores a statement naming someone else elsewhere (a team, an Agent object) without changing that person', async () => {
    const world = await givenWorld(ctx);
    const team = { objectType: 'Group', name: 'Forged team', account: world.victor.agent.account, member: [world.mallory.agent] };
    const sent = statement(world.mallory.agent, world.course, {
      context: { team, instructor: { ...world.victor.agent, name: 'Renamed' } },
    });
    const res = await post(ctx, world.mallory.headers, sent);
    assert.equal(res.statusCode, 200, res.body);
    const agentObject = statement(world.mallory.agent, world.course, {
      verb: EXPERIENCED,
      object: { objectType: 'Group', account: world.victor.agent.account, member: [] },
      result: undefined,
    });
    assert.equal((await post(ctx, world.mallory.headers, agentObject)).statusCode, 200);
    await assertStillAnAgent(ctx, world);
    const victor = await storedActor(ctx, world, world.victor);
    assert.ok(!JSON.stringify(victor).includes('Renamed'), 'no name given by the learner');
    assert.deepEqual(await records(ctx, world, world.victor), []);
    const own = await records(ctx, world, world.mallory);
    assert.deepEqual(
      own.map((record) => [record.activityId, record.status]),
      [[world.course, 'passed']],
    );
  });

  it('still stores its own statements as before, with the API key writing for anyone', async () => {
    const world = await givenWorld(ctx);
    assert.equal(
      (await post(ctx, world.mallory.headers, statement({ ...world.mallory.agent, name: 'Mallory' }, world.course))).statusCode,
      200,
    );
    const byKey = statement(
      { objectType: 'Group', account: { homePage: 'https://teams.example.com', name: 'red' }, member: [world.victor.agent] },
      world.course,
    );
    assert.equal((await post(ctx, world.tenant.xapi, byKey)).statusCode, 200);
    assert.equal((await records(ctx, world, world.victor)).length, 1, 'a tenant-wide principal gives group members their records');
  });
});

describeEachBackend('Voiding by a learner credential or a launch token (issue 24, item 2)', (ctx) => {
  const voiding = (actor: Json, target: string, overrides: Json = {}) => ({
    id: randomUUID(),
    actor,
    verb: VOIDED,
    object: { objectType: 'StatementRef', id: target },
    ...overrides,
  });

  it('refuses to void another learner’s statement (403); the statement stays and so does its record', async () => {
    const world = await givenWorld(ctx);
    const victims = statement(world.victor.agent, world.course);
    assert.equal((await post(ctx, world.victor.headers, victims)).statusCode, 200);
    const res = await post(ctx, world.mallory.headers, voiding(world.mallory.agent, victims.id));
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().details.path, 'statement.object.id');
    assert.equal(await statementById(ctx, world, victims.id), 200, 'not voided');
    assert.equal((await records(ctx, world, world.victor)).length, 1);
  });

  it('refuses to void an id that is not stored (it would void whoever’s statement came with that id later)', async () => {
    const world = await givenWorld(ctx);
    const future = randomUUID();
    assert.equal((await post(ctx, world.mallory.headers, voiding(world.mallory.agent, future))).statusCode, 403);
    assert.equal((await post(ctx, world.victor.headers, statement(world.victor.agent, world.course, { id: future }))).statusCode, 200);
    assert.equal(await statementById(ctx, world, future), 200);
  });

  it('voids its own statements, stored or in the same batch', async () => {
    const world = await givenWorld(ctx);
    const own = statement(world.mallory.agent, world.course);
    assert.equal((await post(ctx, world.mallory.headers, own)).statusCode, 200);
    assert.equal((await post(ctx, world.mallory.headers, voiding(world.mallory.agent, own.id))).statusCode, 200);
    assert.equal(await statementById(ctx, world, own.id, true), 200);
    assert.deepEqual(await records(ctx, world, world.mallory), []);
    const second = statement(world.mallory.agent, world.course);
    const batch = await post(ctx, world.mallory.headers, [second, voiding(world.mallory.agent, second.id)]);
    assert.equal(batch.statusCode, 200, batch.body);
    assert.equal(await statementById(ctx, world, second.id, true), 200);
  });

  it('lets a launch token void only statements of its own activity and registration, whatever its context activities say', async () => {
    const world = await givenWorld(ctx);
    const token = await launchToken(ctx, world, world.mallory);
    const elsewhere = statement(world.mallory.agent, world.otherCourse);
    assert.equal((await post(ctx, world.mallory.headers, elsewhere)).statusCode, 200);
    const victims = statement(world.victor.agent, world.course, { context: { registration: token.registration } });
    assert.equal((await post(ctx, world.tenant.xapi, victims)).statusCode, 200);
    const context = { registration: token.registration, contextActivities: { parent: [{ id: world.course }] } };
    for (const target of [elsewhere.id, victims.id]) {
      const res = await post(ctx, token.headers, voiding(world.mallory.agent, target, { context }));
      assert.equal(res.statusCode, 403, `${target}: ${res.body}`);
    }
    assert.equal(await statementById(ctx, world, elsewhere.id), 200);
    assert.equal(await statementById(ctx, world, victims.id), 200);
    const inScope = statement(world.mallory.agent, world.course, {
      verb: EXPERIENCED,
      result: undefined,
      context: { registration: token.registration },
    });
    assert.equal((await post(ctx, token.headers, inScope)).statusCode, 200);
    assert.equal((await post(ctx, token.headers, voiding(world.mallory.agent, inScope.id, { context }))).statusCode, 200);
    assert.equal(await statementById(ctx, world, inScope.id, true), 200);
  });
});

describeEachBackend('Attachment data by hash (issue 24, item 4)', (ctx) => {
  const postMultipart = (headers: Headers, statements: unknown, parts: Buffer[]) =>
    ctx.app.inject({
      method: 'POST',
      url: '/xapi/statements',
      headers: { ...headers, 'content-type': `multipart/mixed; boundary=${BOUNDARY}` },
      payload: multipart(statements, parts),
    });
  const withAttachments = (headers: Headers, id: string) =>
    ctx.app.inject({ method: 'GET', url: `/xapi/statements?statementId=${id}&attachments=true`, headers });

  it('never answers a learner’s statement with another learner’s data of the hash it named without sending', async () => {
    const world = await givenWorld(ctx);
    const secret = Buffer.from(`victor's private certificate ${randomUUID()}`);
    const victims = statement(world.victor.agent, world.course, { attachments: [attachment(secret)] });
    const sent = await postMultipart(world.victor.headers, victims, [secret]);
    assert.equal(sent.statusCode, 200, sent.body);

    const probe = statement(world.mallory.agent, world.course, {
      attachments: [attachment(secret, { fileUrl: 'https://files.example.com/anything' })],
    });
    const stored = await post(ctx, world.mallory.headers, probe);
    assert.equal(stored.statusCode, 200, 'a fileUrl attachment without data is valid xAPI');
    for (const headers of [world.mallory.headers, world.tenant.xapi]) {
      const read = await withAttachments(headers, probe.id);
      assert.equal(read.statusCode, 200, read.body);
      assert.ok(!read.rawPayload.includes(secret), 'the other learner’s bytes are not in the answer');
    }
    const own = await withAttachments(world.victor.headers, victims.id);
    assert.ok(own.rawPayload.includes(secret), 'the owner still gets them');
  });

  it('answers a learner’s statement with the data it was sent with, and an API key’s reuse by hash as before', async () => {
    const world = await givenWorld(ctx);
    const data = Buffer.from(`mallory's own certificate ${randomUUID()}`);
    const own = statement(world.mallory.agent, world.course, { attachments: [attachment(data)] });
    assert.equal((await postMultipart(world.mallory.headers, own, [data])).statusCode, 200);
    assert.ok((await withAttachments(world.mallory.headers, own.id)).rawPayload.includes(data));
    const reuse = statement(world.victor.agent, world.course, {
      attachments: [attachment(data, { fileUrl: 'https://files.example.com/x' })],
    });
    assert.equal((await post(ctx, world.tenant.xapi, reuse)).statusCode, 200);
    assert.ok(
      (await withAttachments(world.tenant.xapi, reuse.id)).rawPayload.includes(data),
      'tenant-wide principals may reuse stored data',
    );
  });
});

describeEachBackend('A launch token’s activity scope (issue 24, item 5)', (ctx) => {
  it('refuses a statement about another registered course with the launched one as a context activity, and makes no record', async () => {
    const world = await givenWorld(ctx);
    const token = await launchToken(ctx, world, world.mallory);
    const forged = statement(world.mallory.agent, world.otherCourse, {
      context: { registration: token.registration, contextActivities: { parent: [{ id: world.course }] } },
    });
    const res = await post(ctx, token.headers, forged);
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().details.path, 'statement.object.id');
    const made = await records(ctx, world, world.mallory);
    assert.ok(!made.some((record) => record.activityId === world.otherCourse), JSON.stringify(made));
  });

  it('stores statements about its activity, a registered activity below it, and the content’s own unregistered parts', async () => {
    const world = await givenWorld(ctx);
    const token = await launchToken(ctx, world, world.mallory);
    const context = { registration: token.registration, contextActivities: { parent: [{ id: world.course }] } };
    const question = `${world.course}/question-7`;
    for (const objectId of [world.course, world.module, question]) {
      const res = await post(ctx, token.headers, statement(world.mallory.agent, objectId, { context }));
      assert.equal(res.statusCode, 200, `${objectId}: ${res.body}`);
    }
    const made = (await records(ctx, world, world.mallory)).map((record) => record.activityId).sort();
    assert.deepEqual(made, [world.course, question, world.module].sort());
  });
});

describeEachBackend('A launch token’s statements sharing a transaction with others’ (issue 27, item 2)', (ctx) => {
  it('refuses only the forged one of concurrent statement POSTs: the others are stored and make their records', async () => {
    const world = await givenWorld(ctx);
    const [malloryToken, victorToken] = await Promise.all([launchToken(ctx, world, world.mallory), launchToken(ctx, world, world.victor)]);
    const context = (registration: string) => ({ registration, contextActivities: { parent: [{ id: world.course }] } });
    const forged = statement(world.mallory.agent, world.otherCourse, { context: context(malloryToken.registration) });
    const honest = statement(world.mallory.agent, world.module, { context: context(malloryToken.registration) });
    const victors = statement(world.victor.agent, world.course, { context: context(victorToken.registration) });
    const byKey = statement(world.victor.agent, world.module);
    const answers = await Promise.all([
      post(ctx, malloryToken.headers, honest),
      post(ctx, malloryToken.headers, forged),
      post(ctx, victorToken.headers, victors),
      post(ctx, world.tenant.xapi, byKey),
    ]);
    assert.deepEqual(
      answers.map((res) => res.statusCode),
      [200, 403, 200, 200],
      answers.map((res) => res.body).join('\n'),
    );
    assert.equal(answers[1].json().details.path, 'statement.object.id');
    for (const [body, expected] of [
      [honest, 200],
      [forged, 404],
      [victors, 200],
      [byKey, 200],
    ] as const) {
      assert.equal(await statementById(ctx, world, body.id as string), expected, `${body.id}`);
    }
    const mallorys = (await records(ctx, world, world.mallory)).map((record) => record.activityId);
    assert.ok(mallorys.includes(world.module) && !mallorys.includes(world.otherCourse), `no record of the forged statement: ${mallorys}`);
    const victorsRecords = (await records(ctx, world, world.victor)).map((record) => record.activityId).sort();
    assert.deepEqual(victorsRecords, [world.course, world.module].sort());
  });
});

describeEachBackend(
  'A launch token ends with its learner credential (issue 24, item 5)',
  (ctx) => {
    it('is refused once the credential that launched it has expired, though its own lifetime is hours', async () => {
      const world = await givenWorld(ctx);
      const token = await launchToken(ctx, world, world.mallory);
      const launched = Date.now();
      const about = () =>
        ctx.app.inject({
          method: 'GET',
          url: `/xapi/activities/state?${new URLSearchParams({ activityId: world.course, agent: JSON.stringify(world.mallory.agent), stateId: 's', registration: token.registration })}`,
          headers: token.headers,
        });
      assert.equal((await about()).statusCode, 404, 'valid while the credential is');
      // The credential was made before the launch: it has expired 4 s after it.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, launched + 4_200 - Date.now())));
      const refused = await about();
      assert.equal(refused.statusCode, 401, refused.body);
    });
  },
  { credentialTtlS: 4, cacheTtlMs: 60_000 },
);
