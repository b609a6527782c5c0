import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressKind, embeddedIPv4, ipv6Words, isMetadataName, kindAllowed } from './outbound-address.js';

describe('addressKind', () => {
  it('names the IPv4 ranges an outbound request must not reach by default', () => {
    const cases: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '127.255.0.9': 'loopback',
      '10.0.0.1': 'private',
      '172.16.0.1': 'private',
      '172.31.255.255': 'private',
      '192.168.1.1': 'private',
      '100.64.0.1': 'private',
      '100.127.255.254': 'private',
      '198.18.0.1': 'private',
      '169.254.1.1': 'link-local',
      '169.254.169.254': 'metadata',
      '169.254.170.2': 'metadata',
      '100.100.100.200': 'metadata',
      '0.0.0.0': 'unspecified',
      '0.1.2.3': 'unspecified',
      '224.0.0.1': 'multicast',
      '239.255.255.250': 'multicast',
      '255.255.255.255': 'broadcast',
      '240.0.0.1': 'reserved',
      '192.0.0.8': 'reserved',
      '192.0.2.1': 'reserved',
    };
    for (const [address, kind] of Object.entries(cases)) assert.equal(addressKind(address), kind, address);
  });

  it('leaves public IPv4 addresses public, the edges of the ranges included', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '172.15.255.255',
      '172.32.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '11.0.0.1',
      '169.253.0.1',
    ]) {
      assert.equal(addressKind(address), 'public', address);
    }
  });

  it('names the IPv6 ranges, a zone ignored', () => {
    const cases: Record<string, string> = {
      '::1': 'loopback',
      '::': 'unspecified',
      'fe80::1': 'link-local',
      'fe80::1%eth0': 'link-local',
      'febf::1': 'link-local',
      'fc00::1': 'private',
      'fd12:3456::1': 'private',
      'fd00:ec2::254': 'metadata',
      'fec0::1': 'private',
      '64:ff9b:1::a00:1': 'private',
      'ff02::1': 'multicast',
      '2001:db8::1': 'reserved',
      '100::1': 'reserved',
      '2606:4700:4700::1111': 'public',
      '2a00:1450:4001:80b::200e': 'public',
    };
    for (const [address, kind] of Object.entries(cases)) assert.equal(addressKind(address), kind, address);
  });

  it('judges an IPv6 address carrying an IPv4 one by the IPv4 address: mapped, compatible, NAT64, 6to4, Teredo', () => {
    const cases: Record<string, string> = {
      '::ffff:127.0.0.1': 'loopback',
      '::ffff:7f00:1': 'loopback',
      '::FFFF:10.1.2.3': 'private',
      '::ffff:169.254.169.254': 'metadata',
      '::ffff:8.8.8.8': 'public',
      '::127.0.0.1': 'loopback',
      '::10.0.0.1': 'private',
      '64:ff9b::127.0.0.1': 'loopback',
      '64:ff9b::a9fe:a9fe': 'metadata',
      '64:ff9b::808:808': 'public',
      '2002:7f00:1::': 'loopback',
      '2002:a00:1::1': 'private',
      '2002:808:808::1': 'public',
      // Teredo: the client's address is the last 32 bits inverted (127.0.0.1 → 80ff:fffe).
      '2001:0:4136:e378:8000:63bf:80ff:fffe': 'loopback',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7': 'public',
    };
    for (const [address, kind] of Object.entries(cases)) assert.equal(addressKind(address), kind, address);
  });

  it('answers undefined for what is no IP address', () => {
    for (const text of ['localhost', 'example.com', '127.0.0.1.nip.io', '[::1]', '', '1.2.3', '::ffff:1.2.3.4.5']) {
      assert.equal(addressKind(text), undefined, text);
    }
  });
});

describe('ipv6Words and embeddedIPv4', () => {
  it('expand :: and a trailing dotted address', () => {
    assert.deepEqual(ipv6Words('::1'), [0, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(ipv6Words('1::'), [1, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(ipv6Words('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    assert.deepEqual(ipv6Words('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(ipv6Words('1.2.3.4'), undefined);
    assert.equal(embeddedIPv4('::1'), undefined, 'loopback itself carries nothing');
    assert.equal(embeddedIPv4('::'), undefined);
    assert.equal(embeddedIPv4('2606:4700::1'), undefined);
    assert.equal(embeddedIPv4('::ffff:c0a8:101'), '192.168.1.1');
  });
});

describe('isMetadataName and kindAllowed', () => {
  it('refuses the metadata services by name, whatever the case or a trailing dot', () => {
    for (const name of ['metadata.google.internal', 'METADATA.google.internal.', 'metadata', 'instance-data.ec2.internal']) {
      assert.ok(isMetadataName(name), name);
    }
    assert.ok(!isMetadataName('metadata.example.com'));
  });

  it('lets public through always, private on premises, loopback in tests, nothing else ever', () => {
    const none = { allowPrivate: false, allowLoopback: false };
    const all = { allowPrivate: true, allowLoopback: true };
    assert.ok(kindAllowed('public', none));
    assert.ok(!kindAllowed('private', none));
    assert.ok(kindAllowed('private', { allowPrivate: true, allowLoopback: false }));
    assert.ok(!kindAllowed('loopback', { allowPrivate: true, allowLoopback: false }), 'private does not open loopback');
    assert.ok(kindAllowed('loopback', { allowPrivate: false, allowLoopback: true }));
    for (const kind of ['link-local', 'metadata', 'unspecified', 'multicast', 'broadcast', 'reserved'] as const) {
      assert.ok(!kindAllowed(kind, all), kind);
    }
  });
});
