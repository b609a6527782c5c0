/**
 * The SCIM service provider's discovery resources (RFC 7644 §4, RFC 7643 §5-7): what this server
 * supports, the one resource type (User, with the enterprise extension), and the schemas of the
 * attributes it keeps (docs/identity.md lists how each becomes an actor attribute). Static: the
 * same for every tenant.
 */
import { SCIM_ENTERPRISE_SCHEMA, SCIM_USER_SCHEMA } from './scim-user-rules.js';
import { MAX_RESULTS } from './scim-user.service.js';

const CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export function serviceProviderConfig(base: string): Record<string, unknown> {
  return {
    schemas: [CONFIG_SCHEMA],
    documentationUri: `${base.replace(/\/scim\/v2$/, '')}/docs/guides/identity`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'SCIM token',
        description: 'A bearer token made with `learnbase scim-token create` or POST /api/scim-tokens.',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function userResourceType(base: string): Record<string, unknown> {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A person of the tenant (an actor with attributes).',
    schema: SCIM_USER_SCHEMA,
    schemaExtensions: [{ schema: SCIM_ENTERPRISE_SCHEMA, required: false }],
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
  };
}

const text = (name: string, description: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  description,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const complex = (name: string, description: string, subAttributes: unknown[], multiValued = false) => ({
  name,
  type: 'complex',
  multiValued,
  description,
  required: false,
  mutability: 'readWrite',
  returned: 'default',
  subAttributes,
});

export function schemas(base: string): Record<string, unknown>[] {
  return [
    {
      schemas: [SCHEMA_SCHEMA],
      id: SCIM_USER_SCHEMA,
      name: 'User',
      description: 'A person of the tenant. Attributes not listed here are accepted and ignored.',
      attributes: [
        text('userName', 'Unique among the tenant’s Users; kept as the attribute userName.', { required: true, uniqueness: 'server' }),
        text('externalId', 'The identity provider’s own id; kept as the attribute externalId.', { caseExact: true }),
        complex('name', 'givenName and familyName are kept as the attributes of those names.', [
          text('givenName', 'Kept as the attribute givenName.'),
          text('familyName', 'Kept as the attribute familyName.'),
          text('formatted', 'The person’s name when displayName is absent.'),
        ]),
        text('displayName', 'The person’s name.'),
        text('title', 'Kept as the attribute title.'),
        {
          name: 'active',
          type: 'boolean',
          multiValued: false,
          description: 'false: the person is deactivated (their credentials revoked, out of searches, assignments and reports).',
          required: false,
          mutability: 'readWrite',
          returned: 'default',
        },
        complex(
          'emails',
          'The primary one (else the first) is kept as the attribute email.',
          [
            text('value', 'An e-mail address.'),
            text('type', 'work, home, other.'),
            { name: 'primary', type: 'boolean', multiValued: false },
          ],
          true,
        ),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM_USER_SCHEMA}` },
    },
    {
      schemas: [SCHEMA_SCHEMA],
      id: SCIM_ENTERPRISE_SCHEMA,
      name: 'EnterpriseUser',
      description: 'The enterprise extension; each attribute is kept as the actor attribute of its name (manager: its value).',
      attributes: [
        text('employeeNumber', 'Kept as the attribute employeeNumber.'),
        text('costCenter', 'Kept as the attribute costCenter.'),
        text('organization', 'Kept as the attribute organization.'),
        text('division', 'Kept as the attribute division.'),
        text('department', 'Kept as the attribute department.'),
        complex('manager', 'The manager’s User id, kept as the attribute manager.', [text('value', 'The manager’s id.')]),
      ],
      meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM_ENTERPRISE_SCHEMA}` },
    },
  ];
}
