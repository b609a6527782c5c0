import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Tenant } from '../../kernel/principal.js';

/**
 * A launch link without `auth` (docs/identity.md, "Single sign-on"): the learner signs in at the
 * tenant's identity provider, and comes back launched. The launch route must start that, but single
 * sign-on is the identity module's, which sits above launch; identity implements this and hands it
 * to the launch module when it registers (`app.launch.acceptSignOn`).
 */
export interface LaunchSignOn {
  /**
   * Sends the browser to the tenant's identity provider to sign in for `activityId` (answering the
   * reply) and answers true, or answers false when the tenant has no single sign-on. (Not the
   * reply itself: a reply is thenable, and awaiting it waits for the answer and gives undefined.)
   */
  begin(request: FastifyRequest, reply: FastifyReply, tenant: Tenant, activityId: string): Promise<boolean>;
}

export const NO_SIGN_ON: LaunchSignOn = { begin: async () => false };
