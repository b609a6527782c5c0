-- Single sign-on (docs/identity.md, "Single sign-on"): a tenant's OpenID Connect identity
-- providers, and the sign-ins in flight. Written by the identity module only.
--
-- `client_secret` is what this server presents to the provider: it must be sent as it is, so it
-- cannot be stored as a hash (the database is what protects it). `claims` maps the ID token's
-- claims to actor attributes ({"email": "email", "given_name": "givenName"}).
CREATE TABLE sso_connections (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name text NOT NULL,
  issuer text NOT NULL,
  client_id text NOT NULL,
  client_secret text,
  scopes text NOT NULL,
  claims jsonb NOT NULL CHECK (jsonb_typeof(claims) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT sso_connections__tenant_id_name PRIMARY KEY (tenant_id, name)
);

-- A sign-in between the redirect to the provider and its return: found by the SHA-256 of its
-- `state` (the browser also holds the state in a cookie, so a sign-in started in one browser cannot
-- be finished in another), used once, refused after `expires_at`. What it was for: launching
-- `activity_id`.
CREATE TABLE sso_sign_ins (
  state_hash bytea NOT NULL,
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  connection text NOT NULL,
  nonce text NOT NULL,
  code_verifier text NOT NULL,
  redirect_uri text NOT NULL,
  activity_id text,
  expires_at timestamptz NOT NULL,
  CONSTRAINT sso_sign_ins__state_hash PRIMARY KEY (state_hash)
);
CREATE INDEX sso_sign_ins__expires_at ON sso_sign_ins (expires_at);
