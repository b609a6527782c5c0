import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  bodyOf,
  type ConnectionForm,
  type ConnectionView,
  emptyForm,
  formOfConnection,
  hasProblems,
  localProblems,
  newClaimRow,
  newScopeRow,
  problemsOfRefusal,
  splitCertificates,
} from '../../console/src/sso/connection-model.js';
import { AppError } from '../../src/platform/http/app-error.js';
import { parseSsoConnection } from '../../src/modules/identity/sso/sso-connection-rules.js';
import { ROOT } from '../support/built.js';

/**
 * The console's single sign-on connection form model (console/src/sso/connection-model.ts): the
 * body it sends is the one docs/identity.md documents (checked by the API's own reader,
 * parseSsoConnection), empty optional fields left out; a connection read back fills the form so
 * that saving it sends it again; and the API's refusals are placed beside the field, or the row of
 * claims or values, their path names.
 */

const METADATA = readFileSync(join(ROOT, 'docs', 'examples', 'saml-idp-metadata.xml'), 'utf8');
const CERTIFICATE = /<X509Certificate>([^<]+)<\/X509Certificate>/.exec(METADATA)![1]!;
const pem = (body: string) => `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`;

const form = (patch: Partial<ConnectionForm>): ConnectionForm => ({ ...emptyForm(patch.protocol), ...patch });

/** What the API makes of a body, or the problems' paths it refuses it with. */
function apiReading(body: unknown): unknown {
  try {
    return parseSsoConnection(body);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { refused: ((error.details?.problems ?? []) as { path: string }[]).map((problem) => problem.path) };
  }
}

