import type { FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../../platform/http/app-error.js';

/**
 * The tenant a Host header names as `{tenant}.{baseDomain}[:port]`, or undefined when the host is
 * bare (`127.0.0.1:8080`, `localhost:8080`) or belongs to another domain. A fully qualified name's
 * trailing dot (`bravo.localhost.:8080`) names the same host (RFC 1034 §3.1), so the same tenant.
 * A host under the base domain that is not exactly one label deep (`x.demo.localhost`,
 * `.localhost`) names no tenant we serve: it is refused (400) rather than falling back to the
 * credential's tenant, so a typo never silently lands in another tenant.
 */
export function tenantNameOfHost(host: string | undefined, baseDomain: string): string | undefined {
  const name = (host ?? '').toLowerCase().replace(/:\d*$/, '').replace(/\.$/, '');
  const suffix = `.${baseDomain}`;
  if (!name.endsWith(suffix)) return undefined;
  const label = name.slice(0, -suffix.length);
  if (label === '' || label.includes('.')) {
    throw badRequest(
      'tenant.invalid_host',
      `The Host "${host}" is not {tenant}.${baseDomain}: name one tenant, one label deep, or use the bare host with X-SVC-Tenant.`,
    );
  }
  return label;
}

/**
 * The tenant name the request itself gives: the X-SVC-Tenant header or a `{tenant}.{baseDomain}`
 * Host. Both present and different: 400.
 */
export function namedTenant(request: FastifyRequest, baseDomain: string): string | undefined {
  const header = request.headers['x-svc-tenant'];
  const fromHeader = typeof header === 'string' && header.trim() !== '' ? header.trim().toLowerCase() : undefined;
  const fromHost = tenantNameOfHost(request.headers.host, baseDomain);
  if (fromHeader && fromHost && fromHeader !== fromHost) {
    throw badRequest('tenant.mismatch', `The Host names tenant "${fromHost}" but X-SVC-Tenant names "${fromHeader}"; name one tenant.`);
  }
  return fromHeader ?? fromHost;
}

/**
 * The one check of a credential against the tenant the request names (`named`: namedTenant's
 * answer), for the channels that check their own credentials (a SCIM token, an HR webhook's
 * signature): naming another tenant than the credential's is refused, 401 `auth.unauthorized`,
 * as the auth hook refuses a credential of another tenant, never served in the credential's
 * tenant instead. `credential` names it in the message (`The SCIM token`); `headers`, the
 * channel's WWW-Authenticate challenge if it has one.
 */
export function refuseOtherTenant(
  named: string | undefined,
  tenant: { name: string },
  credential: string,
  headers?: Record<string, string>,
): void {
  if (named === undefined || named === tenant.name) return;
  throw new AppError('auth.unauthorized', 401, `${credential} does not belong to tenant "${named}", the tenant this request names.`, {
    ...(headers ? { headers } : {}),
  });
}
