import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from './config.js';

describe('loadConfig: LEARNBASE_TRUST_PROXY', () => {
  const load = (value?: string) => loadConfig({}, { LEARNBASE_TRUST_PROXY: value });

  it('trusts no proxy when unset, empty or false', () => {
    for (const value of [undefined, '', ' ', 'false']) assert.equal(load(value).trustProxy, undefined);
  });

  it('reads true, and a comma-separated list of addresses, CIDR ranges and names', () => {
    assert.equal(load('true').trustProxy, true);
    assert.deepEqual(load('127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback').trustProxy, ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback']);
  });

  it('names each entry that is not an address, a range or a known name', () => {
    assert.throws(() => load('127.0.0.1,proxy.example.com,10.0.0.0/33,1.2.3.4/8/1'), (error: Error) => {
      assert.match(error.message, /"proxy\.example\.com" is not an IP address/);
      assert.match(error.message, /"10\.0\.0\.0\/33" is not/);
      assert.match(error.message, /"1\.2\.3\.4\/8\/1" is not/);
      assert.doesNotMatch(error.message, /"127\.0\.0\.1"/);
      return true;
    });
  });
});
