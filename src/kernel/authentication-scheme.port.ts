import type { FastifyRequest } from 'fastify';
import type { Principal, Tenant } from './principal.js';

/**
 * A port a module above auth fills with a credential of its own that auth's one hook checks
 * (docs/architecture.md, "Declarations, ports and the composition root"): the SCIM tokens of
 * identity, the signatures of its HR webhooks. Auth hands every request under `prefix` to the
 * scheme and to no other check, and the
 * scheme answers its principal, minted by auth (principals.ts), or throws the 401 its routes
 * answer in their own shape.
 */
export interface AuthenticationScheme {
  /** The paths it answers for (`/scim/`). */
  prefix: string;
  /**
   * `body`: the credential signs the body (an HR webhook's message), so the scheme runs once the
   * body is read and the route's schema checked (preHandler); otherwise as the request arrives.
   */
  phase?: 'request' | 'body';
  /** The principal of the request's credential; `tenants` finds the tenant a credential is of. */
  authenticate(request: FastifyRequest, tenants: { findById(id: string): Promise<Tenant | undefined> }): Promise<Principal>;
}
