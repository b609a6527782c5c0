import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailureWindow } from './failure-window.js';

describe('FailureWindow', () => {
  it('blocks a key at the limit until its oldest failure leaves the window, and clears on request', () => {
    const window = new FailureWindow(3, 1_000);
    window.fail('a', 0);
    window.fail('a', 100);
    assert.equal(window.blockedFor('a', 200), 0);
    window.fail('a', 200);
    assert.equal(window.blockedFor('a', 300), 700);
    assert.equal(window.blockedFor('b', 300), 0);
    assert.equal(window.blockedFor('a', 1_000), 0, 'the failure at 0 has left the window');
    window.clear('b');
    window.clear('a');
    assert.equal(window.blockedFor('a', 300), 0);
  });

  it('keeps at most maxKeys keys, forgetting the one that failed longest ago', () => {
    const window = new FailureWindow(1, 10_000, 2);
    window.fail('a', 0);
    window.fail('b', 1);
    window.fail('a', 2);
    window.fail('c', 3);
    assert.equal(window.blockedFor('b', 4), 0, 'b was forgotten');
    assert.ok(window.blockedFor('a', 4) > 0);
    assert.ok(window.blockedFor('c', 4) > 0);
  });
});
