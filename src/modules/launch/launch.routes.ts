import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { describedOnly, htmlPageResponse } from '../../platform/http/common-schemas.js';
import { type TenancyService, namedTenant } from '../tenancy/index.js';
import { clientAddress } from '../../platform/http/client-address.js';
import { LaunchErrors, type LaunchSessionService } from './launch-session.service.js';
import { launchErrorWording } from './launch.page.js';
import type { LaunchSignOn } from '../../kernel/launch-sign-on.port.js';

export interface LaunchRoutesOptions {
  launches: LaunchSessionService;
  tenancy: TenancyService;
  baseDomain: string;
  /** The single sign-on a link without `auth` starts: the port `launchSignOn` (identity's). */
  signOn: LaunchSignOn;
}

const LaunchQuery = Type.Object(
  {
    activityId: Type.Optional(Type.String({ description: 'The activity to launch (its IRI), registered with a launchUrl. Required.' })),
    auth: Type.Optional(
      Type.String({
        description:
          '`Basic ` and base64 of `username:password` of a learner credential (POST /api/auth/basic). Without it, the learner signs in at the tenant’s identity provider (docs/identity.md), when it has one.',
      }),
    ),
    connection: Type.Optional(
      Type.String({
        description:
          'Without `auth`: the single sign-on connection to sign in with (docs/identity.md); the tenant’s first by name when absent.',
      }),
    ),
  },
  { additionalProperties: true },
);

/**
 * `GET /api/activities/launch` (interface 4.2): opened in the learner's browser. The credential
 * comes in the query, so the auth hook leaves this route alone (`public`); every failure is an
 * HTML page in a learner's words (launch.page.ts, rendered by the app's error handler), never a
 * redirect, and its technical message goes to the log.
 */
export const launchRoutes: FastifyPluginAsyncTypebox<LaunchRoutesOptions> = async (app, { launches, tenancy, baseDomain, signOn }) => {
  app.get(
    '/api/activities/launch',
    {
      config: { public: true, errors: launchErrorWording },
      // Each GET starts a session and stores a statement: a HEAD (a link checker) must not.
      exposeHeadRoute: false,
      validatorCompiler: describedOnly,
      schema: {
        tags: ['activities'],
        operationId: 'GET:activities.launch',
        summary: 'Launch an activity in the browser: redirects to its content with the xAPI launch parameters',
        description:
          'docs/provisioning.md. Redirects (302) to the activity’s launchUrl with `endpoint`, `auth` (a launch token), `actor`, ' +
          '`registration` and `activity_id` added to its query.',
        security: [],
        querystring: LaunchQuery,
        response: {
          302: { description: 'To the content.' },
          400: htmlPageResponse('A required parameter is missing.'),
          401: htmlPageResponse('The credential is not valid, expired, was revoked or belongs to another tenant; or no tenant was named.'),
          404: htmlPageResponse('Unknown tenant or activity, or an activity without launchUrl.'),
          429: htmlPageResponse(
            'Too many failed sign-ins with this credential or from this address lately (Retry-After says when to retry).',
          ),
          502: htmlPageResponse(
            'Without `auth`: the tenant’s identity provider could not be reached (`identity.provider_unreachable`; the log says why).',
          ),
        },
      },
    },
    async (request, reply) => {
      const name = namedTenant(request, baseDomain);
      if (!name) {
        throw LaunchErrors.unauthorized(
          'no_tenant',
          `No organisation was named: open the launch link on the organisation’s address ({tenant}.${baseDomain}) or send the X-SVC-Tenant header.`,
        );
      }
      // The route's schema only describes the query (describedOnly): a parameter sent twice arrives as a list.
      const query = request.query as Record<string, unknown>;
      for (const parameter of ['activityId', 'auth', 'connection'])
        if (Array.isArray(query[parameter])) throw LaunchErrors.repeatedParameter(parameter);
      const tenant = await tenancy.require(name);
      // No credential: the learner signs in at the tenant's identity provider, when it has one.
      if (request.query.auth === undefined && typeof request.query.activityId === 'string') {
        if (await signOn.begin(request, reply, tenant, request.query.activityId)) return reply;
      }
      const launched = await launches.launch(
        tenant,
        request.query,
        request.publicBaseUrl,
        clientAddress(request.ip, request.socket?.remoteAddress),
      );
      return (
        reply
          .status(302)
          .header('Location', launched.location)
          .header('Cache-Control', 'no-store')
          // The launch link holds the learner's password: the content must not see it as a referrer.
          .header('Referrer-Policy', 'no-referrer')
          .send()
      );
    },
  );
};
