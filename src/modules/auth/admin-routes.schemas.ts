import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../platform/http/app-error.js';
import { apiErrorResponse } from '../../platform/http/common-schemas.js';
import { outOfScope, principalOf, type Principal } from '../../kernel/principal.js';

/**
 * What the routes that manage a tenant's credentials share (admins, API keys, OAuth clients here;
 * SCIM tokens, HR webhooks and single sign-on in the identity module): who may call them, and their
 * OpenAPI description.
 */

/**
 * The principal of the credential-management routes (API keys, OAuth clients): a signed-in admin
 * of the tenant, through an OAuth Bearer token. An API key may not mint or revoke keys (a leaked key
 * could otherwise outlive its own revocation), an actor credential or launch token even less: 403.
 * An admin limited to an organisation subtree is refused too (403 `auth.out_of_scope`): it could
 * otherwise mint a key of the whole tenant.
 */
export function adminPrincipalOf(request: FastifyRequest): Principal {
  const principal = principalOf(request);
  if (principal.kind !== 'admin') {
    throw new AppError(
      'auth.admin_required',
      403,
      'Only a signed-in admin (an OAuth Bearer token) may manage admins, API keys, OAuth clients, SCIM tokens and single sign-on.',
    );
  }
  if (principal.scope)
    throw outOfScope('This admin is limited to an organisation subtree; managing credentials needs an admin of the whole tenant.');
  return principal;
}

/** In /openapi.json: these routes take a Bearer token only. */
export const ADMIN_ONLY = [{ bearer: [] }];

/** The error responses every credential-management route declares. */
export const ADMIN_ERRORS = {
  400: apiErrorResponse('The request is malformed; `details` names the field.'),
  401: apiErrorResponse('No credential, or one that is not valid (or of another tenant than the one named).'),
  403: apiErrorResponse(
    'The credential is no admin Bearer token (`auth.admin_required`), or the admin is limited to an organisation subtree (`auth.out_of_scope`).',
  ),
};

export const SourceHeader = Type.Object(
  { 'svc-account-source': Type.Optional(Type.String({ description: 'Free text recorded with the change in the audit log.' })) },
  { additionalProperties: true },
);
