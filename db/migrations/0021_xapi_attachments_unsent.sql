-- The attachments a learner credential or a launch token named in a statement without sending
-- their data (an attachment with a fileUrl and no part). Attachment data is stored once per
-- tenant and hash (0016), so without this such a statement would be answered, with
-- attachments=true, with whatever data of that hash someone else of the tenant had sent: a
-- learner who knew (or guessed) another learner's hash would read their bytes. A statement is
-- answered only with data it was sent with, or data a tenant-wide principal (an admin, an API
-- key) may use anyway; tenant-wide principals' statements never have rows here, so statements
-- stored before this table keep their behaviour.
CREATE TABLE xapi_attachments_unsent (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  statement_id uuid NOT NULL,
  sha2 text NOT NULL,
  CONSTRAINT xapi_attachments_unsent__tenant_id_statement_id_sha2 PRIMARY KEY (tenant_id, statement_id, sha2),
  CONSTRAINT xapi_attachments_unsent__statement FOREIGN KEY (tenant_id, statement_id)
    REFERENCES xapi_statements (tenant_id, id) ON DELETE CASCADE
);
