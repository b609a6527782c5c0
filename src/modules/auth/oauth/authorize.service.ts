import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError } from '../../../platform/http/app-error.js';
import { signInFailures, signInLockouts } from '../../../platform/process-metrics.js';
import { hashSecret, newSecret, secretMatches } from '../../../platform/issued-secrets.js';
import { type TenancyService, tenantNameOfHost } from '../../tenancy/index.js';
import type { Principal } from '../../../kernel/principal.js';
import { recordAudit } from '../../audit/index.js';
import { MAX_EMAIL_LENGTH, normaliseEmail, signedOnAdmin, verifyAdminPassword, type Admin } from '../admins/admin.service.js';
import type { AdminSignOn, PendingSignOn, SignOnConnection } from '../../../kernel/admin-sign-on.port.js';
import type { ProvidedAdmin } from './admin-sign-on.js';
import {
  deletePendingAuthorization,
  findPendingAuthorization,
  insertPendingAuthorization,
  type PendingAuthorization,
} from './authorization-request.repository.js';
import { findClient, redirectUrisOf, tenantIdOfClient, type OAuthClient } from './clients/client.service.js';
import { issueCode } from './code.service.js';
import { failureOutcome, signInSubjects, type SignInPolicy, type SignInThrottle } from './sign-in-throttle.js';
import type { TokenService } from './token.service.js';

/** How long the sign-in form of one authorize request stays usable. */
export const SIGN_IN_LIFETIME_SECONDS = 600;

/** Longest `state` carried through (it is stored and echoed, not interpreted). */
const MAX_STATE_LENGTH = 2048;
/** RFC 7636 §4.2: BASE64URL(SHA-256(verifier)) is always 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The cookie that binds a sign-in form to the browser it was served to; one per pending request. */
export const signInCookieName = (requestId: string) => `__Host-lb-signin-${requestId}`;

/** Stays on this server: the request cannot be trusted to go back to the client (RFC 6749 §4.1.2.1). */
export interface Refusal {
  kind: 'refuse';
  status: number;
  title: string;
  message: string;
}

/** Back to the client's registered redirect URI, with a code or an error. */
export interface Redirect {
  kind: 'redirect';
  location: string;
  /** The pending request that ended, whose cookie the browser can drop. */
  ended?: string;
}

/** The sign-in form (again), for a pending request. */
export interface SignInForm {
  kind: 'sign-in';
  status: number;
  client: OAuthClient;
  requestId: string;
  csrfToken: string;
  email?: string;
  error?: string;
  /** Set when sign-in is refused for a while (429). */
  retryAfterSeconds?: number;
  /** How many of the client's oldest pending forms a new one pushed out (over `maxPendingPerClient`). */
  evicted?: number;
  /** The tenant's identity providers an admin may sign in with instead (AdminSignOn). */
  connections: SignOnConnection[];
}

/** To the identity provider of `connection`, for the pending request. */
export interface SignOnStart {
  kind: 'sign-on';
  connection: string;
  pending: PendingSignOn;
}

export type AuthorizeOutcome = Refusal | Redirect | SignInForm | SignOnStart;

/** The fields the sign-in form posts, and the cookie that came with it. */
export interface SignInSubmission {
  requestId?: string;
  clientId?: string;
  csrfToken?: string;
  email?: string;
  password?: string;
  action?: string;
  /** Set by a "Sign in with …" button: the connection to sign in through. */
  connection?: string;
  cookie?: string;
  host?: string;
  ip: string;
}

const refuse = (status: number, title: string, message: string): Refusal => ({ kind: 'refuse', status, title, message });

/** The pending request is not there (any more): expired, used, or never this form's. */
const formGone = () => refuse(403, 'Sign-in form expired', 'This sign-in form has expired or has already been used.');

