import type { FastifyRequest } from 'fastify';
import { AppError } from '../platform/http/app-error.js';

/** A tenant: every row of the tenant's data carries its id. */
export interface Tenant {
  id: string;
  name: string;
  createdAt: Date;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the request: named by Host or X-SVC-Tenant, or by the credential. */
    tenant?: Tenant;
    principal?: Principal;
  }
}

/**
 * Who is calling, bound to exactly one tenant. See docs/tenancy-and-authentication.md:
 * admins and API keys may do everything in their tenant; actor credentials and launch
 * tokens only what concerns their own actor (and activity).
 */
export interface Principal {
  /**
   * `operator`: the command line (`learnbase import …`), run by whoever can reach the database.
   * `scim`: an identity provider's SCIM token (docs/identity.md), accepted on `/scim/v2/` only;
   * `hr_webhook`: an HR system's webhook endpoint, whose signed messages are applied later;
   * `sso`: a tenant's identity provider, writing the person who signed in through it.
   */
  kind: 'admin' | 'api_key' | 'actor' | 'launch' | 'operator' | 'scim' | 'hr_webhook' | 'sso';
  tenant: Tenant;
  /** The credential's identifier: the API key, the admin id, the actor credential's username. */
  id: string;
  /** Set for `actor` and `launch`: the canonical agent key the principal may read and write for. */
  agentKey?: string;
  /** Set for `launch`: the only activity the principal may read and write for. */
  activityId?: string;
  /** Set for `launch`: the registration (UUID, lower case) of the launch; its state and statements only. */
  registration?: string;
  /**
   * Set for an admin or an API key limited to an organisation subtree (docs/learning.md, "Scoped
   * administration"): every people-related read and write is narrowed to the people placed in
   * this organisation entry or below it; what the whole tenant shares (the structure, the jobs,
   * the registry, the settings, the credentials) it may read but not change, and the LRS is closed to it.
   */
  scope?: { organisationId: string };
}

/** True for principals allowed to manage everything in their tenant. */
export const isTenantWide = (principal: Principal): boolean => TENANT_WIDE_KINDS.has(principal.kind);

/** Admins, API keys, the command line, and the identity channels that write people (SCIM tokens, HR webhooks, single sign-on). */
const TENANT_WIDE_KINDS: ReadonlySet<Principal['kind']> = new Set(['admin', 'api_key', 'operator', 'scim', 'hr_webhook', 'sso']);

/**
 * The principal of a route that manages the tenant's people or reads what it shares (the actor
 * list, people imports, reads of the structure): an admin's Bearer token or an API key, scoped to
 * a subtree or not (the route narrows to `scope`). An actor credential or a launch token is refused (403).
 */
export function tenantWidePrincipalOf(request: FastifyRequest): Principal {
  const principal = principalOf(request);
  if (!isTenantWide(principal)) {
    throw new AppError('auth.forbidden', 403, 'This credential acts for one actor only; this needs an admin token or an API key.');
  }
  return principal;
}

/**
 * The principal of a route that changes what the whole tenant shares (the organisation structure,
 * the jobs, the settings, the activities registry, the competency catalogue): a tenant-wide
 * principal without a scope. A scoped admin or API key is refused (403), as is an actor credential.
 */
export function wholeTenantPrincipalOf(request: FastifyRequest): Principal {
  const principal = tenantWidePrincipalOf(request);
  if (principal.scope)
    throw outOfScope('This credential is limited to an organisation subtree; changing what the whole tenant shares needs an unscoped one.');
  return principal;
}

/** 403 `auth.out_of_scope`: what a scoped principal may not do (docs/learning.md, "Scoped administration"). */
export const outOfScope = (message: string): AppError => new AppError('auth.out_of_scope', 403, message);

/** The principal of an authenticated route; the auth hook guarantees it is there. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('auth.unauthorized', 401, 'Authentication is required.');
  return request.principal;
}
