import { type Static, Type } from 'typebox';
import { PageQuery } from '../../../platform/http/paged-list.js';
import { MAX_ACTIVITIES, MAX_ACTOR_IDS, MAX_ENTRY_ID_LENGTH, MAX_NAME_LENGTH, STATUSES } from './assignment-rules.js';

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const AssignmentId = Type.String({
  pattern: UUID_PATTERN,
  description: 'The assignment’s id (a UUID).',
  examples: ['5f0c1b7e-2d4a-4c5e-9a61-0b3c2d1e4f50'],
});

const DateTime = (description: string) => Type.String({ format: 'date-time', description, examples: ['2026-12-31T17:00:00.000Z'] });

/** A status, as the answers, the counts and the `status` filter name it (docs/learning.md, "Status"). */
const Status = Type.Unsafe<(typeof STATUSES)[number]>({
  type: 'string',
  enum: [...STATUSES],
  description: 'assigned, inProgress, completed, completedLate or overdue (docs/learning.md, "Status").',
});

/** Who an assignment takes: exactly one of the four (docs/learning.md, "Who is assigned"). */
const People = Type.Object(
  {
    actorIds: Type.Optional(
      Type.Array(Type.String({ description: '`<ifi_property>|<ifi_value>` (account: `account|<homePage>|<name>`).' }), {
        minItems: 1,
        maxItems: MAX_ACTOR_IDS,
        description: 'Static: these actors of the tenant, each once. Answered in their canonical form.',
        examples: [['account|https://hr.example.com|E1001']],
      }),
    ),
    criteria: Type.Optional(
      Type.Unknown({
        description:
          'Dynamic: the people (imported or written with PUT /api/actors/agents) these criteria match, in the language of POST /api/actors/search (ActorCriteria; docs/actors.md).',
        examples: [{ field: 'attributes.city', op: 'eq', value: 'London' }],
      }),
    ),
    organisationId: Type.Optional(
      Type.String({
        maxLength: MAX_ENTRY_ID_LENGTH,
        description: 'Dynamic: the people of this organisation entry and of every entry below it.',
        examples: ['CTO'],
      }),
    ),
    jobId: Type.Optional(
      Type.String({ maxLength: MAX_ENTRY_ID_LENGTH, description: 'Dynamic: the people linked to this job.', examples: ['J-ENG'] }),
    ),
  },
  { additionalProperties: false, description: 'Exactly one of actorIds, criteria, organisationId, jobId.' },
);

