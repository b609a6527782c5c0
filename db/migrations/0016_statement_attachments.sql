-- Attachment data sent with statements as multipart/mixed parts (xAPI 2.0 Part 2 §2.4.11,
-- Part 3 §1.5.2). Statements name their attachments by sha2 in their own JSON; this table holds
-- the raw bytes once per tenant and hash, however many statements (or requests) carry the same
-- data. Rows are never updated: the same hash is the same data. Kept in the database for now,
-- behind the AttachmentStore port (attachments.store.ts), so an object store can replace it.
CREATE TABLE xapi_attachments (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  -- Lower-case hex SHA-2 of `data` (SHA-256 in practice; 224, 384 and 512 are accepted).
  sha2 text NOT NULL,
  -- The Content-Type of the part that first brought this data; GET answers the statement's own.
  content_type text NOT NULL,
  data bytea NOT NULL,
  created timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT xapi_attachments__tenant_id_sha2 PRIMARY KEY (tenant_id, sha2)
);
