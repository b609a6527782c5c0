import type { Principal } from '../../../kernel/principal.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { apiErrorResponse } from '../../../platform/http/common-schemas.js';
import { recordAudit, sourceOfHeader } from '../../audit/index.js';
import { ADMIN_ERRORS, ADMIN_ONLY, adminPrincipalOf, SourceHeader } from '../../auth/index.js';
import type { TenancyService } from '../../tenancy/index.js';
import {
  hrWebhookPath,
  issueHrWebhook,
  listHrWebhookMessages,
  listHrWebhooks,
  receiveHrMessage,
  revokeHrWebhook,
  type HrMessageApplier,
  type HrWebhookListing,
} from './hr-webhook.service.js';

export interface HrWebhookRoutesOptions {
  sql: SqlClient;
  /** Seals a new endpoint's signing secret and opens a stored one (stored-secret.service.ts). */
  secrets: SecretBox;
  applier: HrMessageApplier;
  tenancy: Pick<TenancyService, 'findById'>;
  baseDomain: string;
}

/** The largest message an HR system may post: a batch of 1,000 people with their attributes. */
const MESSAGE_LIMIT_BYTES = 4 * 1024 * 1024;

const HrWebhookBody = Type.Object({
  id: Type.String({ description: 'The endpoint id.', examples: ['hrw_6a00d2262b384415becfe4092ff24f32_08fd9fefab790beb'] }),
  url: Type.String({ description: 'Where the HR system posts (the public URL and /hooks/hr/{id}).' }),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was revoked; null while it works.' }),
});

const listing = (base: string, webhook: HrWebhookListing) => ({
  id: webhook.id,
  url: `${base}${hrWebhookPath(webhook.id)}`,
  createdAt: webhook.createdAt.toISOString(),
  revokedAt: webhook.revokedAt?.toISOString() ?? null,
});

/**
 * `GET/POST /api/hr-webhooks`, `DELETE /api/hr-webhooks/{id}`, `GET /api/hr-webhooks/messages`: a
 * tenant's admins manage its HR systems' endpoints and see what their messages did.
 */
export const hrWebhookRoutes: FastifyPluginAsyncTypebox<Pick<HrWebhookRoutesOptions, 'sql' | 'secrets'>> = async (
  app,
  { sql, secrets },
) => {
  app.get(
    '/api/hr-webhooks',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'GET:hr_webhooks',
        summary: "List the tenant's HR webhook endpoints, revoked ones included (never a secret)",
        response: { 200: Type.Array(HrWebhookBody), ...ADMIN_ERRORS },
      },
    },
    async (request) => {
      const { tenant } = adminPrincipalOf(request);
      return (await listHrWebhooks(sql, tenant)).map((webhook) => listing(request.publicBaseUrl, webhook));
    },
  );

  app.post(
    '/api/hr-webhooks',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'POST:hr_webhooks',
        summary: 'Create an HR webhook endpoint; its signing secret is answered only this once',
        headers: SourceHeader,
        response: {
          201: Type.Object({
            ...HrWebhookBody.properties,
            secret: Type.String({ description: 'The Standard Webhooks signing secret, `whsec_…`.' }),
          }),
          ...ADMIN_ERRORS,
          503: apiErrorResponse(
            'The server has no key to encrypt the signing secret with (`secrets.no_key`): its operator sets LEARNBASE_SECRETS_KEY.',
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      const issued = await sql.transaction(async (tx) => {
        const created = await issueHrWebhook(tx, secrets, principal.tenant);
        await recordAudit(tx, { action: 'hr_webhook.created', principal, source, details: { id: created.id } });
        return created;
      });
      return reply.status(201).send({ ...listing(request.publicBaseUrl, issued), secret: issued.secret });
    },
  );

  app.delete(
    '/api/hr-webhooks/:id',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'DELETE:hr_webhooks',
        summary: 'Revoke an HR webhook endpoint: its next message is refused (those stored are still applied)',
        headers: SourceHeader,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'The endpoint id (`hrw_…`).' }) }),
        response: {
          204: Type.Null({ description: 'Revoked (or already was).' }),
          ...ADMIN_ERRORS,
          404: apiErrorResponse('The tenant has no HR webhook with this id (`identity.hr_webhook_not_found`).'),
        },
      },
    },
    async (request, reply) => {
      const principal = adminPrincipalOf(request);
      const source = sourceOfHeader(request.headers['svc-account-source']);
      await sql.transaction(async (tx) => {
        await revokeHrWebhook(tx, principal.tenant, request.params.id);
        await recordAudit(tx, { action: 'hr_webhook.revoked', principal, source, details: { id: request.params.id } });
      });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/hr-webhooks/messages',
    {
      schema: {
        tags: ['identity'],
        security: ADMIN_ONLY,
        operationId: 'GET:hr_webhooks.messages',
        summary: "The tenant's latest HR webhook messages, newest first: waiting, or what each event did",
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) }),
        response: {
          200: Type.Array(
            Type.Object({
              webhookId: Type.String(),
              messageId: Type.String({ description: 'The `webhook-id` the HR system sent.' }),
              receivedAt: Type.String({ format: 'date-time' }),
              appliedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
                description: 'null while it waits or is being applied, in pieces of 100 events (`result.events`: those applied so far).',
              }),
              result: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
                description:
                  '`events`: per event, its `type`, `outcome` (created, updated, deactivated, unknown_person, refused), `actorId`, `error`.',
              }),
            }),
          ),
          ...ADMIN_ERRORS,
        },
      },
    },
    async (request) => {
      const { tenant } = adminPrincipalOf(request);
      const messages = await listHrWebhookMessages(sql, tenant, request.query.limit ?? 100);
      return messages.map((message) => ({
        webhookId: message.webhookId,
        messageId: message.messageId,
        receivedAt: message.receivedAt.toISOString(),
        appliedAt: message.appliedAt?.toISOString() ?? null,
        result: (message.result as Record<string, unknown> | undefined) ?? null,
      }));
    },
  );
};

