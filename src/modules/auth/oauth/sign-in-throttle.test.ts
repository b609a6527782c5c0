import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SIGN_IN_POLICY, delayAfter, failureOutcome } from './sign-in-throttle.js';

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

describe('failureOutcome', () => {
  it("slows by the account's place, and by the address's from as many failures before its own limit", () => {
    const delay = (accountCount: number, addressCount: number) =>
      failureOutcome({ accountCount, addressCount }, DEFAULT_SIGN_IN_POLICY).delayMs;
    assert.equal(delay(1, 1), 0);
    assert.equal(delay(3, 3), 1_000);
    assert.equal(delay(1, 17), 0, 'the address: failures 1–17 at once');
    assert.equal(delay(1, 18), 1_000);
    assert.equal(delay(4, 19), 2_000);
  });

  it('passes on the lock the attempt reached', () => {
    const until = new Date(Date.now() + 900_000);
    assert.deepEqual(failureOutcome({ accountCount: 5, addressCount: 5, lockedUntil: until }, DEFAULT_SIGN_IN_POLICY).lockedUntil, until);
    assert.equal(failureOutcome({ accountCount: 4, addressCount: 4 }, DEFAULT_SIGN_IN_POLICY).lockedUntil, undefined);
  });
});
