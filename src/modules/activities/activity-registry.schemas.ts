import { Type, type Static } from 'typebox';
import { PageQuery } from '../../platform/http/paged-list.js';
import { MAX_IRI_BYTES } from '../../kernel/limits.js';

const Iri = (description: string, examples: string[]) => Type.String({ minLength: 1, description, examples });

const LanguageMap = (description: string, examples: Record<string, string>[]) =>
  Type.Record(Type.String(), Type.String(), { description, examples });

/** An xAPI activity definition as the registry keeps it (xAPI 2.0 Part 2 §2.4.4.1, without the interaction properties). */
export const RegistryDefinition = Type.Object(
  {
    name: Type.Optional(
      LanguageMap('The activity’s name by RFC 5646 language tag.', [{ 'en-US': 'Fire safety', fr: 'Sécurité incendie' }]),
    ),
    description: Type.Optional(LanguageMap('A description by RFC 5646 language tag.', [{ 'en-US': 'The yearly fire safety course.' }])),
    type: Type.Optional(Iri('The activity type, an IRI.', ['http://adlnet.gov/expapi/activities/course'])),
    moreInfo: Type.Optional(Iri('An IRL where a person can read about the activity.', ['https://example.com/catalogue/fire-safety'])),
    extensions: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Extensions by IRI; values any JSON.',
        examples: [{ 'http://example.com/ext/duration': 'PT45M' }],
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'The xAPI activity definition; GET /xapi/activities answers it over what statements said, field by field.',
  },
);

const EntryFields = {
  id: Iri(
    `The activity’s id: an absolute IRI (at most ${MAX_IRI_BYTES.toLocaleString('en-US')} bytes of UTF-8), unique in the tenant and in one request.`,
    ['https://example.com/courses/fire-safety'],
  ),
  definition: RegistryDefinition,
  attributes: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description: 'Key-value pairs of string data.',
      examples: [{ owner: 'Health & Safety', level: '1' }],
    }),
  ),
  tags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      description: 'Labels to filter by (GET /api/activities?tag=); non-empty, no repeats.',
      examples: [['mandatory', 'safety']],
    }),
  ),
  parentId: Type.Optional(
    Type.Union([
      Iri('The id of the parent activity: an entry of the same request or one already registered. Absent or null for a root.', [
        'https://example.com/programmes/induction',
      ]),
      Type.Null(),
    ]),
  ),
  launchUrl: Type.Optional(
    Type.Union([
      Type.String({
        format: 'uri',
        description: 'Where the content starts: an absolute http or https URL. Absent or null: not launchable.',
        examples: ['https://content.example.com/fire-safety/index.html'],
      }),
      Type.Null(),
    ]),
  ),
  competencies: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
      description:
        'Names of the competencies the activity develops, each one of the catalogue (GET /api/competencies), matched case-insensitively.',
      examples: [['Fire safety']],
    }),
  ),
  requiresSuccess: Type.Optional(
    Type.Boolean({
      description:
        'True when only passing the activity counts as completing it (as evidence of its competencies, for assignments); default false: completed or passed.',
    }),
  ),
};

/** One entry as PUT takes it. Documentation only: activity-registry-rules.ts checks bodies itself, to name every bad entry. */
export const RegistryEntryInput = Type.Object(EntryFields, { additionalProperties: false });

export const RegistryPutBody = Type.Array(RegistryEntryInput, {
  description:
    'Entries to insert or replace, in one transaction. An entry replaces the stored one with its id whole (a field left out is cleared); ' +
    'entries not named stay. Parents may come in any order; no cycles, stored parents included.',
});

export const RegistryPutResponse = Type.Object({
  stored: Type.Integer({ description: 'How many entries were inserted or replaced.', examples: [3] }),
});

/** One entry as GET answers it: as PUT takes it, absent lists and attributes filled in, plus `updated`. */
export const RegistryEntry = Type.Object({
  id: Type.String(),
  definition: Type.Object({}, { additionalProperties: true }),
  attributes: Type.Record(Type.String(), Type.String()),
  tags: Type.Array(Type.String()),
  parentId: Type.Optional(Type.String({ description: 'Absent for a root.' })),
  launchUrl: Type.Optional(Type.String({ description: 'Absent when the activity cannot be launched.' })),
  competencies: Type.Array(Type.String()),
  requiresSuccess: Type.Boolean(),
  updated: Type.String({ format: 'date-time', description: 'When the entry was last written.' }),
});
export type RegistryEntry = Static<typeof RegistryEntry>;

export const RegistryListQuery = PageQuery(
  'activities',
  {
    tag: Type.Optional(Type.String({ minLength: 1, description: 'Only entries carrying this tag.' })),
    parentId: Type.Optional(Type.String({ minLength: 1, description: 'Only the children of this activity (not their descendants).' })),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Only entries whose id, or a name or description in any language, contains this text, case-insensitively.',
        examples: ['fire'],
      }),
    ),
  },
  { additionalProperties: false },
);
export type RegistryListQuery = Static<typeof RegistryListQuery>;

export const RegistryItemQuery = Type.Object(
  {
    activityId: Type.String({
      minLength: 1,
      description: 'The id (IRI) of the registered activity.',
      examples: ['https://example.com/courses/fire-safety'],
    }),
  },
  { additionalProperties: false },
);
export type RegistryItemQuery = Static<typeof RegistryItemQuery>;
