-- The files the import folder imported (docs/identity.md, "The import folder"). A row is written
-- in the import's own transaction, so it exists exactly when the import was stored: a process
-- that finds a claimed file still in processing/ (its claimer died, or another process is at it)
-- imports it only when there is no row, and a second import of one claim cannot commit (the
-- primary key). `claim_id` is given when the file is first claimed and kept in its name until it
-- reaches done/ (`<claim_id>.<file_name>`); `summary` is the import's answer, for the result file
-- of a claim whose import committed but whose file was not moved yet. Written by the identity
-- module only.
CREATE TABLE import_drop_files (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  claim_id text NOT NULL,
  file_name text NOT NULL,
  kind text NOT NULL,
  sha256 text NOT NULL,
  summary jsonb NOT NULL,
  imported_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT import_drop_files__tenant_id_claim_id PRIMARY KEY (tenant_id, claim_id)
);
