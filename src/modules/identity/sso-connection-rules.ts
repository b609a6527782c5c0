/**
 * A tenant's OpenID Connect identity provider as an admin configures it (docs/identity.md, "Single
 * sign-on"), read and checked: pure. Every problem is named with its JSON pointer.
 */
import { AppError } from '../../platform/http/app-error.js';
import { textProblem } from '../../platform/json-guard.js';

export const CONNECTION_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const MAX_CLAIMS = 50;

/** The claims kept when an admin names none: the standard ones (OpenID Connect Core §5.1) onto the attributes of these guides. */
export const DEFAULT_CLAIMS: Readonly<Record<string, string>> = {
  email: 'email',
  given_name: 'givenName',
  family_name: 'familyName',
};
export const DEFAULT_SCOPES = 'openid email profile';

export interface SsoConnectionInput {
  issuer: string;
  clientId: string;
  /** Absent: a public client (PKCE only). */
  clientSecret?: string;
  scopes: string;
  /** ID token claim → actor attribute. */
  claims: Record<string, string>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * True for an issuer a connection may name: https, or http on the loopback interface (a provider
 * running beside the server in development and tests; openid-client refuses plain http otherwise).
 */
export function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

export function parseSsoConnection(body: unknown): SsoConnectionInput {
  const problems: Array<{ path: string; message: string }> = [];
  if (!isObject(body)) throw invalid([{ path: '', message: 'must be an object {"issuer", "clientId", …}' }]);
  for (const key of Object.keys(body)) {
    if (!['issuer', 'clientId', 'clientSecret', 'scopes', 'claims'].includes(key))
      problems.push({ path: `/${key}`, message: 'is not a property of a connection' });
  }
  const text = (name: string, max: number, required: boolean): string | undefined => {
    const value = body[name];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value.length === 0 || value.length > max)
      problems.push({ path: `/${name}`, message: `must be a string of 1 to ${max} characters` });
    else if (textProblem(value)) problems.push({ path: `/${name}`, message: textProblem(value)!.why });
    else return value;
    return undefined;
  };
  const issuer = text('issuer', 500, true);
  if (issuer !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(issuer);
    } catch {
      problems.push({ path: '/issuer', message: 'must be an absolute URL' });
    }
    if (url && !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url)))) {
      problems.push({ path: '/issuer', message: 'must be an https URL (http only on the loopback interface)' });
    }
    if (url && (url.search || url.hash)) problems.push({ path: '/issuer', message: 'must have no query and no fragment' });
  }
  const clientId = text('clientId', 200, true);
  const clientSecret = text('clientSecret', 500, false);
  const scopes = text('scopes', 500, false) ?? (body.scopes === undefined ? DEFAULT_SCOPES : undefined);
  if (scopes !== undefined) {
    const list = scopes.split(' ');
    if (!list.every((scope) => SCOPE.test(scope)))
      problems.push({ path: '/scopes', message: 'must be scope names separated by single spaces' });
    else if (!list.includes('openid')) problems.push({ path: '/scopes', message: 'must include openid' });
  }
  let claims: Record<string, string> = { ...DEFAULT_CLAIMS };
  if (body.claims !== undefined) {
    if (!isObject(body.claims) || Object.keys(body.claims).length === 0 || Object.keys(body.claims).length > MAX_CLAIMS) {
      problems.push({ path: '/claims', message: `must be an object of 1 to ${MAX_CLAIMS} claim names to attribute names` });
    } else {
      claims = {};
      for (const [claim, attribute] of Object.entries(body.claims)) {
        const path = `/claims/${claim.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (claim.length === 0 || claim.length > 100 || textProblem(claim))
          problems.push({ path, message: 'must be a claim name of 1 to 100 characters' });
        else if (typeof attribute !== 'string' || attribute.length === 0 || attribute.length > 100 || textProblem(attribute)) {
          problems.push({ path, message: 'must be an attribute name of 1 to 100 characters' });
        } else claims[claim] = attribute;
      }
    }
  }
  if (problems.length > 0 || issuer === undefined || clientId === undefined || scopes === undefined) throw invalid(problems);
  return { issuer, clientId, ...(clientSecret === undefined ? {} : { clientSecret }), scopes, claims };
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
  const parts = [tokenClaims.given_name, tokenClaims.family_name].filter(
    (part): part is string => typeof part === 'string' && part.trim() !== '',
  );
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
