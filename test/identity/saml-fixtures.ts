import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

/**
 * A SAML 2.0 identity provider on loopback for the tests: its metadata, a sign-in page at its
 * single sign-on address (the HTTP-Redirect binding: any login, no password) that answers the
 * service provider with a Response posted by the browser (the HTTP-POST binding), and the
 * Responses the tests craft: signed with xml-crypto by the provider's test key, or by another key,
 * or not at all, the Response itself too, with SHA-256 or SHA-1; for any audience, recipient,
 * Destination, issuer, time or request. The keys are test keys made
 * for this (test/identity/fixtures/, openssl req -x509 -newkey rsa:2048).
 */
const here = new URL('./fixtures/', import.meta.url);
const KEYS = {
  idp: { key: readFileSync(new URL('saml-idp.key', here), 'utf8'), cert: readFileSync(new URL('saml-idp.crt', here), 'utf8') },
  other: { key: readFileSync(new URL('saml-other.key', here), 'utf8'), cert: readFileSync(new URL('saml-other.crt', here), 'utf8') },
};

export type Attributes = Record<string, string | string[]>;

/** A PEM certificate's base64 DER, as metadata carries it. */
export const certificateBodyOf = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');

export interface ResponseOptions {
  /** The AuthnRequest answered; absent: an answer nobody asked for. */
  inResponseTo?: string;
  acsUrl: string;
  audience: string;
  nameId: string;
  attributes: Attributes;
  issuer?: string;
  recipient?: string;
  notOnOrAfter?: Date;
  /** Who signs the assertion: the provider's key (default), another key, or nobody. */
  signedBy?: 'idp' | 'other' | 'nobody';
  /** The Response signed too, by the same key, after its assertion (as Okta and AD FS can). */
  signResponse?: boolean;
  /** The Response's Destination: the ACS address by default; null: none. */
  destination?: string | null;
  /** SHA-1 in the signatures made: in the SignatureMethod (rsa-sha1), the DigestMethod (sha1), or both; default none (RSA-SHA256, SHA-256). */
  sha1?: 'signature' | 'digest' | 'both';
  /** Changes the XML after signing (a value altered on the way). */
  tamper?: (xml: string) => string;
}

/** An AuthnRequest as the service provider sent it (its query decoded). */
export interface ReceivedRequest {
  id: string;
  acsUrl: string;
  issuer: string;
  relayState: string;
}