/** The body of POST /api/assignments and PUT /api/assignments/item (checked by assignment-rules.ts; this describes it). */
export const AssignmentBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: MAX_NAME_LENGTH,
      description: 'Its name: 1 to 1,000 characters.',
      examples: ['Fire safety 2027'],
    }),
    activityIds: Type.Array(Type.String(), {
      minItems: 1,
      maxItems: MAX_ACTIVITIES,
      uniqueItems: true,
      description: 'The activities assigned: registered activities of the tenant (PUT /api/activities), 1 to 1,000, each once.',
      examples: [['https://example.com/courses/fire-safety']],
    }),
    people: People,
    dueAt: Type.Optional(
      Type.Union([DateTime('When the activities are due: an ISO 8601 date-time with its offset.'), Type.Null()], {
        description: 'When the activities are due (an ISO 8601 date-time with its offset); null or absent: never.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Counts = Type.Object(
  {
    assigned: Type.Integer(),
    inProgress: Type.Integer(),
    completed: Type.Integer(),
    completedLate: Type.Integer(),
    overdue: Type.Integer(),
  },
  { description: 'The people of the assignment (members and former members) by their status, each person counted once.' },
);

const Summary = {
  id: AssignmentId,
  name: Type.String(),
  activityIds: Type.Array(Type.String(), { description: 'In the order given.' }),
  selection: Type.Unsafe<'actorIds' | 'criteria' | 'organisationId' | 'jobId'>({
    type: 'string',
    enum: ['actorIds', 'criteria', 'organisationId', 'jobId'],
    description: 'How its people are chosen.',
  }),
  dynamic: Type.Boolean({ description: 'True when its people follow the people’s data (criteria, organisationId, jobId).' }),
  dueAt: Type.Optional(DateTime('When its activities are due (UTC); absent: never.')),
  createdAt: DateTime('When it was created (UTC).'),
  updatedAt: DateTime('When it was last created or replaced (UTC).'),
  members: Type.Integer({ description: 'How many people it takes now (for a scoped credential: of the people it reaches).' }),
  scope: Type.Optional(
    Type.Object(
      { organisationId: Type.String({ examples: ['CTO'] }) },
      {
        description:
          'The organisation entry it is limited to, set when a scoped admin or API key made it: it takes only people placed in that entry or below it. Absent: the whole tenant.',
      },
    ),
  ),
};

/** One assignment in the list. */
export const AssignmentSummary = Type.Object(Summary);

/** One assignment, whole: what POST, PUT and GET item answer. */
export const AssignmentResponse = Type.Object({
  ...Summary,
  people: People,
  formerMembers: Type.Integer({ description: 'People who stopped matching and keep what they had done.' }),
  counts: Counts,
});

export const AssignmentListQuery = PageQuery('assignments', {}, { additionalProperties: false });

export const AssignmentListResponse = Type.Object({
  assignments: Type.Array(AssignmentSummary, { description: 'A page of the tenant’s assignments, newest first.' }),
  total: Type.Integer({ description: 'How many assignments the tenant has (for a scoped credential: that it sees).' }),
});

export const AssignmentItemQuery = Type.Object({ id: AssignmentId }, { additionalProperties: false });
export type AssignmentItemQuery = Static<typeof AssignmentItemQuery>;

const ActivityState = Type.Object({
  activityId: Type.String(),
  status: Status,
  startedAt: Type.Optional(DateTime('The earliest statement timestamp of the person’s records of it.')),
  completedAt: Type.Optional(
    DateTime('When it counted as completed: the earliest completedAt of the person’s records of it; passedAt when it requires success.'),
  ),
});

export const AssignmentPeopleQuery = PageQuery(
  'people',
  {
    id: AssignmentId,
    status: Type.Optional(
      Type.String({
        description: 'Only people of these statuses, comma-separated: assigned, inProgress, completed, completedLate, overdue.',
        examples: ['overdue,assigned'],
      }),
    ),
  },
  { additionalProperties: false },
);
export type AssignmentPeopleQuery = Static<typeof AssignmentPeopleQuery>;

const Actor = Type.Object(
  {},
  { additionalProperties: true, description: 'The actor: objectType, its name when it has one, its identifier.' },
);

export const AssignmentPeopleResponse = Type.Object({
  people: Type.Array(
    Type.Object({
      actorId: Type.String({ description: '`<ifi_property>|<ifi_value>`.' }),
      actor: Actor,
      status: Status,
      joinedAt: DateTime('When they (last) joined.'),
      leftAt: Type.Optional(DateTime('When they stopped matching: a former member, keeping the activities they had done.')),
      activities: Type.Array(ActivityState, {
        description: 'Each activity of the assignment, in its order; a former member’s: those kept.',
      }),
    }),
    { description: 'A page of the assignment’s people, in actorId order (bytes).' },
  ),
  total: Type.Integer({ description: 'How many of its people match the filter.' }),
});

export const PersonAssignmentsQuery = Type.Object(
  {
    agent: Type.Optional(
      Type.String({
        description:
          'The person: an xAPI agent (its identifier) as JSON. At most one of agent and actorId; with neither, the current person (a learner credential’s or launch token’s own; an API key or admin must name one).',
      }),
    ),
    actorId: Type.Optional(Type.String({ description: 'The person as `<ifi_property>|<ifi_value>`.' })),
  },
  { additionalProperties: false },
);
export type PersonAssignmentsQuery = Static<typeof PersonAssignmentsQuery>;

export const PersonAssignmentsResponse = Type.Object({
  assignments: Type.Array(
    Type.Object({
      id: AssignmentId,
      name: Type.String(),
      dueAt: Type.Optional(DateTime('When its activities are due.')),
      status: Status,
      joinedAt: DateTime('When the person (last) joined it.'),
      leftAt: Type.Optional(DateTime('When they stopped matching.')),
      activities: Type.Array(ActivityState),
    }),
    { description: 'Every assignment of the person, newest first.' },
  ),
});
