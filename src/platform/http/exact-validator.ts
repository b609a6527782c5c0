import type { FastifySchema } from 'fastify';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';

/** One error of Value.Errors (the type is not exported by name). */
type ValueError = ReturnType<typeof Value.Errors>[number];

/**
 * A route's `validatorCompiler` that checks each part of the request exactly as its schema says,
 * with TypeBox's Value: the app's Ajv coerces types (`""` passes as null, `7` as `"7"`, `"email"` as
 * `["email"]`), which would store what the client never sent. The errors keep Ajv's shape, so the
 * error handler names the field as for any schema failure.
 *
 * - `unchecked`: a part the route's own rules read and name every problem of (its schema stays on
 *   the route for /openapi.json only, as with common-schemas.ts `describedOnly`).
 * - `explain`: rewrites an error's message before it is answered.
 */
export const exactValidator =
  (options: { unchecked?: 'body'; explain?: (error: ValueError) => ValueError } = {}) =>
  ({ schema, httpPart }: { schema: FastifySchema; httpPart?: string }) =>
  (data: unknown) => {
    if (httpPart !== undefined && httpPart === options.unchecked) return true;
    if (Value.Check(schema as TSchema, data)) return true;
    const errors = [...Value.Errors(schema as TSchema, data)];
    return { error: options.explain === undefined ? errors : errors.map(options.explain) };
  };
