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

/**
 * Ends an admin's single sign-on (AuthorizeService.finishSignOn): the provider vouched for `email`
 * and made them an admin of `scope` (an organisation entry; null: the whole tenant). Answers where
 * to send the browser: the client's redirect URI with the code.
 */
export type FinishAdminSignOn = (
  pending: PendingSignOn,
  email: string,
  scope: string | null,
  by: { principal: Principal; source: string },
) => Promise<string>;

export const NO_ADMIN_SIGN_ON: AdminSignOn = {
  connectionsFor: async () => [],
  beginAdmin: async () => {
    throw new Error('no single sign-on for admins');
  },
};
