import { type Static, Type } from 'typebox';
import { CriteriaSchema } from '../../actors/index.js';
import { CompetencyId } from '../competencies/competency.schemas.js';
import { MAX_EVIDENCE, MAX_ID_LENGTH } from './skills-gap-rules.js';

const LanguageMap = Type.Record(Type.String(), Type.String(), { description: 'The registry entry’s definition name, a language map.' });

/** `agent` or `actorId`, `target`, `jobId`: whose gap, against which job (GET /api/skills-gap, GET /api/recommendations). */
export const personQueryProperties = {
  agent: Type.Optional(
    Type.String({
      description:
        'The person: an xAPI agent (its identifier) as JSON. At most one of agent and actorId; with neither, the learner credential’s own actor (an API key or admin must name one).',
    }),
  ),
  actorId: Type.Optional(
    Type.String({ description: 'The person as `<ifi_property>|<ifi_value>` (account: `account|<homePage>|<name>`).' }),
  ),
  target: Type.Optional(
    Type.Union([Type.Literal('current'), Type.Literal('next')], {
      description:
        '`current` (default): the person’s current job. `next`: the job of the position above theirs (its parentId), through positionJobAttribute.',
    }),
  ),
  jobId: Type.Optional(
    Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, description: 'Any job of the tenant as the target (not with target=next).' }),
  ),
};

export const GapQuery = Type.Object(personQueryProperties, { additionalProperties: false });
export type GapQuery = Static<typeof GapQuery>;

/** The head every person answer starts with: who, which target, which job. */
export const targetHeadProperties = {
  actor: Type.Object({}, { additionalProperties: true, description: 'The person as an xAPI agent: objectType, name, identifier.' }),
  target: Type.Union([Type.Literal('current'), Type.Literal('next'), Type.Literal('job')], {
    description: 'How the job was chosen: the current job, the next position’s, or the jobId asked for.',
  }),
  position: Type.Optional(
    Type.Object(
      { id: Type.String(), attributes: Type.Record(Type.String(), Type.String()) },
      { description: 'With target=next: the position whose job is the target (the parent of the person’s position).' },
    ),
  ),
  job: Type.Object({ id: Type.String(), name: Type.String() }, { description: 'The target job.' }),
};

export const Evidence = Type.Object({
  activityId: Type.String(),
  name: Type.Optional(LanguageMap),
  registration: Type.Optional(Type.String({ description: 'The completion record’s registration, when it has one.' })),
  at: Type.String({
    format: 'date-time',
    description: 'The record’s passedAt when the activity requires success, else its completedAt (UTC).',
  }),
  score: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The record’s score.' })),
});

export const GapResponse = Type.Object({
  ...targetHeadProperties,
  competencies: Type.Array(
    Type.Object({
      id: CompetencyId,
      name: Type.String(),
      description: Type.String(),
      held: Type.Boolean({ description: 'True when a completion record is evidence of it.' }),
      evidence: Type.Array(Evidence, { maxItems: MAX_EVIDENCE, description: `Newest first, at most ${MAX_EVIDENCE}.` }),
    }),
    { description: 'The competencies the job requires, in the job’s order.' },
  ),
  held: Type.Integer({ description: 'How many of them the person holds.' }),
  missing: Type.Integer({ description: 'How many they do not.' }),
});

const GroupId = (description: string) => Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, description });

/**
 * The body of POST /api/skills-gap/group, for /openapi.json: the route reads bodies itself
 * (skills-gap-rules.ts `readGroupBody`, the criteria by the actor search) so that a bad part is
 * named by its JSON pointer; this schema describes, it does not decide.
 */
export const GroupBody = Type.Object(
  {
    people: Type.Union(
      [
        Type.Object(
          { organisationId: GroupId('An organisation entry: the people whose position is it or below it.') },
          { additionalProperties: false },
        ),
        Type.Object({ jobId: GroupId('A job: the people whose current job it is.') }, { additionalProperties: false }),
        Type.Object(
          { criteria: CriteriaSchema },
          { additionalProperties: false, description: 'The actor search’s criteria (docs/actors.md).' },
        ),
      ],
      { description: 'Whom: exactly one way. Only people an import or PUT /api/actors/agents wrote count.' },
    ),
    jobId: Type.Optional(GroupId('One target job for everyone; absent: each person’s current job.')),
  },
  { additionalProperties: false, examples: [{ people: { organisationId: 'CTO' } }, { people: { jobId: 'J-ENG' }, jobId: 'J-LEAD' }] },
);

export const GroupResponse = Type.Object({
  selected: Type.Integer({ description: 'How many people the selection holds.' }),
  withTargetJob: Type.Integer({ description: 'How many of them have a target job (all of them with jobId).' }),
  job: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() }, { description: 'With jobId: the target job.' })),
  competencies: Type.Array(
    Type.Object({
      id: CompetencyId,
      name: Type.String(),
      required: Type.Integer({ description: 'How many selected people’s target job requires it.' }),
      held: Type.Integer({ description: 'How many of those hold it.' }),
      missing: Type.Integer({ description: 'How many of those do not.' }),
    }),
    { description: 'With jobId: that job’s competencies in its order; else every competency a selected person’s job requires, by name.' },
  ),
});
