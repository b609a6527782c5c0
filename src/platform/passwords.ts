import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt with N=2^15, r=8, p=1: 32 MiB and tens of milliseconds per hash (RFC 7914; OWASP's minimum
// for scrypt is N=2^17 with r=8 at p=1 or an equivalent; 2^15 keeps a 2-core server responsive
// under sign-in bursts and is paired with online throttling).
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

/**
 * TEST ONLY: with NODE_ENV=test and this variable `low`, new hashes use N=2^10 (a millisecond, not
 * tens of them): the test suite hashes thousands of passwords and secrets. Both are needed, so a
 * deployment's configuration cannot lower the cost by accident; a hash names its own parameters,
 * so verification is the same either way.
 */
export const TEST_PASSWORD_COST_ENV = 'LEARNBASE_TEST_PASSWORD_COST';
const TEST_PARAMS = { N: 2 ** 10, r: 8, p: 1 } as const;

/** The parameters of a new hash: the production cost, unless a test process asked for the low one. */
export function hashParameters(env: NodeJS.ProcessEnv = process.env): { N: number; r: number; p: number } {
  return env.NODE_ENV === 'test' && env[TEST_PASSWORD_COST_ENV] === 'low' ? TEST_PARAMS : PARAMS;
}

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem: 128 * options.N! * options.r! * 2 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash` (base64url parts): what is stored in place of a password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const params = hashParameters();
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Checks a password against a stored hash in constant time; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Hashes of nothing anyone knows, by cost: made once each (a salt and a key at random, no scrypt). */
const unknownHashes = new Map<number, string>();

/**
 * A hash of nothing anyone knows, at the cost new hashes are made at: verified against when an
 * account does not exist, so timing tells nothing.
 */
export function unknownAccountHash(): string {
  const { N, r, p } = hashParameters();
  let hash = unknownHashes.get(N);
  if (hash === undefined) {
    hash = `scrypt$${N}$${r}$${p}$${randomBytes(16).toString('base64url')}$${randomBytes(KEY_LENGTH).toString('base64url')}`;
    unknownHashes.set(N, hash);
  }
  return hash;
}
