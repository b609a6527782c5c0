import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientAddress } from './client-address.js';

describe('clientAddress', () => {
  it('keeps an IPv4 address as it is', () => {
    assert.equal(clientAddress('192.0.2.7', '10.0.0.1'), '192.0.2.7');
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address, in any spelling', () => {
    for (const mapped of ['::ffff:192.0.2.7', '::FFFF:192.0.2.7', '::ffff:c000:207', '0:0:0:0:0:ffff:c000:0207']) {
      assert.equal(clientAddress(mapped, undefined), '192.0.2.7', mapped);
    }
    assert.equal(clientAddress('garbage', '::ffff:10.1.2.3'), '10.1.2.3', 'the peer too');
  });

  it('writes IPv6 in one canonical form and drops a zone', () => {
    assert.equal(clientAddress('2001:DB8:0:0::1', undefined), '2001:db8::1');
    assert.equal(clientAddress('2001:db8::0001', undefined), '2001:db8::1');
    assert.equal(clientAddress('fe80::1%eth0', undefined), 'fe80::1');
    assert.equal(clientAddress('::1', undefined), '::1');
  });

  it('falls back to the peer when the forwarded value is not an address', () => {
    for (const forwarded of ['garbage', '', ' ', '192.0.2.300', '203.0.113.5 203.0.113.6', 'unknown', '[::1]', undefined]) {
      assert.equal(clientAddress(forwarded, '10.1.2.3'), '10.1.2.3', String(forwarded));
    }
  });

  it('answers one fixed key when neither is an address (a Unix socket has no peer address)', () => {
    assert.equal(clientAddress('garbage', undefined), 'unknown');
    assert.equal(clientAddress(undefined, undefined), 'unknown');
  });
});
