import { Type } from 'typebox';

/** The interface's APIError (section 7): every `/api/` error answers this shape. */
export const ApiError = Type.Object(
  {
    code: Type.String({ description: 'Stable machine-readable code, `module.reason`.', examples: ['tenant.not_found'] }),
    message: Type.String({ description: 'What went wrong, for a person.' }),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'ApiError', description: 'An error (interface section 7, APIError).' },
);

/**
 * `limit` and `skip` of the API's lists (actors, import history): at most `limit` items, 1 to
 * 1,000 (default 100), after passing over `skip`. `what` names the items in the descriptions.
 */
export const PageQuery = (what: string) =>
  Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: `At most this many ${what} (1-1000, default 100).` })),
    skip: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: `${what[0].toUpperCase()}${what.slice(1)} to pass over.` })),
  });

/** The page a PageQuery asks for, defaults filled in. */
export const pageOf = (query: { limit?: number; skip?: number }) => ({ limit: query.limit ?? 100, skip: query.skip ?? 0 });

/**
 * A route's `validatorCompiler` when its own rules check the request and name every problem
 * (the imports, row by row or entry by entry): the schemas stay on the route for the OpenAPI
 * description only. Ajv would stop at the first shape error and, with `coerceTypes`, turn
 * `"verify": "yes"` into a boolean or a numeric id into a string.
 */
export const describedOnly = () => () => true;
