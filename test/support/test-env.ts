import { TEST_PASSWORD_COST_ENV } from '../../src/platform/passwords.js';

/**
 * What the test processes and the processes they spawn run with so that passwords and learner
 * credentials hash at the low test cost (N=2^10 instead of 2^15: the suite hashes thousands), which
 * passwords.ts honours only under NODE_ENV=test. Verification reads a hash's own parameters, so
 * nothing else changes.
 */
export const TEST_PASSWORD_COST: NodeJS.ProcessEnv = { NODE_ENV: 'test', [TEST_PASSWORD_COST_ENV]: 'low' };
