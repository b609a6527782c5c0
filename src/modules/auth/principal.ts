import type { Tenant } from '../tenancy/tenancy.service.js';

/**
 * Who is calling, bound to exactly one tenant. See "Who may call what" in shared/design.md:
 * admins and API keys may do everything in their tenant; actor credentials and launch
 * tokens only what concerns their own actor (and activity).
 */
export interface Principal {
  /** `operator`: the command line (`learnbase import …`), run by whoever can reach the database. */
  kind: 'admin' | 'api_key' | 'actor' | 'launch' | 'operator';
  tenant: Tenant;
  /** The credential's identifier: the API key, the admin id, the actor credential's username. */
  id: string;
  /** Set for `actor` and `launch`: the canonical agent key the principal may read and write for. */
  agentKey?: string;
  /** Set for `launch`: the only activity the principal may read and write for. */
  activityId?: string;
  /** Set for `launch`: the registration (UUID, lower case) of the launch; its state and statements only. */
  registration?: string;
}

/** True for principals allowed to manage everything in their tenant. */
export const isTenantWide = (principal: Principal): boolean =>
  principal.kind === 'admin' || principal.kind === 'api_key' || principal.kind === 'operator';
