/**
 * The tenant a Host header names as `{tenant}.{baseDomain}[:port]`, or undefined when the host is
 * bare (`127.0.0.1:8080`, `localhost:8080`) or belongs to another domain.
 */
export function tenantNameOfHost(host: string | undefined, baseDomain: string): string | undefined {
  const name = (host ?? '').toLowerCase().replace(/:\d+$/, '');
  const suffix = `.${baseDomain}`;
  const label = name.endsWith(suffix) ? name.slice(0, -suffix.length) : '';
  return label !== '' && !label.includes('.') ? label : undefined;
}
