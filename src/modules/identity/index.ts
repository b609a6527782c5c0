/**
 * The face of the identity module. No module sits above identity: what it offers is the
 * operator's, through the command line and the server's start (docs/architecture.md, "Modules";
 * .dependency-cruiser.cjs refuses an entry's import of any other file of a module).
 */
export { hrWebhookPath, issueHrWebhook, listHrWebhooks, revokeHrWebhook } from './hr-webhooks/hr-webhook.service.js';
export { issueScimToken, listScimTokens, revokeScimToken } from './scim/scim-token.service.js';
export { refreshConnection } from './sso/saml-metadata.service.js';
export { clientSecretChangeOf } from './sso/sso-connection-rules.js';
export { connectionOfBody, connectionView, listConnections, putConnection, removeConnection } from './sso/sso.service.js';
export { prepareStoredSecrets, rotateStoredSecrets } from './stored-secret.service.js';
