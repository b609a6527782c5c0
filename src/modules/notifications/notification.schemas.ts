import { Type } from 'typebox';
import { PageQuery } from '../../platform/http/paged-list.js';
import { MAX_CHANNEL_LENGTH, MAX_NOTIFICATIONS_PER_REQUEST, MAX_PATTERN_LENGTH } from './notification-rules.js';

/** `activity:attribute:{attributeName}`: any number of them, one per attribute. */
export const ATTRIBUTE_PARAMETER = /^activity:attribute:(.+)$/s;

/**
 * The query of GET /api/notifications (interface 4.6). Two of its names hold `:` and `!`; the
 * `activity:attribute:{name}` parameters are the pattern properties. Anything else: 400.
 */
export const NotificationQuery = PageQuery(
  'notifications',
  {
    actorId: Type.Optional(
      Type.String({
        description: 'Only the notifications of this actor, `<ifi_property>|<ifi_value>` (account: `account|<homePage>|<name>`).',
        examples: ['mbox|mailto:ada@example.com'],
      }),
    ),
    activityId: Type.Optional(
      Type.String({ description: 'Only the notifications about this activity.', examples: ['http://example.com/courses/fire-safety'] }),
    ),
    'activityId!': Type.Optional(Type.String({ description: 'The notifications about every activity but this one.' })),
    'activity:tags': Type.Optional(
      Type.String({
        description: 'Comma-separated registry tags: only notifications about activities having all of them (now, in the registry).',
        examples: ['mandatory,safety'],
      }),
    ),
    channel: Type.Optional(Type.String({ description: 'Only the notifications of this channel.', examples: ['email'] })),
    query: Type.Optional(
      Type.String({
        description:
          `A regular expression (RE2 syntax, at most ${MAX_PATTERN_LENGTH} characters, no backreferences or lookaround): only the notifications ` +
          'of actors one of whose names or identifiers (mbox, mbox_sha1sum, openid, account name) it matches somewhere.',
        examples: ['^Ada', '(?i)@example\\.com$'],
      }),
    ),
    since: Type.Optional(
      Type.String({
        description: 'Only notifications with a later timestamp (ISO 8601 with a zone); an equal one is left out.',
        examples: ['2026-01-31T12:00:00.000Z'],
      }),
    ),
    until: Type.Optional(
      Type.String({
        description: 'Only notifications with this timestamp or an earlier one (ISO 8601 with a zone); not before `since`.',
        examples: ['2026-02-28T12:00:00.000Z'],
      }),
    ),
  },
  {
    additionalProperties: false,
    patternProperties: {
      [ATTRIBUTE_PARAMETER.source.replace('(.+)', '.+')]: Type.String({
        description:
          '`activity:attribute:{attributeName}`: only notifications about activities whose registry attribute has exactly this value (any number of them).',
      }),
    },
  },
);

const JsonObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const Notification = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Set by the server.' }),
    timestamp: Type.String({
      format: 'date-time',
      description: 'When the notification was made, set by the server (the interface sample spells it `tiimestamp`).',
    }),
    actor: JsonObject('The actor as the actor store had it when the notification was made: objectType, name, and its identifier.'),
    activity: Type.Object(
      {
        objectType: Type.Literal('Activity'),
        id: Type.String(),
        definition: JsonObject('The registry’s definition when the notification was made.'),
      },
      { description: 'The activity, with the registry’s definition.' },
    ),
    channel: Type.String(),
    object: JsonObject('The notification’s content, as sent.'),
  },
  { description: 'A notification (interface 2.7).' },
);

export const NotificationInput = Type.Object(
  {
    actor: JsonObject('An xAPI agent (or identified group) with its one identifier; it must be in the actor store.'),
    activity: Type.Object(
      { id: Type.String({ description: 'An activity of the registry.' }), objectType: Type.Optional(Type.Literal('Activity')) },
      { additionalProperties: false, description: 'The activity by id; its definition is copied from the registry.' },
    ),
    channel: Type.String({ minLength: 1, maxLength: MAX_CHANNEL_LENGTH, examples: ['email'] }),
    object: JsonObject('Any JSON object: the content of the notification.'),
  },
  { additionalProperties: false },
);

export const NotificationBody = Type.Union(
  [NotificationInput, Type.Array(NotificationInput, { minItems: 1, maxItems: MAX_NOTIFICATIONS_PER_REQUEST })],
  {
    description: `One notification, or an array of 1 to ${MAX_NOTIFICATIONS_PER_REQUEST}: all are stored, or none.`,
  },
);
