/**
 * A tenant's identity provider as an admin configures it (docs/identity.md, "Single sign-on"), an
 * OpenID Connect provider or a SAML 2.0 one, read and checked: pure. Every problem is named with
 * its JSON pointer. A SAML provider's metadata is read by saml-metadata-rules.ts.
 */
import { AppError } from '../../../platform/http/app-error.js';
import { textProblem } from '../../../platform/json-guard.js';
import { certificateBody, readIdpMetadata, type IdpMetadata } from './saml-metadata-rules.js';
import { pointerToken } from '../../../platform/json-pointer.js';

export const CONNECTION_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const MAX_CLAIMS = 50;
/** SAML attribute names are often URIs (`http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress`). */
const MAX_CLAIM_NAME = 300;
const MAX_CERTIFICATES = 5;
/** A provider's metadata of many keys and endpoints stays well under this. */
export const MAX_METADATA_BYTES = 256 * 1024;

/** The claims kept when an admin names none: the standard ones (OpenID Connect Core §5.1) onto the attributes of these guides. */
export const DEFAULT_CLAIMS: Readonly<Record<string, string>> = {
  email: 'email',
  given_name: 'givenName',
  family_name: 'familyName',
};
export const DEFAULT_SCOPES = 'openid email profile';

/**
 * The attributes kept when an admin names none for a SAML provider: the usual names (LDAP's, and
 * the claim URIs Entra ID and AD FS send) onto the attributes of these guides. `email` is also
 * what node-saml makes of `mail` and its OID.
 */
export const DEFAULT_SAML_ATTRIBUTES: Readonly<Record<string, string>> = {
  email: 'email',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress': 'email',
  givenName: 'givenName',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname': 'givenName',
  sn: 'familyName',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname': 'familyName',
};

/**
 * Who becomes an admin signing in through the connection: a claim (attribute) with `value`, or
 * listing it, makes an admin of the whole tenant; one with a value of `scopes` (or listing one) an
 * admin limited to that organisation entry and what is below it. At least one of the two.
 */
export interface AdminRule {
  claim: string;
  value?: string;
  /** Value of the claim → organisation entry id. */
  scopes?: Record<string, string>;
}

/** The most values `scopes` maps. */
const MAX_ADMIN_SCOPES = 100;

/**
 * Whether the connection trusts the e-mail address its provider sends (docs/identity.md, "Which
 * claims a connection trusts"): `unless-unverified`, unless the provider says it is not verified
 * (`email_verified` false or "false": Entra ID sends no such claim, Keycloak and Google do);
 * `verified-only`, only when it says it is (true or "true").
 */
export type EmailTrust = 'unless-unverified' | 'verified-only';
export const EMAIL_TRUSTS: readonly EmailTrust[] = ['unless-unverified', 'verified-only'];
export const DEFAULT_EMAIL_TRUST: EmailTrust = 'unless-unverified';

interface ConnectionCommon {
  /** What people read on the sign-in page's button ("Sign in with …"); absent: the connection's name. */
  displayName?: string;
  /** Claim (or SAML attribute) → actor attribute. */
  claims: Record<string, string>;
  /** Absent: nobody becomes an admin through this connection. */
  admins?: AdminRule;
  emailTrust: EmailTrust;
}

export interface OidcConnectionInput extends ConnectionCommon {
  protocol: 'oidc';
  issuer: string;
  clientId: string;
  /** Absent: a public client (PKCE only). */
  clientSecret?: string;
  scopes: string;
}

export interface SamlConnectionInput extends ConnectionCommon {
  protocol: 'saml';
  /** The identity provider's entity ID: the Issuer its assertions must carry. */
  idpEntityId: string;
  /** Where the browser is sent with the AuthnRequest (the HTTP-Redirect binding). */
  entryPoint: string;
  /** The certificates (base64 DER) one of which must have signed each assertion. */
  certificates: string[];
  /** This server's entity ID at the provider: the audience the assertions must name. */
  spEntityId: string;
  /** Where the metadata was read from, when it was (read again at each PUT). */
  metadataUrl?: string;
  /** Signatures and digests using SHA-1 are taken (saml-response-rules.ts); absent: refused. */
  allowSha1?: true;
}

export type SsoConnectionInput = OidcConnectionInput | SamlConnectionInput;

/**
 * A SAML connection as sent, before its metadata URL (if it names one) is read: the service reads
 * it and hands the document to `completeSamlConnection`.
 */
