import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../platform/http/app-error.js';
import { tenantNameOfHost } from './tenant-host.js';

describe('tenantNameOfHost', () => {
  it('reads the tenant label with or without a port', () => {
    assert.equal(tenantNameOfHost('bravo.localhost:8080', 'localhost'), 'bravo');
    assert.equal(tenantNameOfHost('BRAVO.LOCALHOST', 'localhost'), 'bravo');
  });

  it('reads a fully qualified host with a trailing dot as the same tenant', () => {
    assert.equal(tenantNameOfHost('bravo.localhost.:8080', 'localhost'), 'bravo');
    assert.equal(tenantNameOfHost('bravo.localhost.', 'localhost'), 'bravo');
  });

  it('names no tenant for a bare host or another domain', () => {
    for (const host of [
      '127.0.0.1:8080',
      'localhost:8080',
      'localhost.:8080',
      '[::1]:8080',
      'example.com',
      'bravo.example.com',
      undefined,
    ]) {
      assert.equal(tenantNameOfHost(host, 'localhost'), undefined, String(host));
    }
  });

  it('refuses a host under the base domain that is not one label deep', () => {
    for (const host of ['x.demo.localhost', 'x.demo.localhost.:8080', '.localhost', '.localhost:8080']) {
      assert.throws(
        () => tenantNameOfHost(host, 'localhost'),
        (error: unknown) => error instanceof AppError && error.status === 400 && error.code === 'tenant.invalid_host',
        host,
      );
    }
  });
});
