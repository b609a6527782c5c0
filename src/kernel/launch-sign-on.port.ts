import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tenant } from './principal.js';

/**
 * The port `launchSignOn`: a launch link without `auth` (docs/identity.md, "Single sign-on"). The
 * learner signs in at the tenant's identity provider and comes back launched. The launch route
 * must start that, but single sign-on is the identity module's, which sits above launch: identity
 * fills this port, and the composition root hands it to launch.
 */
export interface LaunchSignOn {
  /**
   * Sends the browser to the tenant's identity provider to sign in for `activityId` (answering the
   * reply) and answers true, or answers false when the tenant has no single sign-on. (Not the
   * reply itself: a reply is thenable, and awaiting it waits for the answer and gives undefined.)
   */
  begin(request: FastifyRequest, reply: FastifyReply, tenant: Tenant, activityId: string): Promise<boolean>;
}

/** No single sign-on module: a launch link without `auth` is refused as before. */
export const NO_LAUNCH_SIGN_ON: LaunchSignOn = { begin: async () => false };
