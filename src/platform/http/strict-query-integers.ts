import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { badRequest } from './app-error.js';

/** A decimal integer as a person writes one; 15 digits stay exact in a double. */
const DECIMAL_INTEGER = /^-?\d{1,15}$/;

/**
 * Ajv's type coercion turns a query string into a number with `+text`, so `limit=Infinity`,
 * `limit=0x10`, `limit=1e309`, `limit= 5` and `limit=5.0` would all pass as integers. Every route
 * whose querystring schema declares an integer property gets a check, before validation, that the
 * text sent is a plain decimal integer; the schema's own bounds are checked by Ajv afterwards.
 * Registered once on the root instance, before any route, so every module gets it.
 */
export function registerStrictQueryIntegers(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const names = integerProperties(route.schema?.querystring);
    if (names.length === 0) return;
    const check = async (request: FastifyRequest) => {
      const query = request.query as Record<string, unknown>;
      for (const name of names) {
        const sent = query[name];
        const texts = Array.isArray(sent) ? sent : sent === undefined ? [] : [sent];
        if (texts.some((text) => typeof text !== 'string' || !DECIMAL_INTEGER.test(text))) {
          throw badRequest('request.invalid', `Invalid request: querystring/${name} must be a decimal integer.`, {
            problems: [{ location: 'querystring', path: `/${name}`, message: 'must be a decimal integer' }],
          });
        }
      }
    };
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [check] : [...(Array.isArray(existing) ? existing : [existing]), check];
  });
}

function integerProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  if (!properties) return [];
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'integer' || (Array.isArray(property.type) && property.type.includes('integer')))
    .map(([name]) => name);
}
