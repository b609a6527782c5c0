import { Type, type Static } from 'typebox';

/**
 * The shapes of the statements resource. The statement itself is checked by
 * statement-validator.ts (xAPI's rules go beyond JSON Schema); these describe the parameters,
 * which are closed: xAPI 2.0 Part 3 §3.2.s3.b7 wants 400 for any parameter it does not define.
 */

const Iri = (description: string) => Type.String({ description, examples: ['http://adlnet.gov/expapi/verbs/completed'] });
const Uuid = (description: string) => Type.String({ description, examples: ['fd41c918-b88b-4b20-a0a5-a4c32391aaa0'] });
const Timestamp = (description: string) => Type.String({ description, examples: ['2024-05-01T12:00:00.000Z'] });

export const StatementQuery = Type.Object(
  {
    statementId: Type.Optional(Uuid('Fetch this one statement (404 when it is absent or voided).')),
    voidedStatementId: Type.Optional(Uuid('Fetch this one voided statement.')),
    agent: Type.Optional(
      Type.String({
        description: 'JSON of an Agent or identified Group: statements whose actor or object is it (or a Group it is a member of).',
        examples: ['{"mbox":"mailto:learner@example.com"}'],
      }),
    ),
    verb: Type.Optional(Iri('Statements with this verb id.')),
    activity: Type.Optional(Iri('Statements whose object is this activity.')),
    registration: Type.Optional(Uuid('Statements with this context registration.')),
    related_activities: Type.Optional(
      Type.Boolean({ description: "Let `activity` also match context activities and a SubStatement's activities." }),
    ),
    related_agents: Type.Optional(
      Type.Boolean({ description: "Let `agent` also match the authority, instructor, team and a SubStatement's agents." }),
    ),
    since: Type.Optional(Timestamp('Statements stored after this instant (exclusive).')),
    until: Type.Optional(Timestamp('Statements stored at or before this instant.')),
    limit: Type.Optional(Type.Integer({ minimum: 0, description: 'At most this many statements; 0 or absent: the server maximum (100).' })),
    format: Type.Optional(
      Type.Union([Type.Literal('exact'), Type.Literal('ids'), Type.Literal('canonical')], {
        description: 'exact (as stored), ids (identifiers only) or canonical (one language per map, canonical activity definitions).',
      }),
    ),
    attachments: Type.Optional(Type.Boolean({ description: 'Attachment data is not served yet: only false is accepted.' })),
    ascending: Type.Optional(Type.Boolean({ description: 'Oldest stored first.' })),
    cursor: Type.Optional(Type.String({ description: 'Where the next page starts; part of the `more` link, never built by hand.' })),
  },
  { additionalProperties: false },
);
export type StatementQuery = Static<typeof StatementQuery>;

export const PutStatementQuery = Type.Object(
  { statementId: Uuid('The id of the statement in the body.') },
  { additionalProperties: false },
);
export type PutStatementQuery = Static<typeof PutStatementQuery>;

export const PostStatementQuery = Type.Object({}, { additionalProperties: false });

export const Statement = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'An xAPI statement (xAPI 2.0 Part 2 §2.4), as stored: with id, stored, authority, timestamp and version.',
  },
);

export const StatementResult = Type.Object(
  {
    statements: Type.Array(Statement),
    more: Type.String({ description: 'Relative IRL of the next page, or "" when this page is the last.' }),
  },
  { description: 'A page of statements (xAPI 2.0 Part 2 §2.5).' },
);

export const StatementIds = Type.Array(Type.String({ format: 'uuid' }), {
  description: 'The ids of the statements, in the order they were sent.',
});

export const StatementBody = Type.Unknown({
  description: 'A statement, or (POST only) an array of statements. Validated by the LRS against xAPI 1.0.3 / 2.0.0.',
});
