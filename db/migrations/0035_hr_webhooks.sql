-- HR webhooks (docs/identity.md, "HR webhooks"): an inbound endpoint per HR system, its events
-- verified with the Standard Webhooks scheme. Written by the identity module only.
--
-- `secret` is the signing key (`whsec_<base64>`): the server must hold it to compute the HMAC it
-- compares, so it cannot be stored as a hash the way credentials are (the database is what guards it).
CREATE TABLE hr_webhooks (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  id text NOT NULL,
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  CONSTRAINT hr_webhooks__tenant_id_id PRIMARY KEY (tenant_id, id)
);

-- Every verified message, stored before it is acknowledged (202) and applied after, in order per
-- tenant (`seq`): nothing acknowledged is lost if the process dies. The key makes a message id
-- received twice by one endpoint one message (applied once). `applied_at` is set once it was
-- applied or refused for good; `result` says what each event did.
CREATE TABLE hr_webhook_messages (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  webhook_id text NOT NULL,
  message_id text NOT NULL,
  seq bigserial NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  payload jsonb NOT NULL,
  applied_at timestamptz,
  result jsonb,
  CONSTRAINT hr_webhook_messages__tenant_id_webhook_id_message_id PRIMARY KEY (tenant_id, webhook_id, message_id)
);
CREATE INDEX hr_webhook_messages__pending ON hr_webhook_messages (tenant_id, seq) WHERE applied_at IS NULL;
CREATE INDEX hr_webhook_messages__tenant_id_seq ON hr_webhook_messages (tenant_id, seq);
