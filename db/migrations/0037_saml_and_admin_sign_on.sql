-- SAML 2.0 connections and single sign-on for admins (docs/identity.md, "Single sign-on").
--
-- A connection speaks `protocol` 'oidc' or 'saml'. For SAML, `issuer` is the identity provider's
-- entity ID, `client_id` this server's (the service provider's) entity ID, the audience its
-- assertions must name, `scopes` is empty, and `saml` holds where to send the browser and the
-- certificates the assertions must be signed with ({"entryPoint", "certificates", "metadataUrl"?}).
-- `admins` ({"claim", "value"}) names the claim or attribute that makes a person signing in on
-- the authorize page an admin; without it nobody is one through this connection.
ALTER TABLE sso_connections
  ADD COLUMN protocol text NOT NULL DEFAULT 'oidc' CHECK (protocol IN ('oidc', 'saml')),
  ADD COLUMN saml jsonb CHECK (saml IS NULL OR jsonb_typeof(saml) = 'object'),
  ADD COLUMN admins jsonb CHECK (admins IS NULL OR jsonb_typeof(admins) = 'object');

-- A sign-in in flight is for a launch (`activity_id`) or for an admin's pending authorize request
-- (`authorization_request_id` and the hash of its form's CSRF token, which find it). A SAML
-- sign-in keeps the ID of its AuthnRequest (`request_id`, the InResponseTo its answer must carry;
-- cleared when the answer is taken, so an answer is taken once) and then the attributes of the
-- checked assertion (`asserted`) until the browser, holding the state cookie, comes to the callback.
ALTER TABLE sso_sign_ins
  ALTER COLUMN nonce DROP NOT NULL,
  ALTER COLUMN code_verifier DROP NOT NULL,
  ADD COLUMN request_id text,
  ADD COLUMN asserted jsonb,
  ADD COLUMN authorization_request_id uuid,
  ADD COLUMN csrf_hash bytea;

-- An admin who signs in only through single sign-on has no password.
ALTER TABLE admins ALTER COLUMN password_hash DROP NOT NULL;
