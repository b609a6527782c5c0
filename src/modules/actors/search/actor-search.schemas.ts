import { Type } from 'typebox';
import {
  ATTRIBUTE_FIELD_PREFIXES,
  FIXED_FIELDS,
  MAX_CRITERIA_DEPTH,
  MAX_CRITERIA_NODES,
  MAX_IN_VALUES,
  MAX_TEXT_LENGTH,
  OPERATORS,
} from './actor-search-compiler.js';
import { ACTOR_KINDS } from '../actor.repository.js';

/**
 * The criteria of `POST /api/actors/search` as JSON Schema, for `/openapi.json`. The route
 * checks bodies itself (actor-search-compiler.ts `readCriteria`), so that a bad node answers
 * `actors.invalid_criteria` with its JSON pointer; this schema describes, it does not decide.
 */
const Condition = Type.Object(
  {
    field: Type.String({
      description:
        `One of ${FIXED_FIELDS.join(', ')}, or a name after one of ${ATTRIBUTE_FIELD_PREFIXES.join(', ')} ` +
        '(any attribute). Fields under organisation.ancestors and job.competencies match when any ancestor or competency does.',
      maxLength: MAX_TEXT_LENGTH,
      examples: ['attributes.department', 'organisation.ancestors.id', 'job.competencies.Name'],
    }),
    op: Type.Union(
      OPERATORS.map((op) => Type.Literal(op)),
      { description: 'lt/lte/gt/gte compare numbers (a number value) or instants (an ISO 8601 date or date-time value).' },
    ),
    value: Type.Optional(
      Type.Union(
        [
          Type.String({ maxLength: MAX_TEXT_LENGTH }),
          Type.Number(),
          Type.Boolean(),
          Type.Array(Type.String({ maxLength: MAX_TEXT_LENGTH }), { minItems: 1, maxItems: MAX_IN_VALUES }),
        ],
        {
          description:
            'A string (eq, ne, contains, startsWith), an array of strings (in), a boolean or nothing (exists), a number or a date (lt, lte, gt, gte).',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'A condition on one field of the actor or of its enrichment.' },
);

export const Criteria = Type.Cyclic(
  {
    ActorCriteria: Type.Union(
      [
        Condition,
        Type.Object(
          { and: Type.Array(Type.Ref('ActorCriteria'), { minItems: 1 }) },
          { additionalProperties: false, description: 'Every one matches.' },
        ),
        Type.Object(
          { or: Type.Array(Type.Ref('ActorCriteria'), { minItems: 1 }) },
          { additionalProperties: false, description: 'At least one matches.' },
        ),
        Type.Object(
          { not: Type.Ref('ActorCriteria') },
          { additionalProperties: false, description: 'Does not match (an absent value does not match either way round).' },
        ),
        Type.Object({}, { additionalProperties: false, description: 'Matches every actor.' }),
      ],
      {
        description: `Criteria nest at most ${MAX_CRITERIA_DEPTH} levels deep and hold at most ${MAX_CRITERIA_NODES} nodes (docs/actors.md, "Searching actors").`,
      },
    ),
  },
  'ActorCriteria',
);

export const SearchBody = Type.Object(
  { criteria: Criteria },
  {
    additionalProperties: false,
    examples: [
      {
        criteria: {
          and: [
            { field: 'attributes.department', op: 'eq', value: 'Sales' },
            { field: 'attributes.country', op: 'in', value: ['NO', 'SE'] },
            { field: 'organisation.ancestors.id', op: 'eq', value: 'P-100' },
          ],
        },
      },
    ],
  },
);

/** `kind` of GET /api/actors and POST /api/actors/search: people unless the caller asks for the authorities. */
export const ActorKindParameter = Type.Union(
  ACTOR_KINDS.map((kind) => Type.Literal(kind)),
  {
    default: 'people',
    description:
      'people (default): imported, upserted, provisioned or named by a statement, and not deactivated; authorities: the credentials statements name as their authority (API keys, admins, learner credentials, launch sessions), listed for audit; deactivated: the people an identity system deactivated (docs/identity.md); all: every actor.',
  },
);

export const SearchQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'At most this many actors (1-1000, default 100).' }),
  ),
  skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Matching actors to pass over.' })),
  kind: Type.Optional(ActorKindParameter),
});

/** An actor as GET /api/actors shows it (interface 2.6), agent or group. */
export const FoundActor = Type.Object(
  {
    // A plain string enum, not a union of literals: the serializer checks each branch of an anyOf per actor.
    objectType: Type.Unsafe<'Agent' | 'Group'>({ type: 'string', enum: ['Agent', 'Group'] }),
    name: Type.Optional(Type.String()),
    mbox: Type.Optional(Type.String()),
    mbox_sha1sum: Type.Optional(Type.String()),
    openid: Type.Optional(Type.String()),
    account: Type.Optional(Type.Object({ homePage: Type.String(), name: Type.String() })),
    member: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    extensions: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { description: 'An actor (interface 2.6); docs/imports.md, "Actors", describes the extensions.' },
);

export const SearchResponse = Type.Object({
  actors: Type.Array(FoundActor, { description: 'The page of matching actors, in agent-key order.' }),
  total: Type.Integer({ description: 'How many actors match, all pages together.' }),
});

export const AttributeSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('string'), Type.Literal('number'), Type.Literal('boolean')]),
    format: Type.Optional(Type.Union([Type.Literal('date'), Type.Literal('date-time'), Type.Literal('email')])),
    enum: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
  },
  { description: 'A JSON Schema of the attribute’s values.' },
);

export const AttributeCatalogue = Type.Object({
  attributes: Type.Array(
    Type.Object({
      name: Type.String(),
      count: Type.Integer({ description: 'How many actors carry the attribute.' }),
      schema: AttributeSchema,
    }),
    { description: 'Every attribute name on the tenant’s actors, by name.' },
  ),
});
