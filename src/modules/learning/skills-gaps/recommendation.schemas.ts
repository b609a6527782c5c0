import { type Static, Type } from 'typebox';
import { CompetencyId } from '../competencies/competency.schemas.js';
import { DEFAULT_RECOMMENDATIONS, MAX_RECOMMENDATIONS } from './skills-gap-rules.js';
import { personQueryProperties, targetHeadProperties } from './skills-gap.schemas.js';

export const RecommendationQuery = Type.Object(
  {
    ...personQueryProperties,
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RECOMMENDATIONS,
        default: DEFAULT_RECOMMENDATIONS,
        description: `At most this many activities (1-${MAX_RECOMMENDATIONS}, default ${DEFAULT_RECOMMENDATIONS}).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type RecommendationQuery = Static<typeof RecommendationQuery>;

const CompetencyRef = Type.Object({ id: CompetencyId, name: Type.String() });

export const RecommendationResponse = Type.Object({
  ...targetHeadProperties,
  missing: Type.Array(CompetencyRef, { description: 'The competencies of the job the person does not hold, in the job’s order.' }),
  recommendations: Type.Array(
    Type.Object({
      activity: Type.Object({
        id: Type.String(),
        name: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'The definition name, a language map.' })),
        launchUrl: Type.Optional(Type.String()),
      }),
      covers: Type.Array(CompetencyRef, { description: 'The missing competencies it develops, in the job’s order: why it is here.' }),
      peers: Type.Integer({ description: 'How many people of the person’s current job completed it.' }),
    }),
    {
      description:
        'Registered activities developing a missing competency that the person has not completed: most competencies covered first, then most peers, then by id.',
    },
  ),
});