/**
 * `POST /hooks/hr/{id}`, where an HR system posts (docs/identity.md, "HR webhooks"), in a plugin of
 * its own: the signature is over the bytes sent, so the body is read as bytes and parsed after the
 * check, whatever its content type.
 */
export const hrWebhookInbox: FastifyPluginAsyncTypebox<HrWebhookRoutesOptions> = async (app, { sql, applier }) => {
  // The signature is over the bytes sent: the body is read as bytes, and parsed after the check.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MESSAGE_LIMIT_BYTES }, (_request, body, done) => done(null, body));
  app.post(
    '/hooks/hr/:id',
    {
      schema: {
        tags: ['identity'],
        operationId: 'POST:hooks.hr',
        summary: 'An HR system posts joiners, movers and leavers here, signed as Standard Webhooks says',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
        headers: Type.Object(
          {
            'webhook-id': Type.Optional(Type.String()),
            'webhook-timestamp': Type.Optional(Type.String()),
            'webhook-signature': Type.Optional(Type.String()),
          },
          { additionalProperties: true },
        ),
        response: {
          202: Type.Object({ id: Type.String(), status: Type.Literal('accepted') }, { description: 'Stored; applied shortly after.' }),
          200: Type.Object(
            { id: Type.String(), status: Type.Literal('duplicate') },
            { description: 'This message id was received before: nothing changes.' },
          ),
          400: apiErrorResponse(
            'The message is no JSON, or its events break the rules (`identity.invalid_event`, every problem named); a Host that names no tenant.',
          ),
          401: apiErrorResponse(
            'No such endpoint (or revoked), a bad signature, a timestamp more than five minutes away, ' +
              'or another tenant named by X-SVC-Tenant or the sub-domain (`auth.unauthorized`, as SCIM answers it).',
          ),
          413: apiErrorResponse('The message is larger than 4 MiB.'),
        },
      },
    },
    async (request, reply) => {
      // Verified by auth's hook (hr-webhook-scheme.ts): the principal is the webhook's.
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { messageId, accepted } = await receiveHrMessage(sql, request.principal as Principal, body, request.headers);
      if (accepted) applier.kick();
      return accepted
        ? reply.status(202).send({ id: messageId, status: 'accepted' })
        : reply.status(200).send({ id: messageId, status: 'duplicate' });
    },
  );
};
