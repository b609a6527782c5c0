import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { responseProblem, usesSha1 } from './saml-response-rules.js';

const ACS = 'https://acme.learn.example.com/auth/sso/saml';
const DSIG = 'http://www.w3.org/2000/09/xmldsig#';

/** A Response skeleton: its Destination (null: none), a signature of its own or not, the algorithms of the signature in it. */
function response(options: { destination?: string | null; signed?: boolean; signatureMethod?: string; digestMethod?: string }): string {
  const destination = options.destination === null ? '' : ` Destination="${options.destination ?? ACS}"`;
  const signature =
    `<ds:Signature xmlns:ds="${DSIG}"><ds:SignedInfo><ds:SignatureMethod Algorithm="${options.signatureMethod ?? 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256'}"/>` +
    `<ds:Reference URI="#_r"><ds:DigestMethod Algorithm="${options.digestMethod ?? 'http://www.w3.org/2001/04/xmlenc#sha256'}"/></ds:Reference></ds:SignedInfo></ds:Signature>`;
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r"${destination}>` +
    `${options.signed ? signature : ''}<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion">${options.signed ? '' : signature}</saml:Assertion>` +
    '</samlp:Response>'
  );
}

describe('A SAML Response before its signatures are checked', () => {
  it('names SHA-1 in every XML Signature algorithm that uses it, and nothing else', () => {
    for (const algorithm of [
      'http://www.w3.org/2000/09/xmldsig#sha1',
      'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
      'http://www.w3.org/2000/09/xmldsig#dsa-sha1',
      'http://www.w3.org/2000/09/xmldsig#hmac-sha1',
      'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha1',
      'http://www.w3.org/2007/05/xmldsig-more#sha1-rsa-MGF1',
      'HTTP://WWW.W3.ORG/2000/09/XMLDSIG#RSA-SHA1',
    ]) {
      assert.equal(usesSha1(algorithm), true, algorithm);
    }
    for (const algorithm of [
      'http://www.w3.org/2001/04/xmlenc#sha256',
      'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
      'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384',
      'http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1',
      '',
    ]) {
      assert.equal(usesSha1(algorithm), false, algorithm);
    }
  });

  it('takes a Response to this address, and an unsigned one naming none', () => {
    assert.equal(responseProblem(response({}), ACS, false), undefined);
    assert.equal(responseProblem(response({ signed: true }), ACS, false), undefined);
    assert.equal(responseProblem(response({ destination: null }), ACS, false), undefined);
  });

  it('refuses another Destination, signed or not, and a signed Response naming none', () => {
    const elsewhere = 'https://other.learn.example.com/auth/sso/saml';
    assert.match(responseProblem(response({ destination: elsewhere }), ACS, false) ?? '', /Destination is not https:\/\/acme/);
    assert.match(responseProblem(response({ destination: elsewhere, signed: true }), ACS, false) ?? '', /Destination is not/);
    assert.match(responseProblem(response({ destination: '' }), ACS, false) ?? '', /Destination is not/);
    assert.match(responseProblem(response({ destination: null, signed: true }), ACS, false) ?? '', /signed but names no Destination/);
  });

  it('refuses SHA-1 in a signature or a digest, of the Response or of its assertion, unless allowed', () => {
    const sha1 = [
      { signatureMethod: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1' },
      { digestMethod: 'http://www.w3.org/2000/09/xmldsig#sha1' },
      { signatureMethod: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1', signed: true },
    ];
    for (const options of sha1) {
      assert.match(responseProblem(response(options), ACS, false) ?? '', /uses SHA-1 .*allowSha1/, JSON.stringify(options));
      assert.equal(responseProblem(response(options), ACS, true), undefined, JSON.stringify(options));
    }
    assert.match(
      responseProblem(response({ digestMethod: 'http://www.w3.org/2000/09/xmldsig#sha1', destination: 'https://x' }), ACS, true) ?? '',
      /Destination/,
      'allowing SHA-1 does not let another Destination through',
    );
  });

  it('refuses what is not a SAML Response', () => {
    assert.match(responseProblem('<not xml', ACS, false) ?? '', /not XML/);
    assert.match(responseProblem('<Response Destination="x"/>', ACS, false) ?? '', /not a SAML Response/);
    assert.match(
      responseProblem('<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>', ACS, false) ?? '',
      /not a SAML Response/,
    );
  });
});
