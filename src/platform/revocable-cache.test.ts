import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalNotifyBus, type NotifyBus } from './database/notify-bus.js';
import { RevocableCache } from './revocable-cache.js';

const CHANNEL = 'test_revocations';

/** A bus that records what is published and lets the test deliver messages and gaps by hand. */
class ManualBus implements NotifyBus {
  readonly published: string[] = [];
  failPublishing = false;
  private listeners: { onMessage: (payload: string) => void; onGap?: () => void }[] = [];

  async publish(channel: string, payload: string): Promise<void> {
    assert.equal(channel, CHANNEL);
    if (this.failPublishing) throw new Error('the database is gone');
    this.published.push(payload);
  }

  async listen(channel: string, onMessage: (payload: string) => void, onGap?: () => void): Promise<() => void> {
    assert.equal(channel, CHANNEL);
    const listener = { onMessage, onGap };
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((other) => other !== listener);
    };
  }

  async close(): Promise<void> {}

  deliver(payload: string): void {
    for (const listener of this.listeners) listener.onMessage(payload);
  }

  gap(): void {
    for (const listener of this.listeners) listener.onGap?.();
  }
}

describe('RevocableCache', () => {
  it('keeps a verified entry for its TTL, and nothing when the TTL is 0', async () => {
    const cache = new RevocableCache<string>(new ManualBus(), CHANNEL, { ttlMs: 50 });
    cache.set('a', 'grant');
    assert.equal(cache.get('a'), 'grant');
    await sleep(70);
    assert.equal(cache.get('a'), undefined, 'expired');

    const off = new RevocableCache<string>(new ManualBus(), CHANNEL, { ttlMs: 0 });
    off.set('a', 'grant');
    assert.equal(off.get('a'), undefined);
  });

  it('revokes here at once, before the announcement is out, and in every process that hears it', async () => {
    const bus = new LocalNotifyBus();
    const here = new RevocableCache<string>(bus, CHANNEL, { ttlMs: 60_000 });
    const there = new RevocableCache<string>(bus, CHANNEL, { ttlMs: 60_000 });
    await here.start();
    await there.start();
    here.set('a', 'grant');
    there.set('a', 'grant');
    there.set('b', 'other');

    const announced = here.revoke(['a']);
    assert.equal(here.get('a'), undefined, 'evicted synchronously');
    assert.ok(here.isRevoked('a'));
    await announced;
    assert.equal(there.get('a'), undefined);
    assert.ok(there.isRevoked('a'));
    assert.equal(there.get('b'), 'other', 'other keys stay');
    here.stop();
    there.stop();
  });

  it('does not cache a key revoked lately (a check that read its row just before the revocation)', async () => {
    const cache = new RevocableCache<string>(new ManualBus(), CHANNEL, { ttlMs: 50 });
    await cache.revoke(['a']);
    cache.set('a', 'stale');
    assert.equal(cache.get('a'), undefined);
    await sleep(70);
    assert.equal(cache.isRevoked('a'), false, 'remembered for the TTL');
    cache.set('a', 'fresh');
    assert.equal(cache.get('a'), 'fresh');
  });

  it('remembers revocations for revokedTtlMs when given, even when it caches nothing', async () => {
    const cache = new RevocableCache<string>(new ManualBus(), CHANNEL, { ttlMs: 0, revokedTtlMs: 50 });
    await cache.revoke(['a']);
    assert.ok(cache.isRevoked('a'));
    await sleep(70);
    assert.equal(cache.isRevoked('a'), false);

    const plain = new RevocableCache<string>(new ManualBus(), CHANNEL, { ttlMs: 0 });
    await plain.revoke(['a']);
    assert.equal(plain.isRevoked('a'), false, 'without it, as long as entries: here not at all');
  });

  it('forgets every entry and counts a generation when messages may have been lost, but keeps what it knows is revoked', async () => {
    const bus = new ManualBus();
    const cache = new RevocableCache<string>(bus, CHANNEL, { ttlMs: 60_000 });
    await cache.start();
    cache.set('a', 'grant');
    await cache.revoke(['r']);
    assert.equal(cache.generation, 0);
    bus.gap();
    assert.equal(cache.generation, 1);
    assert.equal(cache.get('a'), undefined);
    assert.ok(cache.isRevoked('r'));
    cache.set('a', 'again');
    assert.equal(cache.get('a'), 'again', 'caches again after the gap');
  });

  it('reads comma-separated keys, ignoring empty ones', async () => {
    const bus = new ManualBus();
    const cache = new RevocableCache<string>(bus, CHANNEL, { ttlMs: 60_000 });
    await cache.start();
    for (const key of ['a', 'b', 'c']) cache.set(key, key);
    bus.deliver('a,,c,');
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.get('b'), 'b');
    assert.equal(cache.get('c'), undefined);
    assert.ok(cache.isRevoked('c'));
    assert.equal(cache.isRevoked(''), false);
  });

  it('announces many keys in as few messages as fit the 7,999-byte payload limit, and none for no keys', async () => {
    const bus = new ManualBus();
    const cache = new RevocableCache<string>(bus, CHANNEL, { ttlMs: 60_000 });
    const keys = Array.from({ length: 300 }, (_, i) => i.toString(16).padStart(64, '0'));
    await cache.revoke(keys);
    assert.equal(bus.published.length, 3, '123 keys of 64 characters and their commas fit one message');
    for (const payload of bus.published) assert.ok(Buffer.byteLength(payload) <= 7_999);
    assert.deepEqual(bus.published.join(',').split(','), keys);
    await cache.revoke([]);
    assert.equal(bus.published.length, 3);
  });

  it('reports a failed announcement and still revokes here', async () => {
    const bus = new ManualBus();
    bus.failPublishing = true;
    const errors: Error[] = [];
    const cache = new RevocableCache<string>(bus, CHANNEL, { ttlMs: 60_000, onError: (error) => errors.push(error) });
    cache.set('a', 'grant');
    await cache.revoke(['a']);
    assert.equal(errors.length, 1);
    assert.equal(cache.get('a'), undefined);
    assert.ok(cache.isRevoked('a'));
  });

  it('hears nothing once stopped', async () => {
    const bus = new ManualBus();
    const cache = new RevocableCache<string>(bus, CHANNEL, { ttlMs: 60_000 });
    await cache.start();
    cache.stop();
    cache.set('a', 'grant');
    bus.deliver('a');
    bus.gap();
    assert.equal(cache.get('a'), 'grant');
    assert.equal(cache.generation, 0);
  });
});
