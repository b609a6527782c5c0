import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SIGN_IN_POLICY, delayAfter } from './sign-in-throttle.js';

describe('delayAfter', () => {
  it('answers the first failures at once, then one step more per failure, up to the cap', () => {
    const delays = [1, 2, 3, 4, 5, 10, 50].map((failures) => delayAfter(failures, DEFAULT_SIGN_IN_POLICY));
    assert.deepEqual(delays, [0, 0, 1_000, 2_000, 3_000, 5_000, 5_000]);
  });

  it('follows the policy', () => {
    assert.equal(delayAfter(4, { ...DEFAULT_SIGN_IN_POLICY, slowAfter: 0, delayStepMs: 100, maxDelayMs: 250 }), 250);
    assert.equal(delayAfter(9, { ...DEFAULT_SIGN_IN_POLICY, delayStepMs: 0 }), 0);
  });
});
