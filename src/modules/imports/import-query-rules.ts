import { badRequest } from '../../platform/http/app-error.js';

/**
 * `?verify=true|false`: an import checked only (a CSV body, or an organisation or jobs array, has no
 * field for it); undefined when absent. Any other value, a repeated parameter included, is
 * `400 imports.invalid_body` naming `verify`.
 */
export function verifyOfQuery(query: unknown): boolean | undefined {
  const sent = (query as Record<string, unknown> | undefined)?.verify;
  if (sent === undefined) return undefined;
  if (sent === 'true' || sent === 'false') return sent === 'true';
  throw badRequest('imports.invalid_body', 'The query parameter "verify" must be true or false.', { field: 'verify' });
}
