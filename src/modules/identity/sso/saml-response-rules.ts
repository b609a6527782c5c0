import { parseXml } from './xml-parse.js';

/**
 * What node-saml leaves unchecked in a SAML Response (docs/identity.md, "SAML 2.0", "The check"):
 * the address it was sent to, and SHA-1 in its signatures. Pure: the Response's XML in, the reason
 * to refuse it (or undefined) out. xmldom expands no external entity and fetches nothing.
 */

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

/**
 * Whether an XML Signature algorithm (SignatureMethod or DigestMethod, XML Signature §6) uses SHA-1:
 * `…xmldsig#sha1`, `#rsa-sha1`, `#dsa-sha1`, `#hmac-sha1`, `xmldsig-more#ecdsa-sha1`,
 * `xmldsig-more#sha1-rsa-MGF1`. SHA-1 collisions can be made (SHAttered, 2017): a signature over a
 * SHA-1 digest no longer shows which document was signed.
 */
export function usesSha1(algorithm: string): boolean {
  const name = algorithm.slice(algorithm.lastIndexOf('#') + 1);
  return /(^|-)sha1($|-)/i.test(name);
}

/**
 * Why the Response `xml` must be refused before its signatures are even checked, or undefined:
 * - its `Destination` (SAML 2.0 Core §3.2.2) names another address than `acsUrl`, the Assertion
 *   Consumer Service this sign-in's AuthnRequest named: a Response meant for another service
 *   provider, or another tenant's address, signed or not;
 * - it is signed and names no `Destination`: SAML 2.0 Profiles §4.1.4.5 says a signed Response MUST
 *   carry one (an unsigned Response without one is taken: its assertion's signed Recipient names
 *   the address, and saml.ts checks that);
 * - unless `allowSha1`, a signature or a digest in it uses SHA-1 (usesSha1).
 */
export function responseProblem(xml: string, acsUrl: string, allowSha1: boolean): string | undefined {
  const parsed = parseXml(xml);
  if ('problem' in parsed) return `the Response is not XML: ${parsed.problem}`;
  const { document, root } = parsed;
  if (root.localName !== 'Response' || root.namespaceURI !== PROTOCOL) return 'the message is not a SAML Response';

  const signed = Array.from(root.childNodes).some((node) => {
    const element = node as Element;
    return element.nodeType === 1 && element.localName === 'Signature' && element.namespaceURI === DSIG;
  });
  const destination = root.getAttributeNode('Destination')?.value;
  if (destination !== undefined && destination !== acsUrl) return `the Response's Destination is not ${acsUrl}`;
  if (destination === undefined && signed) return 'the Response is signed but names no Destination (SAML 2.0 Profiles §4.1.4.5)';

  if (!allowSha1) {
    for (const name of ['SignatureMethod', 'DigestMethod']) {
      for (const method of Array.from(document.getElementsByTagNameNS(DSIG, name))) {
        const algorithm = method.getAttribute('Algorithm') ?? '';
        if (usesSha1(algorithm)) {
          return `a ${name} of the Response uses SHA-1 (${algorithm.slice(0, 100)}); the connection does not allow it (allowSha1)`;
        }
      }
    }
  }
  return undefined;
}
