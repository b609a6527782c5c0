import { randomBytes } from 'node:crypto';
import { type CacheProvider, type Profile, SAML, type SamlConfig, ValidateInResponseTo } from '@node-saml/node-saml';
import { responseProblem } from './saml-response-rules.js';
import type { SamlConnectionInput } from './sso-connection-rules.js';

/**
 * SAML 2.0 single sign-on (docs/identity.md, "SAML 2.0") through node-saml: the AuthnRequest the
 * browser takes to the identity provider (HTTP-Redirect binding), and the check of the Response it
 * brings back (HTTP-POST binding): an assertion signed by one of the connection's certificates
 * (a signature over the Response alone is not enough), issued by the connection's provider, for
 * this server (audience), to this server's address (recipient), within its validity (60 seconds of
 * clock skew), in answer to the request of this sign-in (InResponseTo: an answer nobody asked for,
 * or an answer replayed after it was taken, is refused). What node-saml does not check, the
 * Response's Destination and SHA-1 in its signatures, saml-response-rules.ts does first.
 */

/** Where providers post their answers (the HTTP-POST binding's Assertion Consumer Service). */
export const SAML_ACS_PATH = '/auth/sso/saml';
/** Where this server's metadata for a tenant's connection is published (no credential: metadata is public). */
export const SAML_METADATA_PATH = '/auth/sso/saml/:tenant/:name/metadata';

/** How far the provider's clock may be from ours. */
const CLOCK_SKEW_MS = 60_000;

/** An AuthnRequest's ID: an XML name, so it starts with an underscore. */
export const newRequestId = () => `_${randomBytes(20).toString('hex')}`;

/** A cache that knows the one request this sign-in sent: the InResponseTo of its answer must be it. */
function oneRequest(requestId: string): CacheProvider {
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (key === requestId ? new Date().toISOString() : null),
    removeAsync: async () => null,
  };
}

function samlOf(connection: SamlConnectionInput, acsUrl: string, extra: Partial<SamlConfig>): SAML {
  return new SAML({
    callbackUrl: acsUrl,
    entryPoint: connection.entryPoint,
    issuer: connection.spEntityId,
    audience: connection.spEntityId,
    idpCert: connection.certificates,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    // No NameID format and no authentication context asked for: the provider's choice (Entra ID
    // refuses a sign-in by MFA or Windows when a password context is requested).
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    ...extra,
  });
}

/** The provider's address with the AuthnRequest `requestId` and the sign-in's state as RelayState. */
export function authnRequestUrl(connection: SamlConnectionInput, acsUrl: string, requestId: string, relayState: string): Promise<string> {
  const saml = samlOf(connection, acsUrl, { generateUniqueId: () => requestId, cacheProvider: oneRequest(requestId) });
  return saml.getAuthorizeUrlAsync(relayState, undefined, {});
}

/**
 * This server's metadata for one connection (SAML 2.0 Metadata §2.4.4): its entity ID, the
 * Assertion Consumer Service (HTTP-POST) and that it wants assertions signed; it signs no
 * requests and takes no encrypted assertions, so it names no key. What an identity provider
 * imports to register this server (Entra ID's "Upload metadata file", Keycloak's client import).
 */
export function serviceProviderMetadata(connection: SamlConnectionInput, acsUrl: string): string {
  return samlOf(connection, acsUrl, { generateUniqueId: newRequestId }).generateServiceProviderMetadata(null, null);
}

type XmlJs = Record<string, unknown> & { $?: Record<string, string> };
const children = (node: unknown, name: string): XmlJs[] => {
  const value = node && typeof node === 'object' ? (node as Record<string, unknown>)[name] : undefined;
  return Array.isArray(value) ? (value as XmlJs[]) : [];
};

/** Whether one of the assertion's bearer confirmations names `acsUrl` as its Recipient (SAML 2.0 Profiles §4.1.4.2). */
function namesRecipient(profile: Profile, acsUrl: string): boolean {
  const assertion = (profile.getAssertion?.() as Record<string, unknown> | undefined)?.Assertion;
  return children(assertion, 'Subject')
    .flatMap((subject) => children(subject, 'SubjectConfirmation'))
    .flatMap((confirmation) => children(confirmation, 'SubjectConfirmationData'))
    .some((data) => data.$?.Recipient === acsUrl);
}

/** The names a person's display name comes in: Entra ID's claim, LDAP's. */
const DISPLAY_NAMES = ['http://schemas.microsoft.com/identity/claims/displayname', 'displayName', 'cn'];

/**
 * The claims of a checked Response (as an ID token's would be read): its attributes by name, the
 * subject's `nameID`, `email` (node-saml's reading of `mail` and its OID), `name` from a display
 * name. Throws, with node-saml's reason or ours, when the Response does not check (`acsUrl` is the
 * address the sign-in's AuthnRequest named: the Destination and Recipient the Response must carry).
 */
export async function checkedAssertion(
  connection: SamlConnectionInput,
  acsUrl: string,
  requestId: string,
  samlResponse: string,
): Promise<Record<string, unknown>> {
  const problem = responseProblem(Buffer.from(samlResponse, 'base64').toString('utf8'), acsUrl, connection.allowSha1 === true);
  if (problem) throw new Error(problem);
  const saml = samlOf(connection, acsUrl, { cacheProvider: oneRequest(requestId) });
  const { profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse });
  if (!profile) throw new Error('the Response carries no assertion');
  if (profile.issuer !== connection.idpEntityId) throw new Error(`the assertion's Issuer is not ${connection.idpEntityId}`);
  if (!namesRecipient(profile, acsUrl)) throw new Error(`the assertion's Recipient is not ${acsUrl}`);
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const claims: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(attributes)) claims[name] = value;
  claims.nameID = profile.nameID;
  if (typeof profile.email === 'string') claims.email ??= profile.email;
  const displayName = DISPLAY_NAMES.map((name) => attributes[name]).find((value) => typeof value === 'string');
  if (displayName !== undefined) claims.name ??= displayName;
  return { ...claims };
}
