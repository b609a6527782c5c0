/**
 * The face of the auth module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export { ADMIN_ERRORS, ADMIN_ONLY, SourceHeader, adminPrincipalOf } from './admin-routes.schemas.js';
export { endConnectionAdmins, endSignedOnAdmin, signOutConnectionAdmins } from './admins/admin.service.js';
export type { AdminChangeBy } from './admins/admin.service.js';
export { tenantIdOfApiKey } from './api-keys/api-key.service.js';
export { LAUNCH_USERNAME_PREFIX, credentialKey, credentialRefusal } from './credentials/credential.service.js';
export type { CredentialService } from './credentials/credential.service.js';
export type { LaunchCheck, LaunchGrant, LaunchTokenVerifier } from './launch-token.js';
export type { AdminSignOn, AnnounceRevokedTokens, FinishAdminSignOn, PendingSignOn, SignOnConnection } from './oauth/admin-sign-on.js';
export { actorPrincipal, hrWebhookPrincipal, operatorPrincipal, scimPrincipal, ssoPrincipal } from './principals.js';