/** `uri` with the response parameters added to its query (RFC 6749 §4.1.2: the query is kept). */
function redirectTo(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

function only(params: URLSearchParams, name: string): { value?: string; repeated: boolean } {
  const values = params.getAll(name);
  return { value: values.length === 1 ? values[0] : undefined, repeated: values.length > 1 };
}

const minutes = (until: Date) => Math.max(1, Math.ceil((until.getTime() - Date.now()) / 60_000));

/**
 * The browser step of the authorization code flow (RFC 6749 §4.1.1–4.1.2, RFC 7636): checks the
 * authorize request, keeps it pending behind a CSRF token while its admin signs in, and issues
 * the code.
 */
export class AuthorizeService {
  constructor(
    private readonly sql: SqlClient,
    private readonly tenancy: TenancyService,
    private readonly throttle: SignInThrottle,
    private readonly baseDomain: string,
    /** Revokes the tokens of an admin whose scope a single sign-on changed. */
    private readonly tokens: Pick<TokenService, 'revokeAdminTokens' | 'announce'>,
    /** The single sign-on the page offers: the port `adminSignOn` (identity's). */
    readonly adminSignOn: AdminSignOn,
  ) {}

  /** The sign-in limits, the browser step's rate limit among them. */
  get policy(): SignInPolicy {
    return this.throttle.policy;
  }

  /** `GET /auth/oauth/authorize`; `publicBaseUrl`: the address the request came to, which the console's redirect URI is below. */
  async start(params: URLSearchParams, host: string | undefined, publicBaseUrl: string): Promise<Refusal | Redirect | SignInForm> {
    const clientId = only(params, 'client_id');
    if (!clientId.value) {
      return refuse(
        400,
        'Unknown application',
        clientId.repeated ? 'The request names client_id more than once.' : 'The request names no client_id.',
      );
    }
    const client = await findClient(this.sql, this.tenancy, clientId.value);
    if (!client) return refuse(400, 'Unknown application', `No application is registered with the client_id "${clientId.value}".`);
    const hostRefusal = this.checkHost(client, host);
    if (hostRefusal) return hostRefusal;

    const redirectUri = only(params, 'redirect_uri');
    if (!redirectUri.value) {
      return refuse(
        400,
        'Invalid redirect URI',
        redirectUri.repeated ? 'The request names redirect_uri more than once.' : 'The request names no redirect_uri.',
      );
    }
    // RFC 6749 §3.1.2.3 and OAuth 2.1: simple string comparison, no prefix, case or slash leniency.
    if (!redirectUrisOf(client, publicBaseUrl).includes(redirectUri.value)) {
      return refuse(400, 'Invalid redirect URI', `"${redirectUri.value}" is not a redirect URI registered for ${client.name}.`);
    }

    // From here on the redirect URI is trusted: errors go back to it (RFC 6749 §4.1.2.1).
    const state = only(params, 'state');
    const back = (error: string, description: string): Redirect => ({
      kind: 'redirect',
      location: redirectTo(redirectUri.value!, { error, error_description: description, state: state.value }),
    });
    for (const name of ['response_type', 'state', 'code_challenge', 'code_challenge_method', 'scope']) {
      if (only(params, name).repeated) return back('invalid_request', `The request names ${name} more than once.`);
    }
    const responseType = params.get('response_type');
    if (!responseType) return back('invalid_request', 'The request names no response_type; use response_type=code.');
    if (responseType !== 'code')
      return back('unsupported_response_type', `The response_type "${responseType}" is not supported; use code.`);
    if (state.value !== undefined && state.value.length > MAX_STATE_LENGTH) {
      return back('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters.`);
    }
    const challenge = params.get('code_challenge') ?? undefined;
    const method = params.get('code_challenge_method') ?? undefined;
    if (challenge === undefined && method !== undefined)
      return back('invalid_request', 'code_challenge_method was sent without a code_challenge.');
    if (challenge !== undefined) {
      // RFC 7636 §4.4.1: a method we do not support (plain, or none given, which means plain).
      if (method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256 (plain is not supported).');
      if (!S256_CHALLENGE.test(challenge))
        return back('invalid_request', 'code_challenge must be 43 base64url characters: BASE64URL(SHA-256(code_verifier)).');
    }

    const pending: PendingAuthorization = {
      tenantId: client.tenant.id,
      id: randomUUID(),
      clientId: client.clientId,
      redirectUri: redirectUri.value,
      state: state.value,
      codeChallenge: challenge,
    };
    const csrfToken = newSecret();
    const evicted = await insertPendingAuthorization(
      this.sql,
      pending,
      hashSecret(csrfToken),
      SIGN_IN_LIFETIME_SECONDS,
      this.policy.maxPendingPerClient,
    );
    const connections = await this.adminSignOn.connectionsFor(client.tenant.id);
    return { kind: 'sign-in', status: 200, client, requestId: pending.id, csrfToken, evicted, connections };
  }

  /** `POST /auth/oauth/authorize`: the sign-in form, or its Cancel button. */
  async submit(form: SignInSubmission): Promise<AuthorizeOutcome> {
    const { requestId, clientId, csrfToken } = form;
    if (!requestId || !UUID.test(requestId) || !clientId || !csrfToken) {
      return refuse(400, 'Sign-in form incomplete', 'The sign-in form was not sent as this server served it.');
    }
    if (form.cookie === undefined) {
      return refuse(
        403,
        'Sign-in form not verified',
        'Your browser did not send back the cookie of this sign-in form. Allow cookies for this site, make sure it is served over https (or from localhost), and start again.',
      );
    }
    const csrfHash = hashSecret(csrfToken);
    if (!secretMatches(form.cookie, csrfHash)) {
      return refuse(403, 'Sign-in form not verified', 'The sign-in form does not match the one served to this browser.');
    }
    const tenantId = tenantIdOfClient(clientId);
    const pending = tenantId ? await findPendingAuthorization(this.sql, tenantId, requestId, csrfHash) : undefined;
    const client = pending?.clientId === clientId ? await findClient(this.sql, this.tenancy, clientId) : undefined;
    if (!pending || !client) return formGone();
    const hostRefusal = this.checkHost(client, form.host);
    if (hostRefusal) return hostRefusal;

    if (form.action === 'cancel') {
      const ended = await deletePendingAuthorization(this.sql, pending.tenantId, pending.id, csrfHash);
      if (!ended) return formGone();
      return {
        kind: 'redirect',
        ended: pending.id,
        location: redirectTo(pending.redirectUri, {
          error: 'access_denied',
          error_description: 'The administrator cancelled the authorization.',
          state: pending.state,
        }),
      };
    }

    // The tenant's sign-in services, read only when the form is shown again or one of them is chosen.
    let offered: SignOnConnection[] | undefined;
    const connections = async () => (offered ??= await this.adminSignOn.connectionsFor(client.tenant.id));
    const again = async (status: number, error: string, extra: Partial<SignInForm> = {}): Promise<SignInForm> => ({
      kind: 'sign-in',
      status,
      client,
      requestId: pending.id,
      csrfToken,
      email: form.email?.trim() || undefined,
      error,
      connections: await connections(),
      ...extra,
    });
    if (form.connection !== undefined) {
      if (!(await connections()).some(({ name }) => name === form.connection))
        return again(400, 'That sign-in service is not offered any more: choose another, or sign in with your password.');
      return {
        kind: 'sign-on',
        connection: form.connection,
        pending: { tenant: client.tenant, authorizationRequestId: pending.id, csrfHash },
      };
    }
    const email = normaliseEmail(form.email ?? '');
    if (email === '' || !form.password) return again(400, 'Enter your e-mail address and your password.');
    // No admin has a longer one (createAdmin), and it would be a key of the throttle's counts.
    if (email.length > MAX_EMAIL_LENGTH) {
      return again(400, `That is not an e-mail address: one has at most ${MAX_EMAIL_LENGTH} characters.`, { email: undefined });
    }

    // The attempt takes its place in the counts before the password is checked, so however many
    // arrive at once, no more than the limit of guesses are ever checked in a window.
    const subjects = signInSubjects(email, form.ip);
    const attempt = await this.throttle.attempt(pending.tenantId, subjects);
    if ('refusedUntil' in attempt) {
      signInLockouts.inc({ kind: 'admin' });
      return again(429, lockedMessage(attempt.refusedUntil), { retryAfterSeconds: secondsUntil(attempt.refusedUntil) });
    }

    let admin: Admin | undefined;
    try {
      admin = await verifyAdminPassword(this.sql, pending.tenantId, email, form.password);
    } catch (error) {
      await this.throttle.release(pending.tenantId, subjects).catch(() => undefined);
      throw error;
    }
    if (!admin) {
      signInFailures.inc({ kind: 'admin' });
      const failure = failureOutcome(attempt, this.throttle.policy);
      if (failure.lockedUntil) {
        signInLockouts.inc({ kind: 'admin' });
        return again(429, lockedMessage(failure.lockedUntil), { retryAfterSeconds: secondsUntil(failure.lockedUntil) });
      }
      if (failure.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, failure.delayMs));
      // The same words whether the address or the password was wrong, or the account is another tenant's.
      return again(401, 'The e-mail address or the password is not right.');
    }

    await this.throttle.succeeded(pending.tenantId, subjects);
    const ended = await deletePendingAuthorization(this.sql, pending.tenantId, pending.id, csrfHash);
    if (!ended) return formGone();
    const code = await issueCode(this.sql, {
      tenantId: pending.tenantId,
      clientId: pending.clientId,
      adminId: admin.id,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
    });
    return { kind: 'redirect', ended: pending.id, location: redirectTo(pending.redirectUri, { code, state: pending.state }) };
  }

  /**
   * The end of an admin's single sign-on (AdminSignOn): the identity provider vouched for
   * `provided.email` and made them an admin of `provided.scope` through `provided.connection`; the
   * pending request is taken (once), the admin the connection made found by address or created
   * without a password (audited as `admin.created` by the connection's principal; one given another
   * scope has it, audited as `admin.scope_changed`, their earlier tokens revoked), and the code
   * issued, marked as a single sign-on (its tokens refresh for LEARNBASE_SSO_ADMIN_SESSION_S). An
   * admin of that address the connection did not make is refused (signedOnAdmin). Answers where to
   * send the browser: the client's redirect URI with the code.
   */
  async finishSignOn(pending: PendingSignOn, provided: ProvidedAdmin, by: { principal: Principal; source: string }): Promise<string> {
    const { location, revoked } = await this.sql.transaction(async (tx) => {
      const taken = await deletePendingAuthorization(tx, pending.tenant.id, pending.authorizationRequestId, pending.csrfHash);
      if (!taken) throw SignOnErrors.requestGone();
      const { admin, created, scopeChanged } = await signedOnAdmin(tx, pending.tenant, provided.email, provided.scope, provided.connection);
      const details = { adminId: admin.id, email: admin.email, scope: admin.scope ?? null };
      if (created) await recordAudit(tx, { action: 'admin.created', ...by, details });
      if (scopeChanged) await recordAudit(tx, { action: 'admin.scope_changed', ...by, details });
      const revoked = scopeChanged ? await this.tokens.revokeAdminTokens(tx, pending.tenant.id, admin.id) : [];
      const code = await issueCode(tx, {
        tenantId: taken.tenantId,
        clientId: taken.clientId,
        adminId: admin.id,
        redirectUri: taken.redirectUri,
        codeChallenge: taken.codeChallenge,
        signedOn: true,
      });
      return { location: redirectTo(taken.redirectUri, { code, state: taken.state }), revoked };
    });
    await this.tokens.announce(revoked);
    return location;
  }

  /** A `{tenant}.{baseDomain}` host must be the client's tenant: one tenant's pages are never served on another's. */
  private checkHost(client: OAuthClient, host: string | undefined): Refusal | undefined {
    let named: string | undefined;
    try {
      named = tenantNameOfHost(host, this.baseDomain);
    } catch (error) {
      if (error instanceof AppError) return refuse(error.status, 'Wrong address', error.message);
      throw error;
    }
    if (named === undefined || named === client.tenant.name) return undefined;
    return refuse(
      400,
      'Wrong organisation',
      `This application belongs to another organisation than "${named}"; use the address the application gave you.`,
    );
  }
}

export const SignOnErrors = {
  requestGone: () =>
    new AppError(
      'auth.sign_in_expired',
      400,
      'The authorization this sign-in was for has expired or was finished already: start again from the application.',
    ),
};

const secondsUntil = (until: Date) => Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));

function lockedMessage(until: Date): string {
  const wait = minutes(until);
  return `Too many failed sign-in attempts for this account or from your network. Sign-in is paused; try again in ${wait} minute${wait === 1 ? '' : 's'}.`;
}
