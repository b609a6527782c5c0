import { X509Certificate } from 'node:crypto';
import { base64url, compactVerify, decodeProtectedHeader, importX509, type ProtectedHeaderParameters } from 'jose';
import { sameStatement } from '../statement-model.js';
import type { JsonObject } from '../../../../kernel/formats.js';
import { AttachmentErrors } from './attachment.errors.js';

/** The usageType of a statement signature (xAPI 2.0 Part 2 §2.6). */
export const SIGNATURE_USAGE_TYPE = 'http://adlnet.gov/expapi/attachments/signature';
/** The only contentType a signature attachment may have (2.0 Part 2 §2.6.s4.b1). */
export const SIGNATURE_CONTENT_TYPE = 'application/octet-stream';

/** 2.0 Part 2 §2.6.s4.b4: the algorithms a statement signature may use. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512'];

/**
 * Checks a statement signature (xAPI 2.0 Part 2 §2.6, 1.0.3 §2.6): `jws` is the data of the
 * signature attachment of `statement` (the statement as sent), at `path` for the error.
 *
 * - a JWS in compact serialization whose protected header says RS256, RS384 or RS512;
 * - its payload is a JSON statement that is the same as the one sent, by the comparison of
 *   2.0 Part 2 §2.3.1 (`sameStatement`: what the LRS assigns, attachments, definitions and the
 *   like ignored; durations to 0.01 s);
 * - with an `x5c` header, the signature verifies with the first certificate's key and each
 *   certificate of the chain is issued and signed by the next. The chain is not checked against
 *   a trust store (the spec names none) nor for expiry: a statement may be stored years after
 *   it was signed. Without `x5c` there is no key to verify with, and the signature is accepted
 *   on its form and payload alone, as the spec allows (verifying is the LRS's SHOULD).
 *
 * Throws a 400 `statements.invalid_signature` naming what is wrong.
 */
export async function checkSignature(statement: JsonObject, jws: string, path: string): Promise<void> {
  const token = jws.trim();
  const segments = token.split('.');
  if (segments.length !== 3 || segments.some((segment) => !/^[A-Za-z0-9_-]*$/.test(segment)) || segments[1] === '') {
    throw AttachmentErrors.invalidSignature(path, 'it is not a JWS in compact serialization');
  }
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw AttachmentErrors.invalidSignature(path, 'its protected header is not a JSON object');
  }
  if (typeof header.alg !== 'string' || !ALGORITHMS.includes(header.alg)) {
    throw AttachmentErrors.invalidSignature(path, `its algorithm is ${JSON.stringify(header.alg ?? null)}, not RS256, RS384 or RS512`);
  }
  const payload = decodePayload(segments[1]);
  if (payload === undefined) throw AttachmentErrors.invalidSignature(path, 'its payload is not a JSON statement');
  if (header.x5c !== undefined) await verifyWithChain(token, header.alg, header.x5c, path);
  if (!sameStatement(statement, payload)) {
    throw AttachmentErrors.invalidSignature(path, 'its payload is not the statement it is attached to');
  }
}

function decodePayload(segment: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(segment)));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

async function verifyWithChain(token: string, alg: string, x5c: unknown, path: string): Promise<void> {
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((item) => typeof item === 'string')) {
    throw AttachmentErrors.invalidSignature(path, 'its x5c header is not a list of certificates');
  }
  let chain: X509Certificate[];
  try {
    chain = x5c.map((der: string) => new X509Certificate(Buffer.from(der, 'base64')));
  } catch {
    throw AttachmentErrors.invalidSignature(path, 'its x5c header holds something that is not an X.509 certificate');
  }
  for (let index = 0; index + 1 < chain.length; index += 1) {
    const issuer = chain[index + 1];
    if (!chain[index].checkIssued(issuer) || !chain[index].verify(issuer.publicKey)) {
      throw AttachmentErrors.invalidSignature(path, `certificate ${index + 1} of its x5c chain is not issued by the next one`);
    }
  }
  try {
    const key = await importX509(chain[0].toString(), alg);
    await compactVerify(token, key, { algorithms: [alg] });
  } catch {
    throw AttachmentErrors.invalidSignature(path, 'it does not verify with the first certificate of its x5c chain');
  }
}
