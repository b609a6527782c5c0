import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hashParameters, hashPassword, TEST_PASSWORD_COST_ENV, verifyPassword } from './passwords.js';

it('hashParameters: the production cost unless a test process asks for the low one with both variables', () => {
  assert.deepEqual(hashParameters({}), { N: 2 ** 15, r: 8, p: 1 });
  assert.deepEqual(hashParameters({ [TEST_PASSWORD_COST_ENV]: 'low' }), { N: 2 ** 15, r: 8, p: 1 }, 'not outside NODE_ENV=test');
  assert.deepEqual(hashParameters({ NODE_ENV: 'production', [TEST_PASSWORD_COST_ENV]: 'low' }), { N: 2 ** 15, r: 8, p: 1 });
  assert.deepEqual(hashParameters({ NODE_ENV: 'test' }), { N: 2 ** 15, r: 8, p: 1 });
  assert.deepEqual(hashParameters({ NODE_ENV: 'test', [TEST_PASSWORD_COST_ENV]: 'LOW' }), { N: 2 ** 15, r: 8, p: 1 });
  assert.deepEqual(hashParameters({ NODE_ENV: 'test', [TEST_PASSWORD_COST_ENV]: 'low' }), { N: 2 ** 10, r: 8, p: 1 });
});

it('a hash names its own cost: one made at either cost verifies, a wrong password never', async () => {
  const stored = await hashPassword('correct horse battery staple');
  const [scheme, n] = stored.split('$');
  assert.equal(scheme, 'scrypt');
  assert.equal(Number(n), hashParameters().N);
  assert.equal(await verifyPassword('correct horse battery staple', stored), true);
  assert.equal(await verifyPassword('correct horse battery stapler', stored), false);
  const production = 'scrypt$32768$8$1$' + stored.split('$').slice(4).join('$');
  assert.equal(await verifyPassword('correct horse battery staple', production), Number(n) === 32768);
});