export interface SamlIdpFixture {
  origin: string;
  entityId: string;
  ssoUrl: string;
  metadataUrl: string;
  certificatePem: string;
  metadataXml: string;
  /** login → attributes; change an entry to see the next sign-in carry new ones. */
  people: Map<string, Attributes>;
  /**
   * What /metadata serves from now on: the signing keys it lists (default the provider's own), the
   * entity ID it names (default its own), or a 500.
   */
  serveMetadata(options: { keys?: Array<'idp' | 'other'>; entityId?: string; failing?: boolean }): void;
  /** How many times /metadata was read. */
  metadataReads(): number;
  /** The Response, base64 (the SAMLResponse form field). */
  response(options: ResponseOptions): string;
  close(): Promise<void>;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const newId = () => `_${randomBytes(16).toString('hex')}`;

/** The AuthnRequest in a redirect to the provider's single sign-on address. */
export function readAuthnRequest(location: string): ReceivedRequest {
  const url = new URL(location);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const attribute = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
  return {
    id: attribute('ID'),
    acsUrl: attribute('AssertionConsumerServiceURL'),
    issuer: /<saml:Issuer[^>]*>([^<]*)<\/saml:Issuer>/.exec(xml)?.[1] ?? '',
    relayState: url.searchParams.get('RelayState') ?? '',
  };
}

function attributeStatement(attributes: Attributes): string {
  const values = (value: string | string[]) =>
    (Array.isArray(value) ? value : [value]).map((one) => `<saml:AttributeValue>${escapeXml(one)}</saml:AttributeValue>`).join('');
  return Object.entries(attributes)
    .map(([name, value]) => `<saml:Attribute Name="${escapeXml(name)}">${values(value)}</saml:Attribute>`)
    .join('');
}

function buildResponse(entityId: string, options: ResponseOptions): string {
  const now = new Date();
  const until = (options.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
  const issuer = escapeXml(options.issuer ?? entityId);
  const inResponseTo = options.inResponseTo === undefined ? '' : ` InResponseTo="${escapeXml(options.inResponseTo)}"`;
  const destination = options.destination === null ? '' : ` Destination="${escapeXml(options.destination ?? options.acsUrl)}"`;
  const assertion =
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${now.toISOString()}">` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escapeXml(options.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData${inResponseTo} NotOnOrAfter="${until}" Recipient="${escapeXml(options.recipient ?? options.acsUrl)}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${new Date(now.getTime() - 60_000).toISOString()}" NotOnOrAfter="${until}"><saml:AudienceRestriction><saml:Audience>${escapeXml(options.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>${attributeStatement(options.attributes)}</saml:AttributeStatement>` +
    '</saml:Assertion>';
  const response =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${now.toISOString()}"${destination}${inResponseTo}>` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>' +
    assertion +
    '</samlp:Response>';
  const signer = options.signedBy ?? 'idp';
  let signed = signer === 'nobody' ? response : sign(response, 'Assertion', KEYS[signer], options.sha1);
  if (options.signResponse && signer !== 'nobody') signed = sign(signed, 'Response', KEYS[signer], options.sha1);
  return Buffer.from(options.tamper ? options.tamper(signed) : signed).toString('base64');
}

/**
 * The Assertion or the Response enveloped-signed (exclusive C14N), the signature after its Issuer,
 * as providers place it: RSA-SHA256 over SHA-256 digests, or SHA-1 where `sha1` says.
 */
function sign(xml: string, element: 'Assertion' | 'Response', keys: { key: string; cert: string }, sha1?: ResponseOptions['sha1']): string {
  const signature = new SignedXml({
    privateKey: keys.key,
    publicCert: keys.cert,
    signatureAlgorithm:
      sha1 === 'signature' || sha1 === 'both'
        ? 'http://www.w3.org/2000/09/xmldsig#rsa-sha1'
        : 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signature.addReference({
    xpath: `//*[local-name(.)='${element}']`,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm:
      sha1 === 'digest' || sha1 === 'both' ? 'http://www.w3.org/2000/09/xmldsig#sha1' : 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signature.computeSignature(xml, {
    location: { reference: `//*[local-name(.)='${element}']/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return signature.getSignedXml();
}

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test IdP</title></head><body>${body}</body></html>`;

/** The provider, listening on 127.0.0.1; `people` maps a login to the attributes it asserts. */
export async function startSamlIdp(people: Map<string, Attributes>): Promise<SamlIdpFixture> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const entityId = `${origin}/metadata`;
  const ssoUrl = `${origin}/sso`;
  const metadataOf = (keys: Array<'idp' | 'other'>, named: string) =>
    `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${named}">` +
    '<md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">' +
    keys
      .map(
        (key) =>
          `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificateBodyOf(KEYS[key].cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
      )
      .join('') +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ssoUrl}"/>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/>` +
    '</md:IDPSSODescriptor></md:EntityDescriptor>';
  const metadataXml = metadataOf(['idp'], entityId);
  let served: string | undefined = metadataXml;
  let reads = 0;
  const response = (options: ResponseOptions) => buildResponse(entityId, options);

  server.on('request', (request, reply) => {
    const url = new URL(request.url ?? '/', origin);
    if (url.pathname === '/metadata') {
      reads++;
      if (served === undefined) reply.writeHead(500).end();
      else reply.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(served);
    } else if (url.pathname === '/sso' && request.method === 'GET') {
      // The sign-in page: the request travels on in the form.
      const received = readAuthnRequest(url.href);
      const hidden = Object.entries(received)
        .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeXml(value)}">`)
        .join('');
      reply
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(page(`<form method="post" action="/sso">${hidden}<input name="login"><button type="submit">Sign in</button></form>`));
    } else if (url.pathname === '/sso' && request.method === 'POST') {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        const form = new URLSearchParams(body);
        const login = form.get('login') ?? '';
        const attributes = people.get(login) ?? {};
        const samlResponse = response({
          inResponseTo: form.get('id') ?? '',
          acsUrl: form.get('acsUrl') ?? '',
          audience: form.get('issuer') ?? '',
          nameId: typeof attributes.email === 'string' ? attributes.email : login,
          attributes,
        });
        // The HTTP-POST binding: the browser posts the Response to the service provider.
        reply
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            page(
              `<form method="post" action="${escapeXml(form.get('acsUrl') ?? '')}"><input type="hidden" name="SAMLResponse" value="${samlResponse}"><input type="hidden" name="RelayState" value="${escapeXml(form.get('relayState') ?? '')}"></form><script>document.forms[0].submit()</script>`,
            ),
          );
      });
    } else {
      reply.writeHead(404).end();
    }
  });
  return {
    origin,
    entityId,
    ssoUrl,
    metadataUrl: entityId,
    certificatePem: KEYS.idp.cert,
    metadataXml,
    people,
    serveMetadata: (options) => {
      served = options.failing ? undefined : metadataOf(options.keys ?? ['idp'], options.entityId ?? entityId);
    },
    metadataReads: () => reads,
    response,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
