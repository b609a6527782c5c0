import { Type, type Static } from 'typebox';

const Attributes = Type.Record(Type.String(), Type.String(), {
  description: 'Key-value pairs of string data for the entry.',
  examples: [{ title: 'Head of Sales', city: 'Leeds' }],
});

const Id = (description: string, examples: string[]) => Type.String({ minLength: 1, maxLength: 255, description, examples });

/** An organisation entry as imported (interface 2.4). Documentation only: org-unit-rules.ts checks bodies itself, to name every bad entry. */
export const OrgEntryInput = Type.Object(
  {
    id: Id('Unique id of the entry: a position code or a location id (1-255 characters).', ['P-1001']),
    parentId: Type.Optional(
      Type.Union([Id('The id of the parent entry, which must be in the same import; absent or null for a root.', ['P-1000']), Type.Null()]),
    ),
    attributes: Type.Optional(Attributes),
  },
  { additionalProperties: false },
);

export const OrganisationImportBody = Type.Array(OrgEntryInput, {
  description: 'The whole organisation structure: it replaces the stored one. Entries in any order; ids unique; no cycles.',
});

const Competency = Type.Object(
  {
    Name: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'Name of the competency (capitalised exactly so).',
      examples: ['Negotiation'],
    }),
    Description: Type.String({
      maxLength: 10_000,
      description: 'Description of the competency; on import it may be left out (stored as "").',
    }),
  },
  { additionalProperties: false },
);

/** A job as imported (interface 2.5). Documentation only, as above. */
export const JobInput = Type.Object(
  {
    id: Id('Unique id of the job: the job code (1-255 characters).', ['J-SALES-2']),
    name: Type.String({ minLength: 1, maxLength: 1000, description: 'Name of the job.', examples: ['Sales Manager'] }),
    competencies: Type.Optional(Type.Array(Competency)),
    attributes: Type.Optional(Attributes),
  },
  { additionalProperties: false },
);

export const JobsImportBody = Type.Array(JobInput, { description: 'The whole job architecture: it replaces the stored one. Ids unique.' });

export const JobBody = Type.Object({
  id: Type.String(),
  name: Type.String(),
  competencies: Type.Array(Competency),
  attributes: Attributes,
});
export type JobBody = Static<typeof JobBody>;

export const OrganisationQuery = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only this entry and everything below it.' })),
    format: Type.Optional(
      Type.Union([Type.Literal('tree'), Type.Literal('flat')], {
        default: 'tree',
        description:
          '`tree` (default): roots with nested `children`. `flat`: every entry once, in import order, with `parentId`: ' +
          'for clients whose JSON parser limits nesting (a hierarchy thousands of levels deep).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type OrganisationQuery = Static<typeof OrganisationQuery>;

const FlatEntry = {
  id: Type.String(),
  parentId: Type.Union([Type.String(), Type.Null()], { description: 'null for a root.' }),
  attributes: Attributes,
};

/**
 * The answer of GET /api/organisation. The tree is written by organisation.service.ts's
 * iterative `treeJson`, not by Fastify's serializer (which recurses, and a chain of 10,000
 * positions is a valid hierarchy), so this schema documents the shape without nesting it.
 */
export const OrganisationResponse = Type.Union([
  Type.Array(
    Type.Object({
      ...FlatEntry,
      children: Type.Array(Type.Object({}, { additionalProperties: true }), {
        description: 'The entry’s children, in this same shape, in import order.',
      }),
    }),
    { description: 'format=tree: the roots (or the one entry asked for with `id`), each with its children nested.' },
  ),
  Type.Array(Type.Object(FlatEntry), { description: 'format=flat: the entries (or the subtree) in import order.' }),
]);