export interface SamlConnectionDraft {
  protocol: 'saml';
  displayName?: string;
  claims: Record<string, string>;
  admins?: AdminRule;
  emailTrust: EmailTrust;
  spEntityId?: string;
  metadataUrl?: string;
  metadata?: IdpMetadata;
  allowSha1?: true;
}

type Problem = { path: string; message: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * True for a URL on the loopback interface. A connection may name one with plain http only where
 * the server may reach loopback at all, which is in the tests alone (their providers run on
 * 127.0.0.1; the outbound guard refuses loopback otherwise, platform/outbound-http.ts): everywhere
 * else every address a connection names is https.
 */
export function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

/** How a connection's addresses are checked: `httpOnLoopback` lets plain http through on loopback (the tests' allowance). */
export interface UrlRules {
  httpOnLoopback: boolean;
}
const HTTPS_ONLY: UrlRules = { httpOnLoopback: false };

const OIDC_FIELDS = ['protocol', 'displayName', 'issuer', 'clientId', 'clientSecret', 'scopes', 'claims', 'admins', 'emailTrust'];
const SAML_FIELDS = [
  'protocol',
  'displayName',
  'metadataXml',
  'metadataUrl',
  'idpEntityId',
  'entryPoint',
  'certificates',
  'spEntityId',
  'allowSha1',
  'claims',
  'admins',
  'emailTrust',
];

/** Reads a string field: answers it, or records the problem and answers undefined. */
function textField(body: Record<string, unknown>, name: string, max: number, required: boolean, problems: Problem[]) {
  const value = body[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > max)
    problems.push({ path: `/${name}`, message: `must be a string of 1 to ${max} characters` });
  else if (textProblem(value)) problems.push({ path: `/${name}`, message: textProblem(value)!.why });
  else return value;
  return undefined;
}

/** An address a connection may send the browser or this server to: https (http on the loopback interface where `rules` allow it). */
function checkUrl(value: string | undefined, path: string, problems: Problem[], noQuery: boolean, rules: UrlRules): void {
  if (value === undefined) return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    problems.push({ path, message: 'must be an absolute URL' });
    return;
  }
  if (!(url.protocol === 'https:' || (rules.httpOnLoopback && url.protocol === 'http:' && isLoopback(url)))) {
    problems.push({ path, message: 'must be an https URL' });
  }
  if (noQuery && (url.search || url.hash)) problems.push({ path, message: 'must have no query and no fragment' });
}

/** The longest display name, in characters (code points). */
export const MAX_DISPLAY_NAME = 100;

/**
 * `displayName`: text of 1 to MAX_DISPLAY_NAME characters, not only white space, without control
 * characters (a line break or an escape would not show on a button); absent or null: the name.
 */
function readDisplayName(body: Record<string, unknown>, problems: Problem[]): string | undefined {
  const value = body.displayName;
  if (value === undefined || value === null) return undefined;
  const characters = typeof value === 'string' ? [...value].length : 0;
  if (typeof value !== 'string' || characters === 0 || characters > MAX_DISPLAY_NAME || value.trim() === '') {
    problems.push({ path: '/displayName', message: `must be text of 1 to ${MAX_DISPLAY_NAME} characters, not only spaces` });
  } else if (/\p{Cc}/u.test(value) || textProblem(value)) {
    problems.push({ path: '/displayName', message: 'must not contain control characters (line breaks, tabs, escapes) or lone surrogates' });
  } else return value;
  return undefined;
}

function readClaims(body: Record<string, unknown>, defaults: Readonly<Record<string, string>>, problems: Problem[]) {
  if (body.claims === undefined) return { ...defaults };
  if (!isObject(body.claims) || Object.keys(body.claims).length === 0 || Object.keys(body.claims).length > MAX_CLAIMS) {
    problems.push({ path: '/claims', message: `must be an object of 1 to ${MAX_CLAIMS} claim names to attribute names` });
    return {};
  }
  const claims: Record<string, string> = {};
  for (const [claim, attribute] of Object.entries(body.claims)) {
    const path = `/claims/${pointerToken(claim)}`;
    if (claim.length === 0 || claim.length > MAX_CLAIM_NAME || textProblem(claim))
      problems.push({ path, message: `must be a claim name of 1 to ${MAX_CLAIM_NAME} characters` });
    else if (typeof attribute !== 'string' || attribute.length === 0 || attribute.length > 100 || textProblem(attribute)) {
      problems.push({ path, message: 'must be an attribute name of 1 to 100 characters' });
    } else claims[claim] = attribute;
  }
  return claims;
}

