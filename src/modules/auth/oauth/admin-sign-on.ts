import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal, Tenant } from '../../../kernel/principal.js';

/**
 * Admins through single sign-on (docs/identity.md, "Admins through single sign-on"): the authorize
 * page offers the tenant's identity providers beside the password form, and an admin who signs in
 * at one gets the same authorization code. The page is auth's; single sign-on is the identity
 * module's, above auth: identity implements this and hands it over when it registers
 * (`app.auth.acceptAdminSignOn`), then finishes the pending request through `app.auth.finishAdminSignOn`.
 */
/** A connection the authorize page offers: its button posts `name` and reads "Sign in with `displayName`". */
export interface SignOnConnection {
  name: string;
  displayName: string;
}

export interface AdminSignOn {
  /** The tenant's connections that make admins: the page's buttons, in order. */
  connectionsFor(tenantId: string): Promise<SignOnConnection[]>;
  /** Sends the browser to the connection's provider to sign in for the pending authorize request (answering the reply). */
  beginAdmin(request: FastifyRequest, reply: FastifyReply, connection: string, pending: PendingSignOn): Promise<void>;
}

/** An authorize request waiting for its admin, found again by its id and the hash of its form's CSRF token. */
export interface PendingSignOn {
  tenant: Tenant;
  authorizationRequestId: string;
  csrfHash: Buffer;
}

/** What an identity provider vouched for through a connection: an admin's address and the scope its admins rule gives them. */
export interface ProvidedAdmin {
  email: string;
  /** An organisation entry, or null for the whole tenant. */
  scope: string | null;
  /** The connection: only an admin it made (or makes now) is signed in through it. */
  connection: string;
}

/**
 * Ends an admin's single sign-on (AuthorizeService.finishSignOn): the provider vouched for
 * `admin.email` and made them an admin of `admin.scope`. Answers where to send the browser: the
 * client's redirect URI with the code. 403 `auth.admin_not_made_here` for an admin of that address
 * the connection did not make.
 */
export type FinishAdminSignOn = (
  pending: PendingSignOn,
  admin: ProvidedAdmin,
  by: { principal: Principal; source: string },
) => Promise<string>;

/** Tells every process that these access tokens are revoked (TokenService.announce), once the revocation committed. */
export type AnnounceRevokedTokens = (accessTokenHashes: Buffer[]) => Promise<void>;

export const NO_ADMIN_SIGN_ON: AdminSignOn = {
  connectionsFor: async () => [],
  beginAdmin: async () => {
    throw new Error('no single sign-on for admins');
  },
};
