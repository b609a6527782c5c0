import { Type, type Static } from 'typebox';

const AttributeName = Type.String({ minLength: 1, maxLength: 200, description: 'A user attribute name.' });

/**
 * The body of `PUT /api/settings`. PUT replaces the stored object: a key left out takes its
 * default again (docs/imports.md, "Model and settings").
 */
export const TenantSettingsBody = Type.Object(
  {
    uniqueAttributes: Type.Optional(
      Type.Array(AttributeName, {
        minItems: 1,
        maxItems: 50,
        uniqueItems: true,
        description: 'The ordered attribute names that identify a person (default ["email"]).',
        examples: [['employeeId', 'email']],
      }),
    ),
    accountHomePage: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'account.homePage of agents made from imported users: an absolute http(s) URL (default: the tenant’s own address).',
        examples: ['https://people.example.com'],
      }),
    ),
    organisationAttribute: Type.Optional(
      Type.Union([AttributeName, Type.Null()], { description: 'The user attribute holding an organisation entry id (default null).' }),
    ),
    jobAttribute: Type.Optional(
      Type.Union([AttributeName, Type.Null()], { description: 'The user attribute holding a job id (default null).' }),
    ),
    positionJobAttribute: Type.Optional(
      Type.Union([AttributeName, Type.Null()], {
        description:
          'The organisation entry attribute holding the id of the job of that position (default null): a person whose own jobAttribute names no job has the job of their position.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TenantSettingsBody = Static<typeof TenantSettingsBody>;

/** Every setting with its effective value (defaults filled in). */
export const TenantSettingsResponse = Type.Object({
  uniqueAttributes: Type.Array(Type.String()),
  accountHomePage: Type.String(),
  organisationAttribute: Type.Union([Type.String(), Type.Null()]),
  jobAttribute: Type.Union([Type.String(), Type.Null()]),
  positionJobAttribute: Type.Union([Type.String(), Type.Null()]),
});
