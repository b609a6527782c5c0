import { AppError } from '../../../platform/http/app-error.js';

/**
 * The SCIM endpoints' errors, `scim.<scimType>` with RFC 7644 §3.12's keyword, all 400. The
 * keyword is repeated in `details.scimType` so the SCIM routes can answer the RFC's error body
 * (`{schemas: [...:Error], scimType, detail, status}`) from the AppError alone: identity providers
 * read `scimType`, not our code.
 */
export type ScimType = 'invalidValue' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidFilter' | 'mutability';

const scimError =
  (scimType: ScimType) =>
  (detail: string, details: Record<string, unknown> = {}) =>
    new AppError(`scim.${scimType}`, 400, detail, { details: { scimType, ...details } });

export const ScimErrors = {
  /** A value missing, of the wrong type, or not storable (RFC 7644 §3.12). */
  invalidValue: scimError('invalidValue'),
  /** A request body the protocol cannot read: not an object, no `schemas`, an unknown `op`. */
  invalidSyntax: scimError('invalidSyntax'),
  /** A PATCH `path` that is malformed or names something a path cannot reach. */
  invalidPath: scimError('invalidPath'),
  /** A PATCH whose value filter matched nothing where something had to match, or a `remove` without a path. */
  noTarget: scimError('noTarget'),
  /** A `filter` query that is unparsable, too large, or names an attribute or operator the server does not filter on. */
  invalidFilter: scimError('invalidFilter'),
  /** An attempt to change an attribute the client may not change (`id`, `meta`). */
  mutability: scimError('mutability'),
};
