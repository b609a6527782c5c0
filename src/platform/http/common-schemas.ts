import { Type } from 'typebox';

const apiErrorFields = {
  code: Type.String({ description: 'Stable machine-readable code, `module.reason`.', examples: ['tenant.not_found'] }),
  message: Type.String({ description: 'What went wrong, for a person.' }),
  details: Type.Optional(Type.Object({}, { additionalProperties: true })),
};

/** The APIError shape every `/api/` error answers (error-handler.ts sends it). */
export const ApiError = Type.Object(apiErrorFields, {
  $id: 'ApiError',
  description: 'An error: a `code` (`module.reason`), a `message`, sometimes `details`.',
});

/** ApiError as the response of one status, `description` saying when it is answered. */
export const apiErrorResponse = (description: string) => Type.Object(apiErrorFields, { title: 'ApiError', description });

/** An HTML page as the response of one status (a page in a person's words: sign-in, launch), `description` saying when. */
export const htmlPageResponse = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });

/**
 * The operationId of a route in /openapi.json, `METHOD:area.action`: the path without its `/api/`
 * prefix and its `{parameters}`, segments joined by dots, `-` written `_`
 * (`POST /api/import/users` → `POST:import.users`, `PUT /xapi/activities/state` →
 * `PUT:xapi.activities.state`). A GET of `/api/` naming one item by a last `{parameter}` adds `.item`
 * (`GET /api/sso/connections/{name}` → `GET:sso.connections.item`), as `GET /api/actors/item` is
 * `GET:actors.item`: the list at the path without it keeps its id.
 */
export function operationIdOf(method: string, path: string): string {
  const all = path.replace(/^\/api\//, '/').split('/');
  const segments = all
    .filter((segment) => segment !== '' && !segment.startsWith('{') && !segment.startsWith(':'))
    .map((segment) => segment.replace(/^\./, '').replaceAll('-', '_'));
  const last = all[all.length - 1] ?? '';
  if (method.toUpperCase() === 'GET' && path.startsWith('/api/') && (last.startsWith('{') || last.startsWith(':'))) segments.push('item');
  return `${method.toUpperCase()}:${segments.join('.')}`;
}

/**
 * A route's `validatorCompiler` when its own rules check the request and name every problem
 * (the imports, row by row or entry by entry): the schemas stay on the route for the OpenAPI
 * description only. Ajv would stop at the first shape error and, with `coerceTypes`, turn
 * `"verify": "yes"` into a boolean or a numeric id into a string.
 */
export const describedOnly = () => () => true;
