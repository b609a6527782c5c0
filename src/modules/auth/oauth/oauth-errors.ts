import { AppError } from '../../../platform/http/app-error.js';

/**
 * The OAuth protocol errors of the token and revocation endpoints, one class per RFC 6749 §5.2
 * `error` value, after oidc-provider's `lib/helpers/errors.js`. Each is an AppError coded
 * `oauth.<error>`, which `error-handler.ts` renders as RFC 6749's `{error, error_description}`,
 * never cached, on the routes that answer so (`config: { errors: 'oauth' }`).
 */
export abstract class OAuthError extends AppError {
  constructor(
    readonly error: string,
    status: number,
    readonly description: string,
    headers?: Record<string, string>,
  ) {
    super(`oauth.${error}`, status, description, headers ? { headers } : {});
  }
}

/** A parameter is missing, repeated or malformed, or the body is not JSON or a form. */
export class InvalidRequest extends OAuthError {
  constructor(description: string) {
    super('invalid_request', 400, description);
  }
}

/**
 * Client authentication failed (RFC 6749 §5.2): 401. The Basic challenge goes with it when the
 * client tried HTTP Basic (RFC 6749) or sent no credential at all (RFC 9110 §15.5.2); a client
 * that authenticated in the body gets the JSON error alone, which libraries such as openid-client
 * then show as it is.
 */
export class InvalidClient extends OAuthError {
  constructor(description: string, challenge: boolean) {
    super('invalid_client', 401, description, challenge ? { 'WWW-Authenticate': 'Basic realm="learnbase", charset="UTF-8"' } : {});
  }
}

/** The code or refresh token is invalid, expired, revoked, used, or bound to something else. */
export class InvalidGrant extends OAuthError {
  constructor(description: string) {
    super('invalid_grant', 400, description);
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor(grantType: string) {
    super('unsupported_grant_type', 400, `The grant_type "${grantType}" is not supported; use authorization_code or refresh_token.`);
  }
}

/** RFC 7009 §2.2.1. */
export class UnsupportedTokenType extends OAuthError {
  constructor(hint: string) {
    super('unsupported_token_type', 400, `Tokens of type "${hint}" cannot be revoked here.`);
  }
}