function refusalOf(body: unknown): AppError {
  try {
    parseSsoConnection(body);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  assert.fail(`the API took ${JSON.stringify(body)}`);
}

describe('the single sign-on connection form', () => {
  it('sends an OpenID Connect connection with its empty optional fields left out, the defaults then the server’s', () => {
    const body = bodyOf(form({ name: 'keycloak', issuer: ' https://keycloak.example.com/realms/acme ', clientId: 'learnbase' }));
    assert.deepEqual(body, {
      protocol: 'oidc',
      issuer: 'https://keycloak.example.com/realms/acme',
      clientId: 'learnbase',
      emailTrust: 'unless-unverified',
    });
    assert.deepEqual(apiReading(body), {
      protocol: 'oidc',
      issuer: 'https://keycloak.example.com/realms/acme',
      clientId: 'learnbase',
      scopes: 'openid email profile',
      claims: { email: 'email', given_name: 'givenName', family_name: 'familyName' },
      emailTrust: 'unless-unverified',
    });
  });

  it('sends every field of an OpenID Connect connection as docs/identity.md names it, blank rows left out', () => {
    const body = bodyOf(
      form({
        protocol: 'oidc',
        displayName: 'Acme staff',
        issuer: 'https://idp.example.com',
        clientId: 'learnbase',
        clientSecret: ' the secret ',
        scopes: 'openid email',
        emailTrust: 'verified-only',
        claims: [newClaimRow(' email ', 'email'), newClaimRow('', ''), newClaimRow('employee_id', 'employeeId')],
        adminClaim: 'groups',
        adminValue: 'lb-admins',
        adminScopes: [newScopeRow('hr-emea', 'EMEA'), newScopeRow(' ', '')],
        // The SAML side of the form, typed before switching, is not sent.
        metadataUrl: 'https://idp.example.com/metadata',
        allowSha1: true,
      }),
    );
    assert.deepEqual(body, {
      protocol: 'oidc',
      displayName: 'Acme staff',
      issuer: 'https://idp.example.com',
      clientId: 'learnbase',
      clientSecret: ' the secret ',
      scopes: 'openid email',
      claims: { email: 'email', employee_id: 'employeeId' },
      admins: { claim: 'groups', value: 'lb-admins', scopes: { 'hr-emea': 'EMEA' } },
      emailTrust: 'verified-only',
    });
    const read = apiReading(body) as Record<string, unknown>;
    assert.equal(read.clientSecret, ' the secret ', 'a secret is sent exactly as typed');
    assert.deepEqual(read.admins, body.admins);
    // Admins of one organisation entry only: no value.
    assert.deepEqual(bodyOf(form({ adminClaim: 'groups', adminScopes: [newScopeRow('hr', 'HR')] })).admins, {
      claim: 'groups',
      scopes: { hr: 'HR' },
    });
  });

  it('sends a SAML provider the one way chosen: its metadata, its URL, or its entity ID, entry point and certificates', () => {
    const typed = {
      protocol: 'saml' as const,
      metadataXml: METADATA,
      metadataUrl: 'https://idp.example.com/federationmetadata.xml',
      idpEntityId: 'https://idp.example.com/',
      entryPoint: 'https://idp.example.com/saml2',
      certificates: `${pem(CERTIFICATE)}\n\n${pem(CERTIFICATE)}`,
      issuer: 'https://not.sent.example.com',
    };
    const byXml = bodyOf(form({ ...typed, samlSource: 'xml', spEntityId: ' urn:acme:lms ', allowSha1: true }));
    assert.deepEqual(byXml, {
      protocol: 'saml',
      metadataXml: METADATA,
      spEntityId: 'urn:acme:lms',
      allowSha1: true,
      emailTrust: 'unless-unverified',
    });
    const xmlRead = apiReading(byXml) as { metadata: { entityId: string; certificates: string[] } };
    assert.equal(xmlRead.metadata.entityId, 'https://sts.windows.net/00000000-0000-0000-0000-000000000000/');
    assert.equal(xmlRead.metadata.certificates.length, 1);

    const byUrl = bodyOf(form({ ...typed, samlSource: 'url' }));
    assert.deepEqual(byUrl, { protocol: 'saml', metadataUrl: typed.metadataUrl, emailTrust: 'unless-unverified' });
    assert.equal((apiReading(byUrl) as { metadataUrl: string }).metadataUrl, typed.metadataUrl);

    const explicit = bodyOf(form({ ...typed, samlSource: 'explicit' }));
    assert.deepEqual(Object.keys(explicit).sort(), ['certificates', 'emailTrust', 'entryPoint', 'idpEntityId', 'protocol']);
    assert.equal((explicit.certificates as string[]).length, 2);
    const explicitRead = apiReading(explicit) as { metadata: { certificates: string[] } };
    assert.deepEqual(explicitRead.metadata.certificates, [CERTIFICATE, CERTIFICATE]);

    // No file chosen: nothing names the provider, which the API says (beside the choice of way).
    assert.deepEqual(apiReading(bodyOf(form({ protocol: 'saml', samlSource: 'xml' }))), { refused: [''] });
  });

  it('splits certificates into PEM blocks, else paragraphs of base64', () => {
    assert.deepEqual(splitCertificates(`junk\n${pem('QUJD')}\n${pem('REVG')}\n`), [pem('QUJD'), pem('REVG')]);
    assert.deepEqual(splitCertificates('QUJD\nREVG\n\n  \nR0hJ\n'), ['QUJD\nREVG', 'R0hJ']);
    assert.deepEqual(splitCertificates('  \n '), []);
  });

  it('sends a display name as typed, so that the API refuses one of only spaces; an empty one is left out (the name)', () => {
    const body = bodyOf(form({ issuer: 'https://idp.example.com', clientId: 'x', displayName: '   ' }));
    assert.equal(body.displayName, '   ');
    assert.deepEqual(apiReading(body), { refused: ['/displayName'] });
    assert.equal('displayName' in bodyOf(form({ displayName: '' })), false);
  });

  it('fills the form from a connection read back, so that saving it sends the connection again', () => {
    const oidc: ConnectionView = {
      name: 'corp',
      displayName: 'corp',
      protocol: 'oidc',
      issuer: 'https://idp.example.com',
      clientId: 'learnbase',
      clientSecret: '(set)',
      scopes: 'openid email profile',
      claims: { email: 'email', employee_id: 'employeeId' },
      admins: { claim: 'groups', scopes: { 'hr-emea': 'EMEA' } },
      emailTrust: 'verified-only',
      redirectUri: 'https://acme.example.com/auth/sso/callback',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const filled = formOfConnection(oidc);
    assert.equal(filled.displayName, '', 'the name answered as the display name is none');
    assert.equal(filled.scopes, '', 'the default scopes are the placeholder');
    assert.equal(filled.hasStoredSecret, true);
    assert.equal(hasProblems(localProblems(filled)), false, 'the stored secret is kept by leaving it out');
    assert.equal('clientSecret' in bodyOf(filled), false);
    assert.equal(bodyOf({ ...filled, dropSecret: true }).clientSecret, null, 'a public client on purpose');
    assert.equal(
      bodyOf({ ...formOfConnection({ ...oidc, clientSecret: null }), dropSecret: true }).clientSecret,
      undefined,
      'none to remove',
    );
    assert.deepEqual(bodyOf({ ...filled, clientSecret: 's' }), {
      protocol: 'oidc',
      issuer: 'https://idp.example.com',
      clientId: 'learnbase',
      clientSecret: 's',
      claims: { email: 'email', employee_id: 'employeeId' },
      admins: { claim: 'groups', scopes: { 'hr-emea': 'EMEA' } },
      emailTrust: 'verified-only',
    });

    const saml: ConnectionView = {
      name: 'entra',
      displayName: 'Entra',
      protocol: 'saml',
      claims: { email: 'email' },
      admins: null,
      emailTrust: 'unless-unverified',
      idpEntityId: 'https://idp.example.com/',
      entryPoint: 'https://idp.example.com/saml2',
      certificates: 2,
      allowSha1: true,
      metadataUrl: 'https://idp.example.com/metadata',
      spEntityId: 'urn:learnbase:acme:entra',
      acsUrl: 'https://acme.example.com/auth/sso/saml',
      spMetadataUrl: 'https://acme.example.com/auth/sso/saml/acme/entra/metadata',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    assert.deepEqual(bodyOf(formOfConnection(saml)), {
      protocol: 'saml',
      displayName: 'Entra',
      metadataUrl: 'https://idp.example.com/metadata',
      spEntityId: 'urn:learnbase:acme:entra',
      allowSha1: true,
      claims: { email: 'email' },
      emailTrust: 'unless-unverified',
    });
    // Named by its metadata or certificates: those are not answered, so the provider must be named again.
    const { metadataUrl: _, ...byCertificates } = saml;
    const refilled = formOfConnection(byCertificates);
    assert.equal(refilled.samlSource, 'xml');
    assert.equal(refilled.storedCertificates, 2);
    assert.equal(refilled.idpEntityId, 'https://idp.example.com/', 'kept for the explicit way, where the certificates are the rest');
  });

  it('needs a name, and never replaces an existing connection by creating one of its name', () => {
    assert.match(localProblems(form({ name: '  ' })).fields.name ?? '', /Give the connection a name/);
    assert.equal(hasProblems(localProblems(form({ name: 'corp' }))), false);
    assert.match(localProblems(form({ name: 'corp ' }), ['corp']).fields.name ?? '', /exists already: edit it/);
    assert.equal(hasProblems(localProblems(form({ name: 'corp2' }), ['corp'])), false);
  });

  it('places the API’s problems beside their fields and rows, and what names no field at the top', () => {
    const claimUri = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress';
    const typed = form({
      protocol: 'oidc',
      issuer: 'http://idp.example.com',
      clientId: '',
      scopes: 'email',
      displayName: ' ',
      claims: [newClaimRow(claimUri, ''), newClaimRow('given_name', 'givenName')],
      adminClaim: 'groups',
      adminValue: 'lb-admins',
      adminScopes: [newScopeRow('lb-admins', 'HR'), newScopeRow('hr', 'HR')],
    });
    const problems = problemsOfRefusal(refusalOf(bodyOf(typed)), typed);
    assert.deepEqual(problems.fields, {
      issuer: 'must be an https URL',
      // An empty client id is left out, so the API names it as missing.
      clientId: 'must be a string of 1 to 200 characters',
      scopes: 'must include openid',
      displayName: 'must be text of 1 to 100 characters, not only spaces',
    });
    assert.deepEqual(problems.claimRows, { [typed.claims[0]!.id]: 'must be an attribute name of 1 to 100 characters' });
    assert.deepEqual(problems.scopeRows, { [typed.adminScopes[0]!.id]: 'is the value that makes an admin of the whole tenant' });
    assert.deepEqual(problems.form, []);

    // The service's refusal of an organisation entry the tenant has not (sso.service.ts putConnection).
    const unknownEntry = {
      code: 'identity.invalid_connection',
      message: 'The connection is invalid: /admins/scopes/hr names the organisation entry "HR", which tenant "acme" does not have.',
      details: {
        problems: [{ path: '/admins/scopes/hr', message: 'names the organisation entry "HR", which tenant "acme" does not have' }],
      },
    };
    assert.deepEqual(problemsOfRefusal(unknownEntry, typed).scopeRows, {
      [typed.adminScopes[1]!.id]: 'names the organisation entry "HR", which tenant "acme" does not have',
    });

    // A certificate: beside the certificates, saying which. The body's own problem (no provider): beside the choice of way.
    const saml = form({
      protocol: 'saml',
      samlSource: 'explicit',
      idpEntityId: 'x',
      entryPoint: 'https://idp.example.com',
      certificates: 'QUJD\n\nnot one',
    });
    assert.deepEqual(problemsOfRefusal(refusalOf(bodyOf(saml)), saml).fields, {
      certificates:
        '/certificates/0: must be an X.509 certificate (PEM or base64 DER) /certificates/1: must be an X.509 certificate (PEM or base64 DER)',
    });
    const none = form({ protocol: 'saml' });
    assert.deepEqual(problemsOfRefusal(refusalOf(bodyOf(none)), none).fields, {
      provider: 'must name the identity provider one way: metadataXml, metadataUrl, or idpEntityId with entryPoint and certificates',
    });

    // A path the form shows nowhere, and a refusal without problems: at the top, in the API's words.
    assert.deepEqual(
      problemsOfRefusal({ message: 'm', details: { problems: [{ path: '/extra', message: 'is not a property' }] } }, typed).form,
      ['/extra is not a property'],
    );
    assert.deepEqual(problemsOfRefusal({ code: 'secrets.no_key', message: 'The server has no key.' }, typed).form, [
      'The server has no key.',
    ]);
  });
});
