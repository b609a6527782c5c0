import type { Principal, Tenant } from '../../kernel/principal.js';

/**
 * Every principal is minted by auth (docs/architecture.md, "Layers, bottom up"): those of a request's
 * credential by the authentication hook (auth.plugin.ts), the others here, for the callers that
 * act without one: the command line and the import folder (one operator), a SCIM token, an HR
 * webhook's signed message, an identity provider's sign-in, and a learner credential a launch
 * acts for. test/architecture/principals.test.ts refuses a principal made anywhere else.
 */

/** Whoever can reach the database: the command line (`cli`, the OS user's name) or the import folder (`drop`, the file's name). */
export const operatorPrincipal = (tenant: Tenant, source: 'cli' | 'drop', name: string): Principal => ({
  kind: 'operator',
  tenant,
  id: `${source}:${name}`,
});

/** An identity provider's SCIM token, by its id. */
export const scimPrincipal = (tenant: Tenant, tokenId: string): Principal => ({ kind: 'scim', tenant, id: tokenId });

/** An HR system's webhook, by its id: the author of the people its messages write. */
export const hrWebhookPrincipal = (tenant: Tenant, webhookId: string): Principal => ({ kind: 'hr_webhook', tenant, id: webhookId });

/** A tenant's identity provider, by its connection's name: the author of the people and admins a sign-in writes. */
export const ssoPrincipal = (tenant: Tenant, connection: string): Principal => ({ kind: 'sso', tenant, id: connection });

/** A learner credential (its username), acting for its one actor. */
export const actorPrincipal = (tenant: Tenant, username: string, agentKey: string): Principal => ({
  kind: 'actor',
  tenant,
  id: username,
  agentKey,
});
