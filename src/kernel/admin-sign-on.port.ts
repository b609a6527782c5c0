import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tenant } from './principal.js';

/**
 * The port `adminSignOn`: admins through single sign-on (docs/identity.md, "Admins through single
 * sign-on"). The authorize page offers the tenant's identity providers beside the password form,
 * and an admin who signs in at one gets the same authorization code. The page is auth's; single
 * sign-on is the identity module's, above auth: identity fills this port, the composition root
 * hands it to auth, and identity finishes the pending request through auth's `finishAdminSignOn`.
 */
export interface AdminSignOn {
  /** The tenant's connections that make admins: the page's buttons, in order. */
  connectionsFor(tenantId: string): Promise<SignOnConnection[]>;
  /** Sends the browser to the connection's provider to sign in for the pending authorize request (answering the reply). */
  beginAdmin(request: FastifyRequest, reply: FastifyReply, connection: string, pending: PendingSignOn): Promise<void>;
}

/** A connection the authorize page offers: its button posts `name` and reads "Sign in with `displayName`". */
export interface SignOnConnection {
  name: string;
  displayName: string;
}

/** An authorize request waiting for its admin, found again by its id and the hash of its form's CSRF token. */
export interface PendingSignOn {
  tenant: Tenant;
  authorizationRequestId: string;
  csrfHash: Buffer;
}

/** No single sign-on module: the authorize page offers the password form alone. */
export const NO_ADMIN_SIGN_ON: AdminSignOn = {
  connectionsFor: async () => [],
  beginAdmin: async () => {
    throw new Error('no single sign-on for admins');
  },
};
