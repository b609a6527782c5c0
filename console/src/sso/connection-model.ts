/**
 * A single sign-on connection as the console's form edits it, the body `PUT
 * /api/sso/connections/{name}` takes from it (docs/identity.md, "Single sign-on"), the form filled
 * from what `GET /api/sso/connections` answers, and the API's refusal (`400
 * identity.invalid_connection`, each problem a JSON pointer and words) placed beside the field it is
 * about.
 *
 * No imports: the console imports nothing from src/, and test/console/connection-model.test.ts
 * compiles this file under the root tsconfig too. The API checks every value; the form checks only
 * what it needs to send a request at all (a name).
 */

export type Protocol = 'oidc' | 'saml';
export type EmailTrust = 'unless-unverified' | 'verified-only';
/** How a SAML provider is named: its metadata document, where to read it, or the three things needed of it. */
export type SamlSource = 'xml' | 'url' | 'explicit';

/** One claim (SAML: attribute) → person attribute row; `id` keeps React's rows apart. */
export interface ClaimRow {
  id: number;
  claim: string;
  attribute: string;
}
/** One value of the admins claim → organisation entry row. */
export interface ScopeRow {
  id: number;
  value: string;
  entry: string;
}

export interface ConnectionForm {
  name: string;
  protocol: Protocol;
  displayName: string;
  emailTrust: EmailTrust;
  // OpenID Connect
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Editing: the connection has a client secret, which the API never answers. */
  hasStoredSecret: boolean;
  /** Editing a connection with a secret: make it a public client (PKCE only) instead of entering the secret again. */
  dropSecret: boolean;
  scopes: string;
  // SAML
  samlSource: SamlSource;
  metadataXml: string;
  /** The file `metadataXml` was read from, to say which. */
  metadataFileName: string;
  metadataUrl: string;
  idpEntityId: string;
  entryPoint: string;
  /** PEM blocks, or base64 DER separated by empty lines. */
  certificates: string;
  spEntityId: string;
  allowSha1: boolean;
  /** Editing: how many certificates the connection keeps (the API answers the count, never the certificates). */
  storedCertificates: number;
  // Both
  claims: ClaimRow[];
  adminClaim: string;
  adminValue: string;
  adminScopes: ScopeRow[];
}

let nextRowId = 1;
export const newClaimRow = (claim = '', attribute = ''): ClaimRow => ({ id: nextRowId++, claim, attribute });
export const newScopeRow = (value = '', entry = ''): ScopeRow => ({ id: nextRowId++, value, entry });

export const DEFAULT_SCOPES = 'openid email profile';

export function emptyForm(protocol: Protocol = 'oidc'): ConnectionForm {
  return {
    name: '',
    protocol,
    displayName: '',
    emailTrust: 'unless-unverified',
    issuer: '',
    clientId: '',
    clientSecret: '',
    hasStoredSecret: false,
    dropSecret: false,
    scopes: '',
    samlSource: 'xml',
    metadataXml: '',
    metadataFileName: '',
    metadataUrl: '',
    idpEntityId: '',
    entryPoint: '',
    certificates: '',
    spEntityId: '',
    allowSha1: false,
    storedCertificates: 0,
    claims: [],
    adminClaim: '',
    adminValue: '',
    adminScopes: [],
  };
}