function readEmailTrust(body: Record<string, unknown>, problems: Problem[]): EmailTrust {
  const value = body.emailTrust;
  if (value === undefined || value === null) return DEFAULT_EMAIL_TRUST;
  if (typeof value === 'string' && (EMAIL_TRUSTS as readonly string[]).includes(value)) return value as EmailTrust;
  problems.push({ path: '/emailTrust', message: `must be ${EMAIL_TRUSTS.map((trust) => `"${trust}"`).join(' or ')}` });
  return DEFAULT_EMAIL_TRUST;
}

function readAdmins(body: Record<string, unknown>, problems: Problem[]): AdminRule | undefined {
  const admins = body.admins;
  if (admins === undefined || admins === null) return undefined;
  const good = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= MAX_CLAIM_NAME && !textProblem(value);
  if (
    !isObject(admins) ||
    Object.keys(admins).some((key) => key !== 'claim' && key !== 'value' && key !== 'scopes') ||
    !good(admins.claim) ||
    (admins.value !== undefined && !good(admins.value)) ||
    (admins.value === undefined && admins.scopes === undefined)
  ) {
    problems.push({
      path: '/admins',
      message:
        'must be {"claim", "value"?, "scopes"?}: the claim (or attribute), the value of it that makes an admin of the whole tenant, ' +
        `and values of it that make an admin of one organisation entry; at least one of the two, each text 1 to ${MAX_CLAIM_NAME} characters`,
    });
    return undefined;
  }
  const rule: AdminRule = { claim: admins.claim as string, ...(admins.value === undefined ? {} : { value: admins.value as string }) };
  if (admins.scopes === undefined) return rule;
  const scopes = admins.scopes;
  if (!isObject(scopes) || Object.keys(scopes).length === 0 || Object.keys(scopes).length > MAX_ADMIN_SCOPES) {
    problems.push({
      path: '/admins/scopes',
      message: `must be an object of 1 to ${MAX_ADMIN_SCOPES} values of the claim, each naming an organisation entry by its id`,
    });
    return undefined;
  }
  const before = problems.length;
  for (const [value, entry] of Object.entries(scopes)) {
    if (!good(value) || !good(entry) || value === admins.value) {
      problems.push({
        path: `/admins/scopes/${pointerToken(value)}`,
        message:
          value === admins.value
            ? 'is the value that makes an admin of the whole tenant'
            : `must map a value of the claim to an organisation entry id, each 1 to ${MAX_CLAIM_NAME} characters`,
      });
    }
  }
  return problems.length > before ? undefined : { ...rule, scopes: scopes as Record<string, string> };
}

/**
 * What `PUT /api/sso/connections/{name}` does to the client secret an OpenID Connect connection
 * has stored: `set` the one sent; `remove` it (`"clientSecret": null`: a public client from now
 * on); `keep` it (absent), so that an admin changing the scopes or the claims need not send the
 * secret again, which the API never answers. A connection of the other protocol has none to keep.
 */
export type ClientSecretChange = 'set' | 'remove' | 'keep';

export function clientSecretChangeOf(body: unknown): ClientSecretChange {
  if (!isObject(body) || body.clientSecret === undefined) return 'keep';
  return body.clientSecret === null ? 'remove' : 'set';
}

/**
 * The connection an admin sent (`PUT /api/sso/connections/{name}`, `learnbase sso set`): an OpenID
 * Connect one, or (`"protocol": "saml"`) a SAML draft whose metadata URL, if any, is still to read.
 */
export function parseSsoConnection(body: unknown, rules: UrlRules = HTTPS_ONLY): OidcConnectionInput | SamlConnectionDraft {
  if (!isObject(body)) throw invalid([{ path: '', message: 'must be an object {"issuer", "clientId", …}' }]);
  const protocol = body.protocol ?? 'oidc';
  if (protocol !== 'oidc' && protocol !== 'saml') throw invalid([{ path: '/protocol', message: 'must be "oidc" or "saml"' }]);
  return protocol === 'saml' ? parseSamlConnection(body, rules) : parseOidcConnection(body, rules);
}

