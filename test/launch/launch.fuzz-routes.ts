import fc from 'fast-check';
import { hostileText } from '../fuzz/hostile-values.js';
import { base64, param, publicHeaders, route, type RouteFuzzer } from '../fuzz/requests.js';
import { ACTIVITIES, hostileIri } from '../fuzz/xapi-values.js';
import { credentialUsername } from '../fuzz/api-values.js';

/** The route fuzz test's generator (test/fuzz/routes.fuzz.test.ts) of the launch module's route (issue 14): GET /api/activities/launch. */

const launchAuth = fc.oneof(
  fc.tuple(credentialUsername, fc.string({ maxLength: 20 })).map(([username, password]) => `Basic ${base64(`${username}:${password}`)}`),
  fc
    .tuple(fc.uuid(), fc.string({ maxLength: 20 }))
    .map(([session, secret]) => `Basic ${base64(`launch.${'0'.repeat(32)}.${session}:${secret}`)}`),
);
const hostileLaunchAuth = fc.oneof(
  hostileText,
  hostileText.map((text) => `Basic ${base64(text)}`),
  hostileText.map((text) => `Basic ${base64(`${text}:${text}`)}`),
  fc.constantFrom('Basic', 'Basic ', 'Basic !!!', 'Bearer x', `Basic ${base64('launch.zz.zz:x')}`),
);
export const LAUNCH_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/activities/launch': (ctx) =>
    route({
      method: 'GET',
      path: '/api/activities/launch',
      query: {
        activityId: param('activityId', fc.constantFrom(...ACTIVITIES, 'http://example.com/reg/a'), {
          required: true,
          hostile: hostileIri,
          weight: 4,
        }),
        auth: param('auth', launchAuth, { required: true, hostile: hostileLaunchAuth, weight: 4 }),
      },
      headers: publicHeaders(ctx),
    }),
};