/** A connection as `GET /api/sso/connections` and `PUT` answer it (never a secret, nor the certificates). */
export interface ConnectionView {
  name: string;
  displayName: string;
  protocol: Protocol;
  claims: Record<string, string>;
  admins: { claim: string; value?: string; scopes?: Record<string, string> } | null;
  emailTrust: EmailTrust;
  issuer?: string;
  clientId?: string;
  clientSecret?: '(set)' | null;
  scopes?: string;
  redirectUri?: string;
  idpEntityId?: string;
  entryPoint?: string;
  certificates?: number;
  allowSha1?: boolean;
  metadataUrl?: string;
  metadataReadAt?: string;
  metadataCheckedAt?: string;
  metadataProblem?: string | null;
  spEntityId?: string;
  acsUrl?: string;
  spMetadataUrl?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The form filled from a connection, to edit it: a PUT replaces the whole connection, so everything
 * it has is sent again. The client secret, which the API never answers, is left out and so kept,
 * unless a new one is typed or the connection is made a public client on purpose (`dropSecret`,
 * sent as null). For a SAML provider not read from a URL its certificates (or its metadata
 * document) must be given again.
 */
export function formOfConnection(view: ConnectionView): ConnectionForm {
  const form = emptyForm(view.protocol);
  return {
    ...form,
    name: view.name,
    // The API answers the name as the display name when none was given: left empty, it stays so.
    displayName: view.displayName === view.name ? '' : view.displayName,
    emailTrust: view.emailTrust,
    issuer: view.issuer ?? '',
    clientId: view.clientId ?? '',
    hasStoredSecret: view.clientSecret === '(set)',
    scopes: view.scopes === undefined || view.scopes === DEFAULT_SCOPES ? '' : view.scopes,
    samlSource: view.metadataUrl !== undefined ? 'url' : 'xml',
    metadataUrl: view.metadataUrl ?? '',
    idpEntityId: view.idpEntityId ?? '',
    entryPoint: view.entryPoint ?? '',
    spEntityId: view.spEntityId ?? '',
    allowSha1: view.allowSha1 === true,
    storedCertificates: view.certificates ?? 0,
    claims: Object.entries(view.claims).map(([claim, attribute]) => newClaimRow(claim, attribute)),
    adminClaim: view.admins?.claim ?? '',
    adminValue: view.admins?.value ?? '',
    adminScopes: Object.entries(view.admins?.scopes ?? {}).map(([value, entry]) => newScopeRow(value, entry)),
  };
}

/** Certificates as typed or pasted: each PEM block, else each paragraph (base64 DER), blank ones left out. */
export function splitCertificates(text: string): string[] {
  const pem = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  if (pem) return pem;
  return text
    .split(/\n\s*\n/)
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * The body of `PUT /api/sso/connections/{name}` for the form, as docs/identity.md documents it:
 * empty optional fields left out (the server's default then), the fields of the other protocol and
 * of the SAML ways not chosen never sent. The display name goes as typed (only spaces is the API's
 * to refuse); other text is trimmed. A row of claims or scopes with either side typed is sent, so
 * that the API names what is missing.
 */
export function bodyOf(form: ConnectionForm): Record<string, unknown> {
  const body: Record<string, unknown> = { protocol: form.protocol };
  const put = (key: string, value: string) => {
    if (value.trim() !== '') body[key] = value.trim();
  };
  if (form.displayName !== '') body.displayName = form.displayName;
  if (form.protocol === 'oidc') {
    put('issuer', form.issuer);
    put('clientId', form.clientId);
    // Left out, the stored secret is kept; null removes it (a public client on purpose).
    if (form.clientSecret !== '') body.clientSecret = form.clientSecret;
    else if (form.hasStoredSecret && form.dropSecret) body.clientSecret = null;
    put('scopes', form.scopes);
  } else {
    if (form.samlSource === 'xml' && form.metadataXml !== '') body.metadataXml = form.metadataXml;
    if (form.samlSource === 'url') put('metadataUrl', form.metadataUrl);
    if (form.samlSource === 'explicit') {
      put('idpEntityId', form.idpEntityId);
      put('entryPoint', form.entryPoint);
      const certificates = splitCertificates(form.certificates);
      if (certificates.length > 0) body.certificates = certificates;
    }
    put('spEntityId', form.spEntityId);
    if (form.allowSha1) body.allowSha1 = true;
  }
  const claims = form.claims.filter((row) => row.claim.trim() !== '' || row.attribute.trim() !== '');
  if (claims.length > 0) body.claims = Object.fromEntries(claims.map((row) => [row.claim.trim(), row.attribute.trim()]));
  const scopes = form.adminScopes.filter((row) => row.value.trim() !== '' || row.entry.trim() !== '');
  if (form.adminClaim.trim() !== '' || form.adminValue.trim() !== '' || scopes.length > 0) {
    body.admins = {
      claim: form.adminClaim.trim(),
      ...(form.adminValue.trim() === '' ? {} : { value: form.adminValue.trim() }),
      ...(scopes.length === 0 ? {} : { scopes: Object.fromEntries(scopes.map((row) => [row.value.trim(), row.entry.trim()])) }),
    };
  }
  body.emailTrust = form.emailTrust;
  return body;
}

/** The parts of the form a problem is said beside. */
export type Field =
  | 'name'
  | 'protocol'
  | 'displayName'
  | 'emailTrust'
  | 'issuer'
  | 'clientId'
  | 'clientSecret'
  | 'scopes'
  | 'provider'
  | 'metadataXml'
  | 'metadataUrl'
  | 'idpEntityId'
  | 'entryPoint'
  | 'certificates'
  | 'spEntityId'
  | 'allowSha1'
  | 'claims'
  | 'admins';

/** What the form says where: a field's problem, a row's (by the row's id), and what names no field. */
export interface Problems {
  fields: Partial<Record<Field, string>>;
  claimRows: Record<number, string>;
  scopeRows: Record<number, string>;
  form: string[];
}

export const noProblems = (): Problems => ({ fields: {}, claimRows: {}, scopeRows: {}, form: [] });

export const hasProblems = (problems: Problems): boolean =>
  Object.keys(problems.fields).length +
    Object.keys(problems.claimRows).length +
    Object.keys(problems.scopeRows).length +
    problems.form.length >
  0;

/**
 * The problems the form finds before sending: only what keeps a request from making sense. Creating
 * one of an existing connection's name would replace it (PUT), so `existingNames` says which are
 * taken when creating.
 */
export function localProblems(form: ConnectionForm, existingNames: readonly string[] = []): Problems {
  const problems = noProblems();
  const name = form.name.trim();
  if (name === '') problems.fields.name = 'Give the connection a name: 1 to 40 lower-case letters, digits and inner hyphens.';
  else if (existingNames.includes(name)) {
    problems.fields.name = `A connection named ${name} exists already: edit it from the list instead (creating it here would replace it).`;
  }
  return problems;
}

/** RFC 6901 §4: a pointer segment read back (`~1` is `/`, `~0` is `~`). */
const unescapeToken = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

const TOP_FIELDS: Partial<Record<string, Field>> = {
  name: 'name',
  protocol: 'protocol',
  displayName: 'displayName',
  emailTrust: 'emailTrust',
  issuer: 'issuer',
  clientId: 'clientId',
  clientSecret: 'clientSecret',
  scopes: 'scopes',
  metadataXml: 'metadataXml',
  metadataUrl: 'metadataUrl',
  idpEntityId: 'idpEntityId',
  entryPoint: 'entryPoint',
  certificates: 'certificates',
  spEntityId: 'spEntityId',
  allowSha1: 'allowSha1',
  claims: 'claims',
  admins: 'admins',
};

/**
 * A refusal's problems placed on the form: `details.problems` of `identity.invalid_connection`,
 * each beside the field (or the row of claims or scopes) its path names; a path naming nothing the
 * form shows, and a refusal without problems, said at the top in the API's words. A SAML body's
 * "name the identity provider one way" (the path of the whole body) is said beside the choice of way.
 */
export function problemsOfRefusal(
  refusal: { code?: string; message: string; details?: Record<string, unknown> },
  form: ConnectionForm,
): Problems {
  const problems = noProblems();
  const listed = refusal.details?.problems;
  if (!Array.isArray(listed) || listed.length === 0) {
    problems.form.push(refusal.message);
    return problems;
  }
  const joined = (before: string | undefined, message: string) => (before === undefined ? message : `${before} ${message}`);
  for (const problem of listed as { path?: unknown; message?: unknown }[]) {
    const path = typeof problem.path === 'string' ? problem.path : '';
    const message = typeof problem.message === 'string' ? problem.message : refusal.message;
    const [top = '', ...rest] = path.split('/').slice(1).map(unescapeToken);
    const claimRow = top === 'claims' && rest.length === 1 ? form.claims.find((row) => row.claim.trim() === rest[0]) : undefined;
    const scopeRow =
      top === 'admins' && rest[0] === 'scopes' && rest.length === 2
        ? form.adminScopes.find((row) => row.value.trim() === rest[1])
        : undefined;
    const field = path === '' && form.protocol === 'saml' ? 'provider' : TOP_FIELDS[top];
    if (claimRow) problems.claimRows[claimRow.id] = joined(problems.claimRows[claimRow.id], message);
    else if (scopeRow) problems.scopeRows[scopeRow.id] = joined(problems.scopeRows[scopeRow.id], message);
    else if (field) problems.fields[field] = joined(problems.fields[field], rest.length > 0 ? `${path}: ${message}` : message);
    else problems.form.push(`${path || 'The connection'} ${message}`);
  }
  return problems;
}
