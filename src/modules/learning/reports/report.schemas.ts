import { type Static, Type } from 'typebox';
import { AssignmentId } from '../assignments/assignment.schemas.js';

/** The filters every report takes: which people (an organisation subtree, a job) and which activity. */
const peopleFilters = {
  organisationId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'Only the people whose position is this organisation entry or one below it (404 when the tenant has no such entry).',
      examples: ['CTO'],
    }),
  ),
  jobId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'Only the people whose current job is this job (404 when the tenant has no such job).',
      examples: ['J-ENG'],
    }),
  ),
};

const activityId = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 2000,
    description: 'Only this activity (its IRI), registered or not.',
    examples: ['https://example.com/courses/fire-safety'],
  }),
);

/** The query of the completion reports: people, and the activity set (`activityId`, else `tag`, else every registered activity). */
export const CompletionReportQuery = Type.Object(
  {
    ...peopleFilters,
    activityId,
    tag: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Without activityId: only the registered activities with this tag (else every registered activity).',
        examples: ['mandatory'],
      }),
    ),
  },
  { additionalProperties: false },
);
export type CompletionReportQuery = Static<typeof CompletionReportQuery>;

/** The largest page of entries a report by entry answers, and the page it answers when `limit` is not sent. */
export const UNIT_PAGE = { max: 10_000, default: 1_000 } as const;

/** `depth`, `limit` and `skip` of a report per organisation entry (docs/learning.md, "Paging and depth"). */
const unitPaging = {
  depth: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000,
      description:
        'Only the entries at most this many levels below the top of the selection (organisationId, else the roots): 0 the top alone, 1 with its children. The figures still roll up everything below.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: UNIT_PAGE.max,
      default: UNIT_PAGE.default,
      description: `At most this many entries (1-${UNIT_PAGE.max}, default ${UNIT_PAGE.default}); X-Total-Count says how many there are, Link where the next page is.`,
    }),
  ),
  skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Entries to pass over.' })),
};

/** The query of the completion report by entry: the completion reports' filters, then which entries (depth) and the page. */
export const UnitReportQuery = Type.Object({ ...CompletionReportQuery.properties, ...unitPaging }, { additionalProperties: false });
export type UnitReportQuery = Static<typeof UnitReportQuery>;

const Rate = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
  description: 'completed / (people × activities); null when there is no pair (no people, or no activity).',
});

const Figures = (of: string) =>
  Type.Object(
    {
      people: Type.Integer({ description: `The people ${of}.` }),
      completed: Type.Integer({ description: 'Their completed (person, activity) pairs.' }),
      rate: Rate,
    },
    { description: `The people ${of}, their completions of the activity set and the rate.` },
  );

/** How a report's figures were read. */
const CountsRead = Type.Union([Type.Literal('kept'), Type.Literal('recounted')], {
  description:
    'kept: read from the counts kept as the writes happen; recounted: counted from the records now, because a filter asks what the kept counts do not hold (tag, activityId) or they are being rebuilt (docs/learning.md, "Counts kept as the writes happen"). The figures are the same either way.',
});

export const UnitReport = Type.Object({
  activities: Type.Integer({ description: 'How many activities the rates are over.' }),
  counts: CountsRead,
  units: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The organisation entry.' }),
      parentId: Type.Union([Type.String(), Type.Null()], { description: 'Its parent; null for a root of the structure.' }),
      direct: Figures('placed directly in this entry'),
      subtree: Figures('placed in this entry or any entry below it (the roll-up)'),
      attributes: Type.Record(Type.String(), Type.String(), { description: 'The entry’s attributes, as imported.' }),
    }),
    { description: 'Every entry of the selection (the subtree of organisationId, else the whole structure), in import order.' },
  ),
});

export const JobReport = Type.Object({
  activities: Type.Integer({ description: 'How many activities the rates are over.' }),
  counts: CountsRead,
  jobs: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      people: Type.Integer({ description: 'The selected people whose current job this is.' }),
      completed: Type.Integer({ description: 'Their completed (person, activity) pairs.' }),
      rate: Rate,
    }),
    { description: 'Every job (or the one jobId names), in import order.' },
  ),
});

const Count = (description: string) => Type.Integer({ description });

