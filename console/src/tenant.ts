/**
 * Which tenant the console is for: `?tenant=NAME` when the address names one, else none (the start
 * page asks). A tenant's name is what the API takes in X-SVC-Tenant: letters, digits and hyphens.
 */
export function tenantOfAddress(search: string): string | undefined {
  const named = new URLSearchParams(search).get('tenant')?.trim().toLowerCase();
  return named && TENANT_NAME.test(named) ? named : undefined;
}

/** The names the server gives tenants (tenancy's rule): 1 to 63 of a-z, 0-9 and inner hyphens. */
export const TENANT_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
