-- Learner credentials and launch sessions (interface 4.2 POST /api/auth/basic and
-- GET /api/activities/launch, 5.2, 5.3; docs/provisioning.md).

-- A Basic username/password that acts for one actor. The password is stored as scrypt
-- (platform/passwords.ts). Rows are never deleted when revoked or expired: a username is used
-- once per tenant (interface 5.3: credentials are cached, so a reused username could reach a
-- stale cache entry), and the primary key is what refuses a second use.
CREATE TABLE actor_credentials (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  username text NOT NULL,
  password_hash text NOT NULL,
  -- The canonical agent key (agent.ts) of the actor the credential acts for.
  agent_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  CONSTRAINT actor_credentials__tenant_id_username PRIMARY KEY (tenant_id, username)
);

-- One launch of one activity by one actor: a fresh registration and a short-lived token handed
-- to the content (`Basic base64("launch.<tenant hex>.<id>:<secret>")`); only the SHA-256 of the
-- secret is kept. The credential that launched is kept so revoking it ends its launches too.
CREATE TABLE launch_sessions (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  token_hash bytea NOT NULL,
  agent_key text NOT NULL,
  activity_id text NOT NULL,
  registration uuid NOT NULL,
  credential_username text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CONSTRAINT launch_sessions__tenant_id_id PRIMARY KEY (tenant_id, id),
  CONSTRAINT launch_sessions__token_hash UNIQUE (token_hash),
  CONSTRAINT launch_sessions__credential FOREIGN KEY (tenant_id, credential_username)
    REFERENCES actor_credentials (tenant_id, username) ON DELETE CASCADE
);
CREATE INDEX launch_sessions__tenant_id_credential_username ON launch_sessions (tenant_id, credential_username);
