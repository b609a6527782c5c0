import { issueScimToken, listScimTokens, revokeScimToken } from '../modules/identity/index.js';
import { type CommandContext, minute, none, one, say, table, tenantNamed, unknownVerb } from './command.js';

const VERBS = ['create', 'list', 'revoke'] as const;

/** `learnbase scim-token create|list --tenant NAME` and `scim-token revoke --tenant NAME ID` (docs/identity.md). */
export async function scimTokenCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  switch (verb) {
    case 'create': {
      none(operands, 'scim-token create --tenant NAME');
      const tenant = await tenantNamed(context, 'scim-token create');
      const issued = await issueScimToken(context.db, tenant);
      say(
        context,
        { id: issued.id, token: issued.token, createdAt: issued.createdAt.toISOString() },
        `id:    ${issued.id}\ntoken: ${issued.token}\n(the token is shown only this once)`,
      );
      return 0;
    }
    case 'list': {
      none(operands, 'scim-token list --tenant NAME');
      const tenant = await tenantNamed(context, 'scim-token list');
      const tokens = await listScimTokens(context.db, tenant);
      say(
        context,
        {
          scimTokens: tokens.map((token) => ({
            id: token.id,
            createdAt: token.createdAt.toISOString(),
            revokedAt: token.revokedAt?.toISOString() ?? null,
          })),
        },
        table(
          ['ID', 'CREATED', 'REVOKED'],
          tokens.map((token) => [token.id, minute(token.createdAt), token.revokedAt ? minute(token.revokedAt) : '-']),
          `Tenant "${tenant.name}" has no SCIM tokens.`,
        ),
      );
      return 0;
    }
    case 'revoke': {
      const id = one(operands, 'scim-token revoke --tenant NAME ID');
      const tenant = await tenantNamed(context, 'scim-token revoke');
      // The token is read on every request: the next one with it is refused, in every server.
      const revoked = await revokeScimToken(context.db, tenant, id);
      say(context, { id: revoked.id, revokedAt: revoked.revokedAt?.toISOString() }, `Revoked SCIM token ${revoked.id}.`);
      return 0;
    }
    default:
      throw unknownVerb('scim-token', verb, VERBS, 'scim-token create --tenant NAME');
  }
}
