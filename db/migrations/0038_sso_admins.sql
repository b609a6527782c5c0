-- Single sign-on yields no more than a connection's mapping grants (docs/identity.md, "Admins
-- through single sign-on").
--
-- `sso_connection` names the connection that made the admin (NULL: the command line or an admin
-- over HTTP made them, with a password). Single sign-on signs in only the admins its connection
-- made: never a password admin who happens to hold the address the provider sends. Deleting the
-- connection deletes the admins it made; a sign-in whose claims no longer make one an admin ends
-- them. A plain column, not a foreign key: a connection's name may be given again to another
-- provider, and the service deletes its admins in the transaction that deletes it.
ALTER TABLE admins ADD COLUMN sso_connection text;

-- The admins single sign-on made before this migration are recorded in the audit log
-- (`admin.created` by the connection's principal, since migration 0037): they are attributed to
-- that connection while it is still there, and go on signing in through it. Those without such an
-- entry, or whose connection is gone, are left NULL: single sign-on refuses them, and an admin
-- removes them (or gives them a password) as for any other account.
UPDATE admins AS a
   SET sso_connection = made.connection
  FROM (SELECT DISTINCT ON (tenant_id, details ->> 'adminId') tenant_id, details ->> 'adminId' AS admin_id, principal_id AS connection
          FROM audit_log
         WHERE action = 'admin.created' AND principal_kind = 'sso' AND details ? 'adminId'
         ORDER BY tenant_id, details ->> 'adminId', at DESC) AS made
 WHERE a.tenant_id = made.tenant_id AND a.id::text = made.admin_id
   AND EXISTS (SELECT 1 FROM sso_connections c WHERE c.tenant_id = a.tenant_id AND c.name = made.connection);

CREATE INDEX admins__tenant_id_sso_connection ON admins (tenant_id, sso_connection) WHERE sso_connection IS NOT NULL;

-- When the admin of an authorization signed in at their identity provider (NULL: with a password).
-- The code carries it to the tokens, and each refresh to the next pair: an admin single sign-on
-- made cannot refresh past LEARNBASE_SSO_ADMIN_SESSION_S after it, and signs in at the provider
-- again, where the claim is checked again.
ALTER TABLE oauth_codes ADD COLUMN signed_on_at timestamptz;
ALTER TABLE oauth_tokens ADD COLUMN signed_on_at timestamptz;

-- Whether a connection trusts the e-mail address its provider sends (docs/identity.md, "Which claims
-- a connection trusts"): 'unless-unverified', unless the provider says it is not verified
-- (`email_verified` false or "false"); 'verified-only', only when it says it is (true or "true").
ALTER TABLE sso_connections
  ADD COLUMN email_trust text NOT NULL DEFAULT 'unless-unverified' CHECK (email_trust IN ('unless-unverified', 'verified-only'));
