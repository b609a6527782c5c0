-- Secrets the server must present or check as issued (HR webhook signing secrets, OpenID Connect
-- client secrets) are encrypted at rest from this version on, with AES-256-GCM under a key held
-- outside the database (docs/operations.md, "Secrets at rest"; platform/secret-box.ts). SQL cannot
-- encrypt without the key, so this migration only marks what earlier versions stored as issued:
-- `plain:<secret>`. The first start (or command) that has a key seals each marked value in its row
-- (modules/identity/stored-secret.service.ts), and one without a key refuses to start while any is
-- left. The mark, rather than "whatever does not read as sealed", keeps a client secret an admin
-- once chose to look like a sealed value from ever being taken for one.
UPDATE hr_webhooks SET secret = 'plain:' || secret;
UPDATE sso_connections SET client_secret = 'plain:' || client_secret WHERE client_secret IS NOT NULL;
