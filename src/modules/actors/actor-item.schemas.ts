import { Type } from 'typebox';
import { FoundActor } from './search/actor-search.schemas.js';

/**
 * The query of a route about one person (`GET|PATCH /api/actors/item`, `GET /api/auth/basic`):
 * exactly one of `agent` and `actorId` (person-access.service.ts `agentKeyRequired`, which names
 * the problem when both or neither are sent).
 */
export const PersonQueryProperties = {
  agent: Type.Optional(
    Type.String({
      description: 'The person: an xAPI agent (its identifier) as JSON. Exactly one of agent and actorId.',
      examples: ['{"account": {"homePage": "https://hr.example.com", "name": "E1001"}}'],
    }),
  ),
  actorId: Type.Optional(
    Type.String({
      description: 'The person as `<ifi_property>|<ifi_value>` (account: `account|<homePage>|<name>`). Exactly one of agent and actorId.',
      examples: ['account|https://hr.example.com|E1001'],
    }),
  ),
};

export const PersonItemQuery = Type.Object(PersonQueryProperties, { additionalProperties: false });

/** What `GET /api/actors/item` (and `PATCH`) answers: the person as GET /api/actors shows them, and their state. */
export const PersonItemBody = Type.Object(
  {
    actor: FoundActor,
    active: Type.Boolean({
      description: 'False when the person was deactivated (by an identity system or PATCH /api/actors/item: docs/identity.md).',
    }),
  },
  { description: 'One person, deactivated or not (docs/actors.md, "One person").' },
);
