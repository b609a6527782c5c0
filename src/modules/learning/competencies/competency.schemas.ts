import { type Static, Type } from 'typebox';
import { PageQuery } from '../../../platform/http/paged-list.js';

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const CompetencyId = Type.String({
  pattern: UUID_PATTERN,
  description: 'The competency’s id (a UUID), stable across job imports.',
  examples: ['0b6f1f4e-6d1a-4f64-9a55-3f1b2f0d7c11'],
});

/** A competency as the catalogue answers it. */
export const CompetencyBody = Type.Object({
  id: CompetencyId,
  name: Type.String({ description: 'The name, as last spelled by a job import or PUT /api/competencies.', examples: ['TypeScript'] }),
  description: Type.String({ description: 'The last non-empty description given; "" when none was.', examples: ['Writes it'] }),
  jobs: Type.Integer({ description: 'How many jobs of the job architecture require it.' }),
  activities: Type.Integer({ description: 'How many registered activities develop it.' }),
});
export type CompetencyBody = Static<typeof CompetencyBody>;

export const CompetencyListQuery = PageQuery(
  'competencies',
  {
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'Only competencies whose name contains this text, case-insensitively.' }),
    ),
  },
  { additionalProperties: false },
);
export type CompetencyListQuery = Static<typeof CompetencyListQuery>;

export const CompetencyListResponse = Type.Object({
  competencies: Type.Array(CompetencyBody),
  total: Type.Integer({ description: 'How many competencies match, on every page.' }),
});

export const CompetencyItemQuery = Type.Object({ id: CompetencyId }, { additionalProperties: false });
export type CompetencyItemQuery = Static<typeof CompetencyItemQuery>;

/** One competency with what uses it. */
export const CompetencyItemResponse = Type.Object({
  id: CompetencyId,
  name: Type.String(),
  description: Type.String(),
  jobs: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), { description: 'The jobs requiring it, by id.' }),
  activities: Type.Array(Type.Object({ id: Type.String(), name: Type.Optional(Type.Record(Type.String(), Type.String())) }), {
    description: 'The registered activities developing it, by id, with their definition’s name.',
  }),
});

export const CompetencyPutBody = Type.Array(
  Type.Object(
    {
      name: Type.String({ description: 'The name: matched case-insensitively against the catalogue. 1 to 1,000 characters.' }),
      description: Type.Optional(Type.String({ description: 'Replaces the stored description when sent; at most 10,000 characters.' })),
    },
    { additionalProperties: false },
  ),
  { maxItems: 10_000, description: 'Competencies to add, or to update (spelling, description) when the catalogue has the name.' },
);
export type CompetencyPutBody = Static<typeof CompetencyPutBody>;

/** A competency as a write stored it. */
const storedCompetency = {
  id: CompetencyId,
  name: Type.String(),
  description: Type.String(),
  created: Type.Boolean({ description: 'True when this request added it to the catalogue.' }),
};

export const CompetencyPutResponse = Type.Object({
  competencies: Type.Array(Type.Object(storedCompetency), {
    description: 'Every competency sent, as stored, in the order sent.',
  }),
});

/** A CASE string field that exports often send as null when empty. */
const CaseText = Type.Union([Type.String(), Type.Null()]);

export const CasePackageBody = Type.Object(
  {
    CFDocument: Type.Optional(
      Type.Object(
        {
          identifier: Type.Optional(CaseText),
          title: Type.Optional(CaseText),
        },
        { description: 'The framework: its identifier and title are answered back; the rest is not read.' },
      ),
    ),
    CFItems: Type.Array(
      Type.Object(
        {
          identifier: Type.Optional(CaseText),
          fullStatement: Type.String({
            description: 'The statement: the description, and the name when there is no abbreviatedStatement.',
          }),
          abbreviatedStatement: Type.Optional(CaseText),
          humanCodingScheme: Type.Optional(CaseText),
          CFItemType: Type.Optional(CaseText),
        },
        { description: 'One item of the framework; fields not listed here are not read.' },
      ),
      { minItems: 1, maxItems: 10_000, description: 'The items: each one becomes a competency of the catalogue (or updates it).' },
    ),
  },
  {
    description:
      'A competency framework as 1EdTech CASE JSON (a CFPackage). CFAssociations, CFDefinitions and CFRubrics may be present; they are not read.',
  },
);

export const CasePackageQuery = Type.Object(
  {
    itemTypes: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'Comma-separated CFItemType values (case-insensitive): only items of these types are imported.',
        examples: ['Competency,Skill'],
      }),
    ),
  },
  { additionalProperties: false },
);
export type CasePackageQuery = Static<typeof CasePackageQuery>;

export const CasePackageResponse = Type.Object({
  framework: Type.Object(
    { identifier: Type.Optional(Type.String()), title: Type.Optional(Type.String()) },
    { description: 'The CFDocument’s identifier and title, when it had them.' },
  ),
  competencies: Type.Array(
    Type.Object({ ...storedCompetency, caseIdentifier: Type.Optional(Type.String({ description: 'The CFItem’s identifier.' })) }),
    { description: 'The competency each imported CFItem became, as stored, in the order of the CFItems.' },
  ),
  skipped: Type.Integer({ description: 'CFItems left out by itemTypes.' }),
});
