import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * The request validators and response serializers every app of the process shares. Fastify
 * compiles each route's schemas when an app starts (about half a second for this API's routes);
 * by default each app has compilers of its own, so a process that builds several apps (the test
 * files build one per backend and suite) compiles the same schemas again for each. Here one Ajv
 * serves the apps whose options and shared schemas are the same (its own cache keys compiled
 * schemas by their object), and a serializer is kept per schema object the same way. A server
 * builds one app: for it nothing changes.
 *
 * Giving Fastify a validator compiler of one's own turns off one of its adjustments: it no longer
 * lower-cases the property names of a `headers` schema (it leaves a custom compiler's schemas
 * alone). Request headers arrive in lower case, so such a schema must name them so; the compiler
 * refuses one that does not, when the app starts.
 */
const validators = AjvCompiler();
const serializerFactory = SerializerSelector();

/** What Fastify gives a compiler for each part of a route (the packages' own types say less). */
interface RouteSchema {
  schema: unknown;
  method: string;
  url: string;
  httpPart?: string;
}
type Compile<T> = (route: RouteSchema) => T;
type Serializer = (doc: unknown) => string;

const buildValidator = (externalSchemas: Record<string, unknown>, options: unknown): Compile<unknown> => {
  const compile = (validators as unknown as (schemas: unknown, options: unknown) => Compile<unknown>)(externalSchemas, options);
  return (route) => {
    if (route.httpPart === 'headers') assertLowerCaseHeaders(route.schema, `${route.method} ${route.url}`);
    return compile(route);
  };
};

function assertLowerCaseHeaders(schema: unknown, route: string): void {
  const properties = (schema as { properties?: Record<string, unknown> } | null)?.properties ?? {};
  const named = [...Object.keys(properties), ...((schema as { required?: string[] } | null)?.required ?? [])];
  const upper = named.find((name) => name !== name.toLowerCase());
  if (upper !== undefined) throw new Error(`${route}: its headers schema must name "${upper}" in lower case, as requests carry it`);
}

/** Serializers by schema object, then by the options and shared schemas they were made with. */
const serializers = new WeakMap<object, Map<string, Serializer>>();

const buildSerializer = (externalSchemas: Record<string, unknown>, options: unknown): Compile<Serializer> => {
  const make = (serializerFactory as unknown as (schemas: unknown, options: unknown) => Compile<Serializer>)(externalSchemas, options);
  const key = JSON.stringify([externalSchemas, options]);
  return (route) => {
    const { schema } = route;
    if (schema === null || typeof schema !== 'object') return make(route);
    let byOptions = serializers.get(schema);
    if (!byOptions) serializers.set(schema, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = make(route)));
    return found;
  };
};

/** Fastify's `schemaController` option (its types describe the compilers' factories less closely than RouteSchema). */
export const sharedCompilers = { compilersFactory: { buildValidator, buildSerializer } } as unknown as NonNullable<
  FastifyServerOptions['schemaController']
>;
