-- OAuth 2.0 authorization code flow (interface 5.1). Every secret is stored only as a hash:
-- admin passwords as scrypt, client secrets, codes and tokens as SHA-256 of 256-bit random values.

-- People who sign in on the authorize page; e-mail addresses are stored lower-cased.
CREATE TABLE admins (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  email text NOT NULL,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT admins__tenant_id_id PRIMARY KEY (tenant_id, id),
  CONSTRAINT admins__tenant_id_email UNIQUE (tenant_id, email)
);

-- Integrations. Like API keys, a client id embeds its tenant id (`lbc_<tenant hex>_<random>`).
CREATE TABLE oauth_clients (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  client_id text NOT NULL,
  secret_hash bytea NOT NULL,
  name text NOT NULL,
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT oauth_clients__tenant_id_client_id PRIMARY KEY (tenant_id, client_id)
);

-- A validated authorize request waiting for its admin to sign in. The sign-in form carries a
-- CSRF token bound to this record (only its hash is kept); the record dies with its first use.
CREATE TABLE oauth_authorization_requests (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  csrf_hash bytea NOT NULL,
  client_id text NOT NULL,
  redirect_uri text NOT NULL,
  state text,
  code_challenge text,
  expires_at timestamptz NOT NULL,
  CONSTRAINT oauth_authorization_requests__tenant_id_id PRIMARY KEY (tenant_id, id)
);

-- Authorization codes: single use, 10 minutes, bound to client, redirect_uri and PKCE challenge.
-- `family_id` ties every token issued from the code together, so a replayed code revokes them.
CREATE TABLE oauth_codes (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL,
  client_id text NOT NULL,
  admin_id uuid NOT NULL,
  redirect_uri text NOT NULL,
  code_challenge text,
  family_id uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  CONSTRAINT oauth_codes__tenant_id_code_hash PRIMARY KEY (tenant_id, code_hash)
);

-- Access and refresh tokens (`lba_…` / `lbr_…`, each embedding the tenant id). A refresh token is
-- used once: `used_at` marks it; presenting a used one revokes its whole family.
CREATE TABLE oauth_tokens (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  client_id text NOT NULL,
  admin_id uuid NOT NULL,
  family_id uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT oauth_tokens__tenant_id_token_hash PRIMARY KEY (tenant_id, token_hash)
);
CREATE INDEX oauth_tokens__tenant_id_family_id ON oauth_tokens (tenant_id, family_id);

-- Failed sign-ins per account (`email:<address>`) and per network address (`ip:<address>`),
-- counted in a window; past the limit the subject is refused until `locked_until`.
CREATE TABLE sign_in_failures (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  subject text NOT NULL,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL,
  locked_until timestamptz,
  CONSTRAINT sign_in_failures__tenant_id_subject PRIMARY KEY (tenant_id, subject)
);
