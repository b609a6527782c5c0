import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import cors from '@fastify/cors';
import { AppError } from '../../platform/http/app-error.js';
import { alternateRequestSyntax } from './alternate-request-syntax.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The xAPI version the request speaks: its rules decide where 1.0.3 and 2.0.0 differ. */
    xapiVersion: '1.0.3' | '2.0.0';
    /** A route that checks its parameters first (`parametersFirst`): the version header's problem, for `assertXapiVersion`. */
    xapiVersionProblem: AppError | null;
  }
  interface FastifyContextConfig {
    /**
     * The route answers its own missing parameters before a missing or unsupported version
     * header, and calls `assertXapiVersion` once they are there (the document resources: the
     * interface's section-7 validation error comes first).
     */
    parametersFirst?: boolean;
    /** The route's own CORS options, which @fastify/cors merges over its global ones (false: none). */
    cors?: false | Readonly<Record<string, unknown>>;
  }
}

/** Whether `/xapi/` requires the version header (xAPI 2.0 Part 3 §1.3) or serves its absence at the default version. */
export type XapiVersionHeader = 'required' | 'optional';

/** The versions this LRS speaks, newest last, as `GET /xapi/about` lists them. */
export const XAPI_VERSIONS = ['1.0.3', '2.0.0'] as const;

const EXPOSED = 'ETag, Last-Modified, X-Experience-API-Consistent-Through, X-Experience-API-Version, Content-Type';

/** CORS for `/xapi/`: any origin, the headers xAPI clients send and read. Built once: every request uses it. */
const XAPI_CORS = Object.freeze({
  origin: '*',
  methods: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'X-Experience-API-Version', 'X-SVC-Tenant'],
  exposedHeaders: EXPOSED,
  maxAge: 86_400,
});
const NO_CORS = Object.freeze({ origin: false as const });

const isXapi = (url: string) => url === '/xapi' || url.startsWith('/xapi/') || url.startsWith('/xapi?');

/**
 * What every `/xapi/` request shares: CORS for content running in a browser on another
 * origin, the required `X-Experience-API-Version` header (xAPI 2.0 Part 3 §1.3), and that
 * header on every response, errors included. Registered before authentication, so even a
 * 401 carries the header.
 */
export const xapiPlugin = fp<{ defaultVersion?: '1.0.3' | '2.0.0'; versionHeader?: XapiVersionHeader }>(
  async (app, { defaultVersion = '2.0.0', versionHeader = 'required' }) => {
    // No CORS but where a route's own options give it: every /xapi/ route gets XAPI_CORS (onRoute),
    // and /xapi/ preflights a route of their own. Options fixed per route are merged as they are;
    // a delegator choosing them per request had them normalised again for every request.
    await app.register(cors, { hook: 'onRequest', ...NO_CORS });
    app.addHook('onRoute', (route) => {
      if (isXapi(route.url)) route.config = { ...route.config, cors: XAPI_CORS };
    });
    for (const url of ['/xapi', '/xapi/*']) {
      // The CORS hook answers the preflight before the handler; what it leaves (no preflight) is not found.
      app.options(url, { config: { public: true }, schema: { hide: true } }, (_request, reply) => reply.callNotFound());
    }

    app.decorateRequest('xapiVersion', defaultVersion);
    app.decorateRequest('xapiVersionProblem', null);
    // Before the version check: a 1.0.3 alternate request may carry its version in the form.
    await app.register(alternateRequestSyntax, { defaultVersion, versionOf: supportedVersion });

    app.addHook('onRequest', async (request, reply) => {
      if (!isXapi(request.url)) return;
      // No route, no route options: what the CORS hook adds to a route's answers, for browser content to read the 404.
      if (request.is404) reply.header('Access-Control-Allow-Origin', '*').header('Access-Control-Expose-Headers', EXPOSED);
      const sent = request.headers['x-experience-api-version'];
      const version = typeof sent === 'string' ? supportedVersion(sent.trim()) : undefined;
      if (version) request.xapiVersion = version;
      reply.header('X-Experience-API-Version', request.xapiVersion);
      if (request.method === 'OPTIONS' || request.routeOptions.config.public) return;
      const problem = versionProblem(sent, version, versionHeader);
      if (problem && request.routeOptions.config.parametersFirst) request.xapiVersionProblem = problem;
      else if (problem) throw problem;
    });

    app.get(
      '/xapi/about',
      {
        config: { public: true },
        schema: {
          tags: ['xapi'],
          operationId: 'GET:xapi.about',
          summary: 'The xAPI versions this LRS speaks',
          response: {
            200: {
              type: 'object',
              properties: { version: { type: 'array', items: { type: 'string' } }, extensions: { type: 'object' } },
              required: ['version'],
            },
          },
        },
      },
      async () => ({ version: [...XAPI_VERSIONS], extensions: {} }),
    );
  },
  { name: 'xapi' },
);

/** What is wrong with the version header as sent, if anything. */
function versionProblem(
  sent: string | string[] | undefined,
  version: string | undefined,
  versionHeader: XapiVersionHeader,
): AppError | undefined {
  if (sent === undefined) {
    return versionHeader === 'optional'
      ? undefined
      : new AppError('xapi.version_missing', 400, 'The X-Experience-API-Version header is required (1.0.3 or 2.0.0).');
  }
  if (version) return undefined;
  return new AppError(
    'xapi.version_unsupported',
    400,
    `X-Experience-API-Version "${String(sent)}" is not supported; this LRS speaks ${XAPI_VERSIONS.join(' and ')}.`,
  );
}

/** For a `parametersFirst` route, once its parameters are checked: the version header's problem, thrown. */
export function assertXapiVersion(request: FastifyRequest): void {
  if (request.xapiVersionProblem) throw request.xapiVersionProblem;
}

function supportedVersion(sent: string): '1.0.3' | '2.0.0' | undefined {
  if (/^1\.0(\.\d+)?$/.test(sent)) return '1.0.3';
  if (/^2\.0(\.\d+)?$/.test(sent)) return '2.0.0';
  return undefined;
}