function parseOidcConnection(body: Record<string, unknown>, rules: UrlRules): OidcConnectionInput {
  const problems: Problem[] = [];
  for (const key of Object.keys(body)) {
    if (!OIDC_FIELDS.includes(key)) problems.push({ path: `/${key}`, message: 'is not a property of an OpenID Connect connection' });
  }
  const issuer = textField(body, 'issuer', 500, true, problems);
  checkUrl(issuer, '/issuer', problems, true, rules);
  const clientId = textField(body, 'clientId', 200, true, problems);
  // null: no secret (clientSecretChangeOf tells the service to remove a stored one).
  const clientSecret = body.clientSecret === null ? undefined : textField(body, 'clientSecret', 500, false, problems);
  const scopes = textField(body, 'scopes', 500, false, problems) ?? (body.scopes === undefined ? DEFAULT_SCOPES : undefined);
  if (scopes !== undefined) {
    const list = scopes.split(' ');
    if (!list.every((scope) => SCOPE.test(scope)))
      problems.push({ path: '/scopes', message: 'must be scope names separated by single spaces' });
    else if (!list.includes('openid')) problems.push({ path: '/scopes', message: 'must include openid' });
  }
  const displayName = readDisplayName(body, problems);
  const claims = readClaims(body, DEFAULT_CLAIMS, problems);
  const admins = readAdmins(body, problems);
  const emailTrust = readEmailTrust(body, problems);
  if (problems.length > 0 || issuer === undefined || clientId === undefined || scopes === undefined) throw invalid(problems);
  return {
    protocol: 'oidc',
    ...(displayName === undefined ? {} : { displayName }),
    issuer,
    clientId,
    ...(clientSecret === undefined ? {} : { clientSecret }),
    scopes,
    claims,
    ...(admins ? { admins } : {}),
    emailTrust,
  };
}

/**
 * A SAML connection names its provider one way of three: its metadata (`metadataXml`), where to
 * read it (`metadataUrl`), or the three things this server needs of it (`idpEntityId`,
 * `entryPoint`, `certificates`).
 */
function parseSamlConnection(body: Record<string, unknown>, rules: UrlRules): SamlConnectionDraft {
  const problems: Problem[] = [];
  for (const key of Object.keys(body)) {
    if (!SAML_FIELDS.includes(key)) problems.push({ path: `/${key}`, message: 'is not a property of a SAML connection' });
  }
  const metadataXml = textField(body, 'metadataXml', MAX_METADATA_BYTES, false, problems);
  const metadataUrl = textField(body, 'metadataUrl', 500, false, problems);
  checkUrl(metadataUrl, '/metadataUrl', problems, false, rules);
  const spEntityId = textField(body, 'spEntityId', 500, false, problems);
  if (body.allowSha1 !== undefined && typeof body.allowSha1 !== 'boolean') {
    problems.push({ path: '/allowSha1', message: 'must be true (signatures and digests using SHA-1 are taken) or false (refused)' });
  }
  const explicit = ['idpEntityId', 'entryPoint', 'certificates'].filter((name) => body[name] !== undefined);
  const ways = [body.metadataXml !== undefined, body.metadataUrl !== undefined, explicit.length > 0];
  if (ways.filter(Boolean).length !== 1) {
    problems.push({
      path: '',
      message: 'must name the identity provider one way: metadataXml, metadataUrl, or idpEntityId with entryPoint and certificates',
    });
  }
  let metadata: IdpMetadata | undefined;
  if (metadataXml !== undefined) {
    metadata = readMetadataAt(metadataXml, '/metadataXml', problems, rules);
  } else if (explicit.length > 0) {
    metadata = readExplicitProvider(body, problems, rules);
  }
  const displayName = readDisplayName(body, problems);
  const claims = readClaims(body, DEFAULT_SAML_ATTRIBUTES, problems);
  const admins = readAdmins(body, problems);
  const emailTrust = readEmailTrust(body, problems);
  if (problems.length > 0) throw invalid(problems);
  return {
    protocol: 'saml',
    ...(displayName === undefined ? {} : { displayName }),
    claims,
    ...(admins ? { admins } : {}),
    emailTrust,
    ...(spEntityId === undefined ? {} : { spEntityId }),
    ...(metadataUrl === undefined ? {} : { metadataUrl }),
    ...(metadata ? { metadata } : {}),
    ...(body.allowSha1 === true ? { allowSha1: true } : {}),
  };
}

