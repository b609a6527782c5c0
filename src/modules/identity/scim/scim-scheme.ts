import type { AuthenticationScheme } from '../../../kernel/authentication-scheme.port.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError } from '../../../platform/http/app-error.js';
import { scimPrincipal } from '../../auth/index.js';
import { namedTenant, refuseOtherTenant } from '../../tenancy/index.js';
import { verifyScimToken } from './scim-token.service.js';

const CHALLENGE = 'Bearer realm="learnbase-scim"';

const unauthorized = (detail: string) => new AppError('auth.unauthorized', 401, detail, { headers: { 'WWW-Authenticate': CHALLENGE } });

/**
 * The SCIM service provider's credential (docs/identity.md, "SCIM"), as a scheme auth's hook runs
 * for every request under `/scim/`: its own bearer tokens (scim-token.service.ts); the tenant is
 * the token's, and a tenant named by the sub-domain or X-SVC-Tenant must be the same. The 401s are
 * answered in SCIM's shape by the routes' error setting (scim.routes.ts).
 */
export function scimAuthenticationScheme(sql: SqlClient, baseDomain: string): AuthenticationScheme {
  return {
    prefix: '/scim/',
    async authenticate(request, tenants) {
      const named = namedTenant(request, baseDomain);
      const header = request.headers.authorization ?? '';
      const [scheme, token = ''] = header.trim().split(/\s+/, 2) as [string, string?];
      if (!header) throw unauthorized('Authentication is required: send the SCIM token as "Authorization: Bearer <token>".');
      if (scheme.toLowerCase() !== 'bearer')
        throw unauthorized(`The ${scheme} scheme is not accepted here: send the SCIM token as a Bearer token.`);
      const verified = await verifyScimToken(sql, token);
      const tenant = verified && (await tenants.findById(verified.tenantId));
      if (!verified || !tenant) throw unauthorized('The SCIM token is not valid, or was revoked.');
      refuseOtherTenant(named, tenant, 'The SCIM token', { 'WWW-Authenticate': CHALLENGE });
      return scimPrincipal(tenant, verified.id);
    },
  };
}
