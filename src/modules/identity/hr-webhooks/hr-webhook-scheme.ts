import type { AuthenticationScheme } from '../../../kernel/authentication-scheme.port.js';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { namedTenant } from '../../tenancy/index.js';
import { verifyHrMessage } from './hr-webhook.service.js';

/**
 * An HR webhook's signed message (docs/identity.md, "HR webhooks") as a scheme auth's hook runs
 * for `POST /hooks/hr/{id}` once the body is read: the signature is over the bytes sent
 * (hr-webhook.routes.ts reads them as bytes). The principal is the webhook's.
 */
export function hrWebhookAuthenticationScheme(sql: SqlClient, secrets: SecretBox, baseDomain: string): AuthenticationScheme {
  return {
    prefix: '/hooks/hr/',
    phase: 'body',
    authenticate(request, tenants) {
      const { id = '' } = request.params as { id?: string };
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return verifyHrMessage(sql, secrets, id, body, request.headers, { named: namedTenant(request, baseDomain), tenancy: tenants });
    },
  };
}
