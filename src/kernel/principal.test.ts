import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../platform/http/app-error.js';
import { tenantWidePrincipalOf, type Principal } from './principal.js';

const requestOf = (kind: Principal['kind']) =>
  ({ principal: { kind, tenant: { id: 't', name: 'alpha' }, id: 'who' } }) as unknown as FastifyRequest;

describe('tenantWidePrincipalOf', () => {
  it('lets admins and API keys through', () => {
    for (const kind of ['admin', 'api_key'] as const) assert.equal(tenantWidePrincipalOf(requestOf(kind)).kind, kind);
  });

  it('refuses actor credentials and launch tokens with 403', () => {
    for (const kind of ['actor', 'launch'] as const) {
      assert.throws(
        () => tenantWidePrincipalOf(requestOf(kind)),
        (error: unknown) => error instanceof AppError && error.status === 403 && error.code === 'auth.forbidden',
      );
    }
  });
});
