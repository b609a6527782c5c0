-- Accounts from identity systems (docs/identity.md).
--
-- A person an identity system deactivated (SCIM `active: false`, or DELETE): `deactivated_at` is
-- when. They are no longer one of the tenant's people (searches, assignments, reports, skills
-- gaps), their learner credentials are revoked with the write, and their records stay. NULL:
-- active. Written by the actors module only.
ALTER TABLE actors ADD COLUMN deactivated_at timestamptz;
-- When the actor was first stored (a SCIM User's meta.created); the rows stored before this
-- migration take its time.
ALTER TABLE actors ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();

-- A SCIM client's bearer tokens (an identity provider provisioning the tenant's people), made and
-- revoked like API keys: `id` is the token's public part (`scim_<tenant hex>_<16 hex>`), the secret
-- after it is stored only as its SHA-256. Written by the identity module only.
CREATE TABLE scim_tokens (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id text NOT NULL,
  secret_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  CONSTRAINT scim_tokens__tenant_id_id PRIMARY KEY (tenant_id, id)
);

-- Deactivating a person revokes their learner credentials (the auth module's), found by actor.
CREATE INDEX actor_credentials__tenant_id_agent_key ON actor_credentials (tenant_id, agent_key) WHERE revoked_at IS NULL;

-- A SCIM client looks a User up by userName before every create (`filter=userName eq "…"`), which
-- compares without case (RFC 7643 §4.1.1): the people SCIM provisioned, by their lower-cased userName.
CREATE INDEX actors__tenant_id_scim_user_name ON actors (tenant_id, lower(attributes ->> 'userName')) WHERE attributes ? 'userName';
