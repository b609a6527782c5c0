import { hrWebhookPath, issueHrWebhook, listHrWebhooks, revokeHrWebhook } from '../modules/identity/index.js';
import { type CommandContext, minute, none, one, say, table, tenantNamed, unknownVerb } from './command.js';

const VERBS = ['create', 'list', 'revoke'] as const;

/** `learnbase hr-webhook create|list --tenant NAME` and `hr-webhook revoke --tenant NAME ID` (docs/identity.md, "HR webhooks"). */
export async function hrWebhookCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  switch (verb) {
    case 'create': {
      none(operands, 'hr-webhook create --tenant NAME');
      const tenant = await tenantNamed(context, 'hr-webhook create');
      const issued = await issueHrWebhook(context.db, await context.secrets(), tenant);
      say(
        context,
        { id: issued.id, path: issued.path, secret: issued.secret, createdAt: issued.createdAt.toISOString() },
        `id:     ${issued.id}\npath:   ${issued.path} (after the server's public URL)\nsecret: ${issued.secret}\n(the secret is shown only this once)`,
      );
      return 0;
    }
    case 'list': {
      none(operands, 'hr-webhook list --tenant NAME');
      const tenant = await tenantNamed(context, 'hr-webhook list');
      const webhooks = await listHrWebhooks(context.db, tenant);
      say(
        context,
        {
          hrWebhooks: webhooks.map((webhook) => ({
            id: webhook.id,
            path: hrWebhookPath(webhook.id),
            createdAt: webhook.createdAt.toISOString(),
            revokedAt: webhook.revokedAt?.toISOString() ?? null,
          })),
        },
        table(
          ['ID', 'CREATED', 'REVOKED'],
          webhooks.map((webhook) => [webhook.id, minute(webhook.createdAt), webhook.revokedAt ? minute(webhook.revokedAt) : '-']),
          `Tenant "${tenant.name}" has no HR webhooks.`,
        ),
      );
      return 0;
    }
    case 'revoke': {
      const id = one(operands, 'hr-webhook revoke --tenant NAME ID');
      const tenant = await tenantNamed(context, 'hr-webhook revoke');
      const revoked = await revokeHrWebhook(context.db, tenant, id);
      say(context, { id: revoked.id, revokedAt: revoked.revokedAt?.toISOString() }, `Revoked HR webhook ${revoked.id}.`);
      return 0;
    }
    default:
      throw unknownVerb('hr-webhook', verb, VERBS, 'hr-webhook create --tenant NAME');
  }
}
