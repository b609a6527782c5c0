import { Type, type Static } from 'typebox';

/** The versions of the completions answer this server speaks, newest last. */
export const COMPLETION_VERSIONS = ['2.0.0'] as const;

export const CompletionQuery = Type.Object(
  {
    agent: Type.Optional(
      Type.String({
        description:
          'The actor: an xAPI agent (its identifier) as JSON. At most one of agent and actorId; with neither, the current actor (a learner credential’s or launch token’s own; an API key or admin must name one).',
      }),
    ),
    actorId: Type.Optional(
      Type.String({ description: 'The actor as `<ifi_property>|<ifi_value>` (account: `account|<homePage>|<name>`).' }),
    ),
    activityId: Type.Optional(Type.String({ description: 'Only the records of this activity.' })),
    status: Type.Optional(
      Type.String({ description: 'Comma-separated: any of `in-progress`, `completed`, `passed`, `failed`.', examples: ['passed,failed'] }),
    ),
    expand: Type.Optional(
      Type.String({
        description: '`hierarchy` (with activityId): each record gets the records of the activities below it in `children`, recursively.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CompletionHeaders = Type.Object({
  'accept-version': Type.Optional(
    Type.String({ description: "The answer's version: `2.0.0` (missing: the newest).", examples: ['2.0.0'] }),
  ),
});

export const CompletionRecord = Type.Object({
  actor: Type.Object({}, { additionalProperties: true, description: 'The actor, with its identifier only.' }),
  activityId: Type.String(),
  registration: Type.Optional(Type.String({ format: 'uuid' })),
  status: Type.Union([Type.Literal('in-progress'), Type.Literal('completed'), Type.Literal('passed'), Type.Literal('failed')]),
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'The highest progress reported, in percent.' })),
  score: Type.Optional(
    Type.Object({}, { additionalProperties: true, description: 'The `result.score` of the latest statement that had one.' }),
  ),
  firstAt: Type.String({ format: 'date-time' }),
  lastAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'The earliest `timestamp` of the statements that complete the activity (verb `completed` or `passed`, or `result.completion` or `result.success` true), in UTC; absent when none does.',
      examples: ['2026-01-01T10:30:00.000Z'],
    }),
  ),
  passedAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'The earliest `timestamp` of the statements that pass it (verb `passed`, or `result.success` true), in UTC; absent when none does.',
      examples: ['2026-01-01T10:30:00.000Z'],
    }),
  ),
  statementIds: Type.Array(Type.String({ format: 'uuid' })),
  children: Type.Optional(
    Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: 'With expand=hierarchy: the records of the child activities, in this same shape.',
    }),
  ),
});

export type CompletionQuery = Static<typeof CompletionQuery>;
