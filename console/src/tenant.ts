/**
 * Which tenant the console is for, and how it was named: by the address's host
 * (`acme.learnbase.example/console/`, which the server says in `<meta name="learnbase-tenant">`),
 * else by `?tenant=NAME`, else none (the start page asks). The host wins: the API refuses a request
 * naming another tenant than its host.
 */
export function tenantOfPage(document: Document, search: string): { name: string; by: 'host' | 'address' } | undefined {
  const fromHost = document.querySelector<HTMLMetaElement>('meta[name="learnbase-tenant"]')?.content;
  if (fromHost && TENANT_NAME.test(fromHost)) return { name: fromHost, by: 'host' };
  const named = new URLSearchParams(search).get('tenant')?.trim().toLowerCase();
  return named && TENANT_NAME.test(named) ? { name: named, by: 'address' } : undefined;
}

/** The names the server gives tenants (tenancy's rule): 1 to 63 of a-z, 0-9 and inner hyphens. */
export const TENANT_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
