import { X509Certificate } from 'node:crypto';
import xpath from 'xpath';
import { parseXml } from './xml-parse.js';

/** What an admin reads of a signing certificate a SAML connection keeps (GET /api/sso/connections/{name}). */
export interface CertificateSummary {
  /** The subject's distinguished name, its attributes joined by ", " (`CN=idp.example.com, O=Acme`). */
  subject: string;
  issuer: string;
  serialNumber: string;
  /** When it starts and stops being valid (ISO 8601, UTC). */
  notBefore: string;
  notAfter: string;
  /** Its SHA-256 fingerprint, colon-separated hex: what provider consoles (Entra ID, Okta) show to compare. */
  fingerprint: string;
}

/** The summary of a certificate kept as base64 DER (certificateBody's answer). */
export function certificateSummary(body: string): CertificateSummary {
  const certificate = new X509Certificate(Buffer.from(body, 'base64'));
  const name = (dn: string) => dn.split('\n').filter(Boolean).join(', ');
  return {
    subject: name(certificate.subject),
    issuer: name(certificate.issuer),
    serialNumber: certificate.serialNumber,
    // Node 20 gives the dates as OpenSSL prints them ("Jan  1 00:00:00 2026 GMT"), which Date reads.
    notBefore: new Date(certificate.validFrom).toISOString(),
    notAfter: new Date(certificate.validTo).toISOString(),
    fingerprint: certificate.fingerprint256,
  };
}

/**
 * What a SAML connection needs of its identity provider (docs/identity.md, "SAML 2.0"), read from
 * the provider's metadata (SAML 2.0 Metadata, `md:EntityDescriptor`) or given one by one: pure.
 */
export interface IdpMetadata {
  /** The provider's entity ID: the Issuer of its assertions. */
  entityId: string;
  /** Its SingleSignOnService of the HTTP-Redirect binding. */
  entryPoint: string;
  /** Its signing certificates, base64 DER. */
  certificates: string[];
}

const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/**
 * The certificate's base64 DER body, from PEM or bare base64 (what metadata and admin consoles
 * show), or undefined when the text is not an X.509 certificate.
 */
export function certificateBody(text: string): string | undefined {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return undefined;
  try {
    new X509Certificate(Buffer.from(body, 'base64'));
    return body;
  } catch {
    return undefined;
  }
}

/**
 * The provider that metadata describes, or the problem with it. Takes the document's first
 * IDPSSODescriptor (an `EntitiesDescriptor` of one entity is read too), its HTTP-Redirect
 * SingleSignOnService, and the certificates of its keys for signing (`use="signing"` or no use).
 * xmldom expands no external entity and fetches nothing. The caller checks the entry point's address.
 */
export function readIdpMetadata(xml: string): IdpMetadata | { problem: string } {
  const parsed = parseXml(xml);
  if ('problem' in parsed) return { problem: `is not XML: ${parsed.problem}` };
  const { document } = parsed;
  const select = (expression: string, node: Node) => xpath.select(expression, node) as Node[];
  const entities = select("//*[local-name()='EntityDescriptor'][*[local-name()='IDPSSODescriptor']]", document);
  const entity = entities[0] as Element | undefined;
  if (!entity) return { problem: 'describes no identity provider (no EntityDescriptor with an IDPSSODescriptor)' };
  if (entities.length > 1) return { problem: 'describes several identity providers: send the metadata of one' };
  const entityId = entity.getAttribute('entityID');
  if (!entityId) return { problem: 'has an EntityDescriptor without entityID' };
  const descriptor = select("*[local-name()='IDPSSODescriptor']", entity)[0] as Element;
  const service = select("*[local-name()='SingleSignOnService']", descriptor).find(
    (node) => (node as Element).getAttribute('Binding') === REDIRECT_BINDING,
  ) as Element | undefined;
  const entryPoint = service?.getAttribute('Location');
  if (!entryPoint) return { problem: 'has no SingleSignOnService of the HTTP-Redirect binding' };
  const keys = select("*[local-name()='KeyDescriptor']", descriptor).filter((node) => {
    const use = (node as Element).getAttribute('use');
    return !use || use === 'signing';
  });
  const certificates: string[] = [];
  for (const key of keys) {
    for (const node of select(".//*[local-name()='X509Certificate']", key)) {
      const body = certificateBody(node.textContent ?? '');
      if (body === undefined) return { problem: 'has an X509Certificate that is not a certificate' };
      if (!certificates.includes(body)) certificates.push(body);
    }
  }
  if (certificates.length === 0) return { problem: 'has no signing certificate (KeyDescriptor with an X509Certificate)' };
  return { entityId, entryPoint, certificates: certificates.slice(0, 5) };
}
