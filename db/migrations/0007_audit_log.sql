-- The audit log (GET /api/audit): who changed an actor, made or revoked a credential, or launched
-- content, when, and from which integration (the `svc-account-source` header, interface 4.2).
-- Written in the same transaction as the change it records: an entry exists exactly when the
-- change was stored. Append-only; rows are never updated.
CREATE TABLE audit_log (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  action text NOT NULL,
  -- The actor the entry is about: its canonical agent key (agent.ts; the `actorId` form) and IFI.
  actor_key text,
  actor jsonb,
  -- The `svc-account-source` header as sent (at most 200 characters), or null.
  source text,
  principal_kind text NOT NULL,
  principal_id text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
  CONSTRAINT audit_log__tenant_id_id PRIMARY KEY (tenant_id, id)
);
-- Newest first, whole tenant or one actor or one source; `id` breaks ties.
CREATE INDEX audit_log__tenant_id_at ON audit_log (tenant_id, at DESC, id DESC);
CREATE INDEX audit_log__tenant_id_actor_key_at ON audit_log (tenant_id, actor_key, at DESC, id DESC);
CREATE INDEX audit_log__tenant_id_source_at ON audit_log (tenant_id, source, at DESC, id DESC);