export const ActivityReport = Type.Object({
  people: Type.Integer({ description: 'How many people the selection holds.' }),
  activities: Type.Array(
    Type.Object({
      id: Type.String(),
      registered: Type.Boolean({ description: 'Whether the activity is in the registry.' }),
      requiresSuccess: Type.Boolean({ description: 'Whether only passing completes it (the registry entry’s requiresSuccess).' }),
      attempted: Count('People with a completion record of it, of any status.'),
      completed: Count('People who completed it (passed it, when it requires success).'),
      passed: Count('People who passed it.'),
      averageScore: Type.Union([Type.Number(), Type.Null()], {
        description: 'The mean of the people’s score.scaled (each person’s latest), over those who have one; null when none has.',
      }),
      scores: Count('How many people the average is over.'),
      medianSecondsToComplete: Type.Union([Type.Number(), Type.Null()], {
        description:
          'The median, over the people who completed it, of the seconds from their first statement to their completion; null when none did.',
      }),
      name: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'The registry entry’s definition name.' })),
    }),
    { description: 'The activity set (activityId, the registered activities with the tag, or every registered one), in id order.' },
  ),
});

export const ActivityOverTimeQuery = Type.Object(
  {
    from: Type.String({
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
      description: 'The first day (UTC), YYYY-MM-DD.',
      examples: ['2026-11-01'],
    }),
    to: Type.String({
      pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
      description: 'The last day (UTC), YYYY-MM-DD: from to at most 366 days after from.',
      examples: ['2026-11-30'],
    }),
    interval: Type.Optional(
      Type.Union([Type.Literal('day'), Type.Literal('week')], {
        default: 'day',
        description: '`day`, or `week` (ISO weeks, Monday to Sunday: the range widens to whole weeks).',
      }),
    ),
    ...peopleFilters,
    activityId,
  },
  { additionalProperties: false },
);
export type ActivityOverTimeQuery = Static<typeof ActivityOverTimeQuery>;

export const ActivityOverTimeReport = Type.Object({
  from: Type.String({ description: 'The first day counted (with weeks, the Monday of from’s week).' }),
  to: Type.String({ description: 'The last day counted (with weeks, the Sunday of to’s week).' }),
  interval: Type.Union([Type.Literal('day'), Type.Literal('week')]),
  verbs: Type.Array(Type.String(), { description: 'Every verb counted in the range, in code-point order.' }),
  intervals: Type.Array(
    Type.Object({
      start: Type.String({ description: 'The interval’s first day.' }),
      end: Type.String({ description: 'Its last day.' }),
      statements: Count('Statements (not voided, not voiding) whose timestamp falls in it.'),
      activeLearners: Count('Distinct learners with such a statement.'),
      verbs: Type.Record(Type.String(), Type.Integer(), { description: 'Statements per verb id; every verb of the range, 0 included.' }),
    }),
    { description: 'Every interval of the range, in order.' },
  ),
});

export const AssignmentComplianceQuery = Type.Object(
  {
    ...peopleFilters,
    activityId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'Only the pairs of this assigned activity (its IRI).',
        examples: ['https://example.com/courses/fire-safety'],
      }),
    ),
    /** Only the pairs of this assignment (404 when the tenant has no such assignment). */
    assignmentId: Type.Optional(AssignmentId),
    ...unitPaging,
  },
  { additionalProperties: false },
);
export type AssignmentComplianceQuery = Static<typeof AssignmentComplianceQuery>;

const Compliance = (of: string) =>
  Type.Object(
    {
      onTime: Count('Pairs completed at or before the due date, or with no due date.'),
      late: Count('Pairs completed after the due date.'),
      overdue: Count('Pairs not completed whose due date has passed.'),
      inProgress: Count('Pairs not completed, not overdue, with a completion record (a statement about the activity counted).'),
      notStarted: Count('Pairs not completed, not overdue, without a record.'),
      total: Count('Every pair: the sum of the five.'),
      complianceRate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
        description: 'onTime / total; null when there is no pair.',
      }),
    },
    { description: `The (person, assignment activity) pairs of the assignments' members ${of}, by compliance.` },
  );

export const ComplianceReport = Type.Object({
  counts: CountsRead,
  units: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The organisation entry.' }),
      parentId: Type.Union([Type.String(), Type.Null()], { description: 'Its parent; null for a root of the structure.' }),
      direct: Compliance('placed directly in this entry'),
      subtree: Compliance('placed in this entry or any entry below it (the roll-up)'),
      attributes: Type.Record(Type.String(), Type.String(), { description: 'The entry’s attributes, as imported.' }),
    }),
    { description: 'Every entry of the selection (the subtree of organisationId, else the whole structure), in import order.' },
  ),
});