function readExplicitProvider(body: Record<string, unknown>, problems: Problem[], rules: UrlRules): IdpMetadata | undefined {
  const before = problems.length;
  const idpEntityId = textField(body, 'idpEntityId', 500, true, problems);
  const entryPoint = textField(body, 'entryPoint', 1000, true, problems);
  if (entryPoint !== undefined) checkEntryPoint(entryPoint, '/entryPoint', problems, rules);
  const sent = body.certificates;
  const certificates: string[] = [];
  if (!Array.isArray(sent) || sent.length === 0 || sent.length > MAX_CERTIFICATES) {
    problems.push({ path: '/certificates', message: `must be 1 to ${MAX_CERTIFICATES} certificates (PEM or base64 DER)` });
  } else {
    sent.forEach((certificate, index) => {
      const read = typeof certificate === 'string' && certificate.length <= 20_000 ? certificateBody(certificate) : undefined;
      if (read === undefined)
        problems.push({ path: `/certificates/${index}`, message: 'must be an X.509 certificate (PEM or base64 DER)' });
      else certificates.push(read);
    });
  }
  if (idpEntityId === undefined || entryPoint === undefined || problems.length > before) return undefined;
  return { entityId: idpEntityId, entryPoint, certificates };
}

/** The SingleSignOnService, where browsers are sent: https (http on loopback where `rules` allow it). */
function checkEntryPoint(entryPoint: string, path: string, problems: Problem[], rules: UrlRules): void {
  const before = problems.length;
  checkUrl(entryPoint, path, problems, false, rules);
  for (const problem of problems.slice(before)) problem.message = `has a SingleSignOnService that ${problem.message}`;
}

/** The provider a metadata document describes, its entry point checked; its problems named at `path`. */
function readMetadataAt(xml: string, path: string, problems: Problem[], rules: UrlRules): IdpMetadata | undefined {
  const read = readIdpMetadata(xml);
  if ('problem' in read) {
    problems.push({ path, message: read.problem });
    return undefined;
  }
  checkEntryPoint(read.entryPoint, path, problems, rules);
  return read;
}

/** The provider of the metadata read from a connection's `metadataUrl`, or the 400 naming what is wrong with it. */
export function metadataOfUrl(xml: string, rules: UrlRules = HTTPS_ONLY): IdpMetadata {
  const problems: Problem[] = [];
  const metadata = readMetadataAt(xml, '/metadataUrl', problems, rules);
  if (!metadata || problems.length > 0) throw invalid(problems);
  return metadata;
}

/**
 * The SAML connection of a draft and the provider's metadata (read from its URL by the service,
 * `metadataOfUrl`, or sent): `spEntityId` defaults to a name of this tenant's connection, stable whatever address the
 * server is reached at.
 */
export function completeSamlConnection(draft: SamlConnectionDraft, metadata: IdpMetadata, defaultSpEntityId: string): SamlConnectionInput {
  return {
    protocol: 'saml',
    ...(draft.displayName === undefined ? {} : { displayName: draft.displayName }),
    idpEntityId: metadata.entityId,
    entryPoint: metadata.entryPoint,
    certificates: metadata.certificates,
    spEntityId: draft.spEntityId ?? defaultSpEntityId,
    ...(draft.metadataUrl === undefined ? {} : { metadataUrl: draft.metadataUrl }),
    ...(draft.allowSha1 ? { allowSha1: true } : {}),
    claims: draft.claims,
    ...(draft.admins ? { admins: draft.admins } : {}),
    emailTrust: draft.emailTrust,
  };
}

/**
 * What the claims (or SAML attributes) make of a person under `rule`, the claim being one value or
 * a list: `{scope: null}` an admin of the whole tenant (it holds `value`); `{scope}` an admin of
 * that organisation entry (it holds one value of `scopes`, and not `value`); `{several}` when it
 * holds values of `scopes` naming several entries (an admin has one); undefined: no admin.
 */
export function adminScopeByClaims(
  claims: Readonly<Record<string, unknown>>,
  rule: AdminRule | undefined,
): { scope: string | null } | { several: string[] } | undefined {
  if (!rule) return undefined;
  const claim = claims[rule.claim];
  const held = (Array.isArray(claim) ? claim : [claim]).filter((value): value is string => typeof value === 'string');
  if (rule.value !== undefined && held.includes(rule.value)) return { scope: null };
  const entries = [...new Set(held.filter((value) => Object.hasOwn(rule.scopes ?? {}, value)).map((value) => rule.scopes![value]!))];
  if (entries.length === 0) return undefined;
  return entries.length === 1 ? { scope: entries[0]! } : { several: entries.sort() };
}

