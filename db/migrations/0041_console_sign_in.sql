-- The console (docs/console.md, "Signing in") signs in through the OAuth sign-in page as a client
-- every tenant has: made with the tenant (`learnbase tenant create`, the demo seed), here for the
-- tenants that exist, and again at a sign-in should it be missing. Its one redirect URI is the
-- path `/console/auth/callback`, resolved against the address the request came to (a tenant's
-- sub-domain, LEARNBASE_PUBLIC_URL), which is where the console is. Nobody knows its secret (the
-- hash of a random value no one kept): the server itself exchanges its codes, never over
-- /auth/oauth/token, and it cannot be deleted or given a secret (client.service.ts).
ALTER TABLE oauth_clients ADD COLUMN console boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX oauth_clients__tenant_id__console ON oauth_clients (tenant_id) WHERE console;

INSERT INTO oauth_clients (tenant_id, client_id, secret_hash, name, redirect_uris, console)
SELECT t.id,
       'lbc_' || replace(t.id::text, '-', '') || '_' || substr(md5(gen_random_uuid()::text), 1, 16),
       sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')),
       'the learnbase console',
       ARRAY['/console/auth/callback'],
       true
  FROM tenants t
 WHERE NOT EXISTS (SELECT 1 FROM oauth_clients c WHERE c.tenant_id = t.id AND c.console);

-- A signed-in console: the browser holds only the session's secret in an httpOnly cookie
-- (`lbs_<tenant hex>_<random>`, of which only the SHA-256 is kept); the session holds the hashes
-- of the access and refresh tokens the sign-in gave (never the tokens), so every revocation of
-- the admin's tokens (sign-out, a scope change, the admin deleted, single sign-on ending) ends
-- the session as it ends any integration's. The server refreshes the pair as it runs out.
CREATE TABLE console_sessions (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  session_hash bytea NOT NULL,
  admin_id uuid NOT NULL,
  client_id text NOT NULL,
  family_id uuid NOT NULL,
  access_hash bytea NOT NULL,
  refresh_hash bytea NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  refreshed_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT console_sessions__tenant_id_session_hash PRIMARY KEY (tenant_id, session_hash)
);
CREATE INDEX console_sessions__expires_at ON console_sessions (expires_at);
