import fc from 'fast-check';
import { DEEP_ARRAY, DEEP_OBJECT, hostileDate, hostileJson, hostileText, toJson, validDate } from '../fuzz/hostile-values.js';
import { apiHeaders, body, JSON_TYPES, mutated, param, part, route, type RouteFuzzer } from '../fuzz/requests.js';
import { ACTIVITIES, actorIdParameter, hostileActorId, hostileAgent, hostileIri, MBOXES, validAgent } from '../fuzz/xapi-values.js';
import { pageQuery, registryId } from '../fuzz/api-values.js';

/** Notifications (issue 16): GET with every filter of interface 4.6, POST of one or an array. */
const notificationPattern = fc.constantFrom('^learner', 'example\\.com$', '(?i)LEARNER', '.', '[a-z]+@');
const hostilePattern = fc.constantFrom(
  '(a+)+$',
  '(a|aa)+b',
  '(',
  '(a)\\1',
  '(?=a)',
  '(?<!a)b',
  '\\',
  '[',
  'a{1001}',
  'x'.repeat(257),
  '\\p{Nope}',
);
const validNotification = fc.record({
  actor: validAgent,
  activity: fc.oneof(
    registryId.map((id) => ({ id })),
    registryId.map((id) => ({ id, objectType: 'Activity' })),
  ),
  channel: fc.constantFrom('email', 'sms', 'push'),
  object: fc.dictionary(fc.constantFrom('text', 'url', 'n'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
});
const hostileNotification: fc.Arbitrary<unknown> = mutated({
  actor: part(validAgent, hostileAgent),
  activity: part(
    registryId.map((id) => ({ id })),
    fc.oneof(
      hostileIri.map((id) => ({ id })),
      hostileJson,
      fc.constant({ id: ACTIVITIES[0], definition: {} }),
    ),
  ),
  channel: part(fc.constant('email'), fc.oneof(hostileText, hostileJson)),
  object: part(fc.constant({}), hostileJson),
  timestamp: part(fc.constant(undefined), fc.oneof(hostileDate, hostileJson)),
});
const notificationsBody = body(
  fc.oneof(validNotification, fc.array(validNotification, { minLength: 1, maxLength: 3 })).map(toJson),
  JSON_TYPES,
  fc.oneof(
    hostileNotification.map(toJson),
    fc.array(fc.oneof(validNotification, hostileNotification), { minLength: 0, maxLength: 3 }).map(toJson),
    // Nested deeper than JSON.stringify can write: spliced in as text.
    fc
      .constantFrom(DEEP_OBJECT, DEEP_ARRAY)
      .map((deep) => `{"actor":{"mbox":"${MBOXES[0]}"},"activity":{"id":"${ACTIVITIES[0]}"},"channel":"email","object":{"a":${deep}}}`),
    fc.constant(
      toJson(
        Array.from({ length: 1001 }, () => ({ actor: { mbox: MBOXES[0] }, activity: { id: ACTIVITIES[0] }, channel: 'email', object: {} })),
      ),
    ),
  ),
);
export const NOTIFICATIONS_ROUTE_FUZZERS: Record<string, RouteFuzzer> = {
  'GET /api/notifications': (ctx) =>
    route({
      method: 'GET',
      path: '/api/notifications',
      query: {
        actorId: param('actorId', actorIdParameter, { hostile: hostileActorId }),
        activityId: param('activityId', registryId, { hostile: hostileIri }),
        notActivityId: param('activityId!', registryId, { hostile: hostileIri }),
        tags: param('activity:tags', fc.constantFrom('mandatory', 'mandatory,safety', ' safety '), {
          hostile: fc.constantFrom(',', '', ' , ,'),
        }),
        attribute: param('activity:attribute:owner', fc.constantFrom('HS', 'IT'), { hostile: hostileText }),
        oddAttribute: param('activity:attribute:', fc.constant('x'), { rare: true }),
        channel: param('channel', fc.constantFrom('email', 'sms')),
        query: param('query', notificationPattern, { hostile: hostilePattern }),
        since: param('since', validDate, { hostile: hostileDate }),
        until: param('until', validDate, { hostile: hostileDate }),
        ...pageQuery(),
      },
      headers: apiHeaders(ctx, false),
    }),
  'POST /api/notifications': (ctx) =>
    route({ method: 'POST', path: '/api/notifications', headers: apiHeaders(ctx, false), body: notificationsBody }),
};
