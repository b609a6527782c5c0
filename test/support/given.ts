import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/platform/database/sql-client.js';
import { issueApiKey } from '../../src/modules/auth/api-keys/api-key.service.js';
import { TenancyService } from '../../src/modules/tenancy/tenancy.service.js';

export interface GivenTenant {
  id: string;
  name: string;
  key: string;
  secret: string;
  /** `Basic base64(key:secret)` */
  authorization: string;
  /** Authorization and X-SVC-Tenant: enough for `/api/`. */
  headers: Record<string, string>;
  /** `headers` plus X-Experience-API-Version 2.0.0: enough for `/xapi/`. */
  xapi: Record<string, string>;
}

/** Builds fixtures through the services, with overrides rather than shared constants. */
export class Given {
  constructor(
    readonly app: FastifyInstance,
    readonly db: Database,
  ) {}

  /** A new tenant with a unique name and one API key. */
  async tenant(name = `t-${randomBytes(5).toString('hex')}`): Promise<GivenTenant> {
    const tenant = await new TenancyService(this.db, 0).create(name);
    const { key, secret } = await issueApiKey(this.db, tenant);
    const authorization = `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
    const headers = { authorization, 'x-svc-tenant': tenant.name };
    return {
      id: tenant.id,
      name: tenant.name,
      key,
      secret,
      authorization,
      headers,
      xapi: { ...headers, 'x-experience-api-version': '2.0.0' },
    };
  }
}
