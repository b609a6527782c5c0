import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A high-entropy random value for secrets, tokens and codes (256 bits, base64url). */
export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/**
 * SHA-256 of a high-entropy secret: what is stored in its place (a slow hash adds nothing at 256
 * bits). One-shot `hash`: every request with a credential pays it, and it skips the Hash object.
 */
export const hashSecret = (secret: string): Buffer => hash('sha256', secret, 'buffer');

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(presented: string, storedHash: Buffer): boolean {
  const hash = hashSecret(presented);
  return hash.length === storedHash.length && timingSafeEqual(hash, storedHash);
}
