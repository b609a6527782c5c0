import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from '../support/build-test-app.js';
import type { GivenTenant } from '../support/given.js';

/** The provisioning flow of interface 5.3 for the launch tests (launch.test.ts, launch-browser.test.ts). */

export const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
export const PASSWORD = 'a random learner password';

type Agent = Record<string, unknown>;

/** The content server: any path answers a small HTML page, as a course's index.html would. */
export async function startContentServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>Course</title><p>The course.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface LaunchFixture {
  tenant: GivenTenant;
  agent: Agent;
  username: string;
  activityId: string;
  launchUrl: string;
  /** The launch URL's path and query, for inject (`/api/activities/launch?activityId=…&auth=…`). */
  launchPath: string;
}

/**
 * The provisioning flow of interface 5.3: an actor (a user import), a learner credential for
 * it, and an activity with a launchUrl at `contentOrigin`.
 */
export async function givenLaunch(ctx: TestContext, contentOrigin: string): Promise<LaunchFixture> {
  const tenant = await ctx.given.tenant();
  const email = `learner-${randomBytes(3).toString('hex')}@example.com`;
  const imported = await ctx.app.inject({
    method: 'POST',
    url: '/api/import/users',
    headers: tenant.headers,
    payload: { users: [{ name: 'Lea', attributes: { email } }] },
  });
  assert.equal(imported.statusCode, 200, imported.body);
  const agent = { account: { homePage: `http://${tenant.name}.localhost`, name: email } };
  const username = `u-${randomBytes(8).toString('hex')}`;
  const created = await ctx.app.inject({
    method: 'POST',
    url: '/api/auth/basic',
    headers: tenant.headers,
    payload: { username, password: PASSWORD, data: { actor: agent } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const activityId = `http://example.com/courses/${randomBytes(3).toString('hex')}`;
  const launchUrl = `${contentOrigin}/course/index.html?lang=en`;
  const registered = await ctx.app.inject({
    method: 'PUT',
    url: '/api/activities',
    headers: tenant.headers,
    payload: [
      { id: activityId, definition: { name: { 'en-US': 'The course' } }, launchUrl },
      { id: `${activityId}/other`, definition: { name: { 'en-US': 'Another course' } }, launchUrl: `${contentOrigin}/other/` },
      { id: `${activityId}/no-content`, definition: { name: { 'en-US': 'A classroom session' } } },
    ],
  });
  assert.ok(registered.statusCode < 300, registered.body);
  const launchPath = `/api/activities/launch?${new URLSearchParams({ activityId, auth: basic(username, PASSWORD) })}`;
  return { tenant, agent, username, activityId, launchUrl, launchPath };
}
