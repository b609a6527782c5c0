/**
 * The face of the auth module: all another module may import from it (docs/architecture.md,
 * "Modules"; .dependency-cruiser.cjs refuses an import of any other file of the module).
 */
export { ADMIN_ERRORS, ADMIN_ONLY, SourceHeader, adminPrincipalOf } from './admin-routes.schemas.js';
export {
  createAdmin,
  deleteAdmin,
  endConnectionAdmins,
  endSignedOnAdmin,
  listAdmins,
  normaliseEmail,
  setAdminPassword,
  setAdminScope,
  signOutConnectionAdmins,
  unlockAdmin,
} from './admins/admin.service.js';
export type { AdminChangeBy } from './admins/admin.service.js';
export { issueApiKey, tenantIdOfApiKey } from './api-keys/api-key.service.js';
export type { IssuedApiKey } from './api-keys/api-key.service.js';
export { createClient, deleteClient, ensureConsoleClient, listClients, rotateClientSecret } from './oauth/clients/client.service.js';
export type { IssuedClient } from './oauth/clients/client.service.js';
export type { SignInPolicy } from './oauth/sign-in-throttle.js';
export { LAUNCH_USERNAME_PREFIX, credentialKey, credentialRefusal } from './credentials/credential.service.js';
export type { CredentialService } from './credentials/credential.service.js';
export type { AnnounceRevokedTokens, FinishAdminSignOn, ProvidedAdmin } from './oauth/admin-sign-on.js';
export { actorPrincipal, hrWebhookPrincipal, operatorPrincipal, scimPrincipal, ssoPrincipal } from './principals.js';
export type { AuthServices } from './auth.module.js';
