import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from './config.js';

describe('loadConfig: LEARNBASE_TRUST_PROXY', () => {
  const load = (value?: string) => loadConfig({}, { LEARNBASE_TRUST_PROXY: value });

  it('trusts no proxy when unset, empty or false', () => {
    for (const value of [undefined, '', ' ', 'false']) assert.equal(load(value).trustProxy, undefined);
  });

  it('reads true, and a comma-separated list of addresses, CIDR ranges and names', () => {
    assert.equal(load('true').trustProxy, true);
    assert.deepEqual(load('127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback').trustProxy, [
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('names each entry that is not an address, a range or a known name', () => {
    assert.throws(
      () => load('127.0.0.1,proxy.example.com,10.0.0.0/33,1.2.3.4/8/1'),
      (error: Error) => {
        assert.match(error.message, /"proxy\.example\.com" is not an IP address/);
        assert.match(error.message, /"10\.0\.0\.0\/33" is not/);
        assert.match(error.message, /"1\.2\.3\.4\/8\/1" is not/);
        assert.doesNotMatch(error.message, /"127\.0\.0\.1"/);
        return true;
      },
    );
  });
});

describe('loadConfig: connection timeouts, cap and shutdown grace', () => {
  it('defaults to a 10 s headers, 60 s request and 5 s keep-alive timeout, 10,000 connections and a 10 s grace', () => {
    for (const blank of [undefined, '', ' ']) {
      const config = loadConfig(
        {},
        {
          LEARNBASE_HEADERS_TIMEOUT_MS: blank,
          LEARNBASE_REQUEST_TIMEOUT_MS: blank,
          LEARNBASE_KEEP_ALIVE_TIMEOUT_MS: blank,
          LEARNBASE_MAX_CONNECTIONS: blank,
          LEARNBASE_SHUTDOWN_GRACE_MS: blank,
        },
      );
      assert.deepEqual(
        [config.headersTimeoutMs, config.requestTimeoutMs, config.keepAliveTimeoutMs, config.maxConnections, config.shutdownGraceMs],
        [10_000, 60_000, 5_000, 10_000, 10_000],
      );
    }
  });

  it('answers /xapi/ in 2.0.0 unless LEARNBASE_XAPI_DEFAULT_VERSION pins 1.0.3 (blank: the default)', () => {
    assert.equal(loadConfig({}, {}).xapiDefaultVersion, '2.0.0');
    assert.equal(loadConfig({}, { LEARNBASE_XAPI_DEFAULT_VERSION: ' ' }).xapiDefaultVersion, '2.0.0');
    assert.equal(loadConfig({}, { LEARNBASE_XAPI_DEFAULT_VERSION: '1.0.3' }).xapiDefaultVersion, '1.0.3');
  });

  it('requires the xAPI version header unless LEARNBASE_XAPI_VERSION_HEADER=optional (blank: the default)', () => {
    assert.equal(loadConfig({}, {}).xapiVersionHeader, 'required');
    assert.equal(loadConfig({}, { LEARNBASE_XAPI_VERSION_HEADER: ' ' }).xapiVersionHeader, 'required');
    assert.equal(loadConfig({}, { LEARNBASE_XAPI_VERSION_HEADER: 'optional' }).xapiVersionHeader, 'optional');
  });

  it('keeps LEARNBASE_PUBLIC_URL without a trailing slash, a path allowed; blank is none', () => {
    assert.equal(loadConfig({}, {}).publicUrl, undefined);
    assert.equal(loadConfig({}, { LEARNBASE_PUBLIC_URL: ' ' }).publicUrl, undefined);
    assert.equal(loadConfig({}, { LEARNBASE_PUBLIC_URL: 'https://lrs.example.com/' }).publicUrl, 'https://lrs.example.com');
    assert.equal(loadConfig({}, { LEARNBASE_PUBLIC_URL: 'http://lrs.example.com:8443/lrs/' }).publicUrl, 'http://lrs.example.com:8443/lrs');
  });

  it('reads a blank cache TTL or document limit as the default, not 0', () => {
    const config = loadConfig({}, { LEARNBASE_CACHE_TTL_MS: '', LEARNBASE_DOCUMENT_LIMIT_BYTES: ' ' });
    assert.equal(config.cacheTtlMs, 5_000);
    assert.equal(config.documentLimitBytes, 16 * 1024 * 1024);
  });

  it('limits a multipart statement request to 64 MiB unless LEARNBASE_XAPI_ATTACHMENT_LIMIT_BYTES says otherwise (blank: the default)', () => {
    assert.equal(loadConfig({}, {}).xapiAttachmentLimitBytes, 64 * 1024 * 1024);
    assert.equal(loadConfig({}, { LEARNBASE_XAPI_ATTACHMENT_LIMIT_BYTES: ' ' }).xapiAttachmentLimitBytes, 64 * 1024 * 1024);
    assert.equal(loadConfig({}, { LEARNBASE_XAPI_ATTACHMENT_LIMIT_BYTES: '1048576' }).xapiAttachmentLimitBytes, 1_048_576);
  });

  it('reads each from the environment', () => {
    const config = loadConfig(
      {},
      {
        LEARNBASE_HEADERS_TIMEOUT_MS: '2000',
        LEARNBASE_REQUEST_TIMEOUT_MS: '120000',
        LEARNBASE_KEEP_ALIVE_TIMEOUT_MS: '65000',
        LEARNBASE_MAX_CONNECTIONS: '500',
        LEARNBASE_SHUTDOWN_GRACE_MS: '0',
      },
    );
    assert.deepEqual(
      [config.headersTimeoutMs, config.requestTimeoutMs, config.keepAliveTimeoutMs, config.maxConnections, config.shutdownGraceMs],
      [2_000, 120_000, 65_000, 500, 0],
    );
  });

  const refusals: Array<[string, string, RegExp]> = [
    ['LEARNBASE_HEADERS_TIMEOUT_MS', '-1', /\/headersTimeoutMs/],
    ['LEARNBASE_HEADERS_TIMEOUT_MS', 'ten', /\/headersTimeoutMs/],
    ['LEARNBASE_HEADERS_TIMEOUT_MS', '0', /\/headersTimeoutMs/],
    ['LEARNBASE_REQUEST_TIMEOUT_MS', '30s', /\/requestTimeoutMs/],
    ['LEARNBASE_REQUEST_TIMEOUT_MS', '1.5', /\/requestTimeoutMs/],
    ['LEARNBASE_KEEP_ALIVE_TIMEOUT_MS', '0', /\/keepAliveTimeoutMs/],
    ['LEARNBASE_KEEP_ALIVE_TIMEOUT_MS', '99999999999', /\/keepAliveTimeoutMs/],
    ['LEARNBASE_MAX_CONNECTIONS', '0', /\/maxConnections/],
    ['LEARNBASE_MAX_CONNECTIONS', 'Infinity', /\/maxConnections/],
    ['LEARNBASE_SHUTDOWN_GRACE_MS', '-5', /\/shutdownGraceMs/],
    ['LEARNBASE_SHUTDOWN_GRACE_MS', 'soon', /\/shutdownGraceMs/],
    ['LEARNBASE_XAPI_DEFAULT_VERSION', '1.0.2', /\/xapiDefaultVersion/],
    ['LEARNBASE_PUBLIC_URL', 'ftp://lrs.example.com', /\/publicUrl/],
    ['LEARNBASE_PUBLIC_URL', 'https://lrs.example.com/?x=1', /\/publicUrl/],
    ['LEARNBASE_PUBLIC_URL', 'lrs.example.com', /\/publicUrl/],
    ['LEARNBASE_XAPI_DEFAULT_VERSION', '2.0', /\/xapiDefaultVersion/],
    ['LEARNBASE_XAPI_VERSION_HEADER', 'off', /\/xapiVersionHeader/],
    ['LEARNBASE_XAPI_ATTACHMENT_LIMIT_BYTES', '0', /\/xapiAttachmentLimitBytes/],
    ['LEARNBASE_XAPI_ATTACHMENT_LIMIT_BYTES', '10MB', /\/xapiAttachmentLimitBytes/],
  ];
  for (const [name, value, named] of refusals) {
    it(`refuses ${name}=${value}`, () => {
      assert.throws(
        () => loadConfig({}, { [name]: value }),
        (error: Error) => {
          assert.match(error.message, /^Invalid configuration:/);
          assert.match(error.message, named);
          return true;
        },
      );
    });
  }

  it('refuses a headers timeout longer than the request timeout, which Node would not start with', () => {
    assert.throws(
      () => loadConfig({}, { LEARNBASE_HEADERS_TIMEOUT_MS: '20000', LEARNBASE_REQUEST_TIMEOUT_MS: '15000' }),
      /Invalid configuration:[\s\S]*headersTimeoutMs must not exceed \/requestTimeoutMs/,
    );
    assert.equal(loadConfig({}, { LEARNBASE_HEADERS_TIMEOUT_MS: '15000', LEARNBASE_REQUEST_TIMEOUT_MS: '15000' }).headersTimeoutMs, 15_000);
  });
});

describe('loadConfig: LEARNBASE_METRICS_TOKEN', () => {
  const token = 'a'.repeat(24) + '0123456789._~+/=-';

  it('has no token when unset or blank: /metrics serves loopback clients only', () => {
    assert.equal(loadConfig({}, {}).metricsToken, undefined);
    assert.equal(loadConfig({}, { LEARNBASE_METRICS_TOKEN: '  ' }).metricsToken, undefined);
  });

  it('reads a token of at least 32 characters of the bearer token alphabet, trimmed', () => {
    assert.equal(loadConfig({}, { LEARNBASE_METRICS_TOKEN: ` ${token} ` }).metricsToken, token);
  });

  it('refuses a short token or one with characters a bearer token cannot carry, without printing it', () => {
    for (const value of ['short-token', `${'b'.repeat(40)} c`, `${'b'.repeat(40)}"`]) {
      assert.throws(
        () => loadConfig({}, { LEARNBASE_METRICS_TOKEN: value }),
        (error: Error) => {
          assert.match(error.message, /\/metricsToken/);
          assert.ok(!error.message.includes(value.trim()), error.message);
          return true;
        },
      );
    }
  });
});

describe('loadConfig: the import folder', () => {
  it('watches no folder unless LEARNBASE_IMPORT_DROP_DIR names one, made absolute; polls every 2 s and waits for 3 s of stillness', () => {
    for (const blank of [undefined, '', ' ']) assert.equal(loadConfig({}, { LEARNBASE_IMPORT_DROP_DIR: blank }).importDropDir, undefined);
    const config = loadConfig({}, { LEARNBASE_IMPORT_DROP_DIR: 'drop' });
    assert.equal(config.importDropDir, resolve('drop'));
    assert.deepEqual([config.importDropIntervalMs, config.importDropStableMs], [2_000, 3_000]);
    const set = loadConfig({}, { LEARNBASE_IMPORT_DROP_INTERVAL_MS: '500', LEARNBASE_IMPORT_DROP_STABLE_MS: '0' });
    assert.deepEqual([set.importDropIntervalMs, set.importDropStableMs], [500, 0]);
  });

  it('lets a users sync deactivate at most a tenth of the people unless LEARNBASE_IMPORT_SYNC_MAX_SHARE says another share, 0 to 1', () => {
    assert.equal(loadConfig({}, {}).importSyncMaxShare, 0.1);
    for (const [value, share] of [
      ['0.25', 0.25],
      ['0', 0],
      ['1', 1],
      [' ', 0.1],
    ] as const) {
      assert.equal(loadConfig({}, { LEARNBASE_IMPORT_SYNC_MAX_SHARE: value }).importSyncMaxShare, share, value);
    }
  });

  for (const [name, value] of [
    ['LEARNBASE_IMPORT_DROP_INTERVAL_MS', '50'],
    ['LEARNBASE_IMPORT_DROP_INTERVAL_MS', 'often'],
    ['LEARNBASE_IMPORT_DROP_STABLE_MS', '-1'],
    ['LEARNBASE_IMPORT_DROP_STABLE_MS', '86400001'],
    ['LEARNBASE_IMPORT_SYNC_MAX_SHARE', '-0.1'],
    ['LEARNBASE_IMPORT_SYNC_MAX_SHARE', '1.5'],
    ['LEARNBASE_IMPORT_SYNC_MAX_SHARE', '10%'],
    ['LEARNBASE_IMPORT_SYNC_MAX_SHARE', 'NaN'],
  ]) {
    it(`refuses ${name}=${value}`, () => {
      assert.throws(() => loadConfig({}, { [name]: value }), /Invalid configuration/);
    });
  }
});
