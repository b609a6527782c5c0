import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { certificateBody, certificateSummary, readIdpMetadata } from './saml-metadata-rules.js';
import { adminScopeByClaims } from './sso-connection-rules.js';

const PEM = readFileSync(new URL('../../../../test/identity/fixtures/saml-idp.crt', import.meta.url), 'utf8');
const BODY = PEM.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

const entity = (id: string, options: { binding?: string; use?: string; certificate?: string } = {}) =>
  `<md:EntityDescriptor entityID="${id}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
  `<md:KeyDescriptor${options.use ? ` use="${options.use}"` : ''}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${options.certificate ?? BODY}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
  `<md:SingleSignOnService Binding="${options.binding ?? REDIRECT}" Location="https://idp.example.com/sso"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
const NS = 'xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#"';
const doc = (inner: string) => inner.replace('<md:EntityDescriptor ', `<md:EntityDescriptor ${NS} `);

describe('certificateSummary', () => {
  it('reads the subject, issuer, serial number, validity (ISO) and SHA-256 fingerprint, as openssl x509 prints them', () => {
    // openssl x509 -in test/identity/fixtures/saml-idp.crt -noout -subject -issuer -dates -serial -fingerprint -sha256
    assert.deepEqual(certificateSummary(BODY), {
      subject: 'CN=saml-idp.test',
      issuer: 'CN=saml-idp.test',
      serialNumber: '4A097716B3FD363A8A1337BCD1067D8F0B26B9BC',
      notBefore: '2026-11-28T09:30:34.000Z',
      notAfter: '2126-11-04T09:30:34.000Z',
      fingerprint: 'E6:9D:85:0D:9C:F6:B4:CC:58:5F:71:E0:8B:BC:BD:BC:ED:E4:10:CF:C1:B0:DB:78:F8:4A:0F:DE:B4:47:1A:15',
    });
  });
});

describe('SAML metadata', () => {
  it('reads the entity ID, the HTTP-Redirect entry point and the signing certificates', () => {
    assert.deepEqual(readIdpMetadata(doc(entity('https://idp.example.com'))), {
      entityId: 'https://idp.example.com',
      entryPoint: 'https://idp.example.com/sso',
      certificates: [BODY],
    });
    const inList = `<md:EntitiesDescriptor ${NS}>${entity('https://idp.example.com', { use: 'signing' })}</md:EntitiesDescriptor>`;
    assert.equal((readIdpMetadata(inList) as { entityId: string }).entityId, 'https://idp.example.com');
  });

  it('names what is wrong with metadata it cannot use', () => {
    const problem = (xml: string) => (readIdpMetadata(xml) as { problem?: string }).problem ?? '';
    assert.match(problem('<not xml'), /^is not XML/);
    assert.match(problem(`<md:EntityDescriptor ${NS} entityID="x"/>`), /no identity provider/);
    assert.match(problem(`<md:EntitiesDescriptor ${NS}>${entity('a')}${entity('b')}</md:EntitiesDescriptor>`), /several/);
    assert.match(problem(doc(entity('x', { binding: POST }))), /HTTP-Redirect/);
    assert.match(problem(doc(entity('x', { use: 'encryption' }))), /no signing certificate/);
    assert.match(problem(doc(entity('x', { certificate: 'AAAA' }))), /not a certificate/);
    assert.match(problem(doc(entity(''))), /without entityID/);
  });

  it('takes a certificate as PEM or bare base64, and nothing else', () => {
    assert.equal(certificateBody(PEM), BODY);
    assert.equal(certificateBody(BODY), BODY);
    assert.equal(certificateBody('not a certificate'), undefined);
    assert.equal(certificateBody(Buffer.from('hello').toString('base64')), undefined);
  });
});

describe('admins by claims', () => {
  it('is an admin of the whole tenant when the claim is the value, or a list holding it', () => {
    const rule = { claim: 'groups', value: 'lb-admins' };
    const whole = { scope: null };
    assert.deepEqual(adminScopeByClaims({ groups: ['staff', 'lb-admins'] }, rule), whole);
    assert.deepEqual(adminScopeByClaims({ groups: 'lb-admins' }, rule), whole);
    assert.equal(adminScopeByClaims({ groups: ['staff'] }, rule), undefined);
    assert.equal(adminScopeByClaims({ groups: 'lb-admins-not' }, rule), undefined);
    assert.equal(adminScopeByClaims({}, rule), undefined);
    assert.equal(adminScopeByClaims({ groups: ['lb-admins'] }, undefined), undefined, 'no rule: nobody');
  });

  it('is an admin of one organisation entry for a value of scopes; the whole tenant wins; several entries are refused', () => {
    const rule = { claim: 'groups', value: 'lb-admins', scopes: { 'hr-emea': 'EMEA', 'hr-emea-2': 'EMEA', 'hr-apac': 'APAC' } };
    assert.deepEqual(adminScopeByClaims({ groups: ['staff', 'hr-emea'] }, rule), { scope: 'EMEA' });
    assert.deepEqual(adminScopeByClaims({ groups: 'hr-apac' }, rule), { scope: 'APAC' });
    assert.deepEqual(adminScopeByClaims({ groups: ['hr-emea', 'hr-emea-2'] }, rule), { scope: 'EMEA' }, 'two values, one entry');
    assert.deepEqual(adminScopeByClaims({ groups: ['hr-emea', 'lb-admins'] }, rule), { scope: null });
    assert.deepEqual(adminScopeByClaims({ groups: ['hr-emea', 'hr-apac'] }, rule), { several: ['APAC', 'EMEA'] });
    assert.equal(adminScopeByClaims({ groups: ['toString', 'constructor'] }, rule), undefined, 'no inherited keys');
    assert.deepEqual(adminScopeByClaims({ groups: ['hr-apac'] }, { claim: 'groups', scopes: { 'hr-apac': 'APAC' } }), { scope: 'APAC' });
  });
});