/**
 * Whether two versions of a connection make the same people admins, of the same scopes: the same
 * provider (its issuer or entity ID), the same admins rule, and the same e-mail address trusted the
 * same way (the admin is found by it). A PUT that changes any of these signs out the admins the
 * connection made (sso.service.ts putConnection): they sign in again under the new rule.
 */
export function sameAdmission(before: SsoConnectionInput, after: SsoConnectionInput): boolean {
  const byValue = ([a]: [string, string], [b]: [string, string]) => (a < b ? -1 : a > b ? 1 : 0);
  const admission = (connection: SsoConnectionInput) =>
    JSON.stringify([
      connection.protocol,
      connection.protocol === 'saml' ? connection.idpEntityId : connection.issuer,
      connection.admins
        ? [connection.admins.claim, connection.admins.value ?? null, Object.entries(connection.admins.scopes ?? {}).sort(byValue)]
        : null,
      connection.emailTrust,
      Object.keys(connection.claims)
        .filter((claim) => connection.claims[claim] === 'email')
        .sort(),
    ]);
  return admission(before) === admission(after);
}

/** A metadata document or URL that could not be used, named as the connection's problem. */
export const metadataProblem = (path: string, message: string) => invalid([{ path, message }]);

/** Problems the service found with a connection that reads well (an organisation entry it names is not there). */
export const connectionProblems = (problems: Array<{ path: string; message: string }>) => invalid(problems);

/**
 * What the provider says of its e-mail address: `email_verified` true or "true", false or "false"
 * (any case; a SAML attribute of one value counts as that value), or nothing it says.
 */
function emailVerification(claims: Readonly<Record<string, unknown>>): 'verified' | 'unverified' | 'unsaid' {
  const sent = claims.email_verified;
  const value = Array.isArray(sent) && sent.length === 1 ? sent[0] : sent;
  const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (text === true || text === 'true') return 'verified';
  if (text === false || text === 'false') return 'unverified';
  return 'unsaid';
}

/**
 * The claims a sign-in may use to find, match and write a person or an admin (docs/identity.md,
 * "Which claims a connection trusts"): all of them, except the e-mail address when the connection
 * does not trust it (`emailTrust`). An untrusted address never matches a holder of that address,
 * nor is written (it would take another's unique value): the `email` claim is left out, and so is
 * every claim the connection maps to the `email` attribute (a SAML `…/emailaddress`, a NameID).
 */
export function trustedClaims(
  claims: Readonly<Record<string, unknown>>,
  connection: { claims: Readonly<Record<string, string>>; emailTrust: EmailTrust },
): Record<string, unknown> {
  const said = emailVerification(claims);
  if (said === 'verified' || (said === 'unsaid' && connection.emailTrust === 'unless-unverified')) return { ...claims };
  const untrusted = new Set(['email', ...Object.keys(connection.claims).filter((claim) => connection.claims[claim] === 'email')]);
  return Object.fromEntries(Object.entries(claims).filter(([name]) => !untrusted.has(name)));
}

/**
 * The attributes an ID token's claims give (`claims` maps claim → attribute): strings as they are,
 * numbers and booleans as text; other values (objects, arrays) and empty strings are left out.
 */
export function attributesOfClaims(
  tokenClaims: Readonly<Record<string, unknown>>,
  claims: Readonly<Record<string, string>>,
): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [claim, attribute] of Object.entries(claims)) {
    const value = tokenClaims[claim];
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    if (text !== undefined && text !== '' && !textProblem(text)) attributes[attribute] = text;
  }
  return attributes;
}

/** The person's name from the ID token: `name`, else `given_name` and `family_name`, else undefined. */
export function nameOfClaims(tokenClaims: Readonly<Record<string, unknown>>): string | undefined {
  const name = typeof tokenClaims.name === 'string' ? tokenClaims.name.trim() : '';
  if (name) return name;
  return joinedName(tokenClaims.given_name, tokenClaims.family_name);
}

/** A given and a family name joined, those that are non-blank text; undefined when neither is. */
export function joinedName(given: unknown, family: unknown): string | undefined {
  const parts = [given, family].filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  return parts.length > 0 ? parts.join(' ') : undefined;
}

const invalid = (problems: Array<{ path: string; message: string }>) =>
  new AppError(
    'identity.invalid_connection',
    400,
    `The connection is invalid: ${problems
      .slice(0, 3)
      .map((problem) => `${problem.path || 'the body'} ${problem.message}`)
      .join('; ')}.`,
    { details: { problems } },
  );
