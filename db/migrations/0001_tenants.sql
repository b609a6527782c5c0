-- Tenants are the one table not owned by a tenant. `name` is a DNS label: it is the
-- sub-domain of {tenant_base_url} and the value of X-SVC-Tenant.
CREATE TABLE tenants (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tenants__name UNIQUE (name),
  CONSTRAINT tenants__name_format CHECK (name ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$')
);

-- API keys (interface 5.2, deprecated). The key embeds the tenant id, so a key names its
-- tenant without a global index; only a SHA-256 of the high-entropy secret is stored.
CREATE TABLE api_keys (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  key text NOT NULL,
  secret_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  CONSTRAINT api_keys__tenant_id_key PRIMARY KEY (tenant_id, key)
);
