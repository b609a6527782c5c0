import { type AuthServices, issueApiKey } from '../modules/auth/index.js';
import { withModules, type CommandContext, minute, none, one, say, scopeNamed, table, tenantNamed, unknownVerb } from './command.js';

const VERBS = ['create', 'list', 'revoke'] as const;

/** `learnbase apikey create|list --tenant NAME [--scope ENTRY_ID]` and `apikey revoke --tenant NAME KEY`. */
export async function apikeyCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  switch (verb) {
    case 'create': {
      none(operands, 'apikey create --tenant NAME [--scope ENTRY_ID]');
      const tenant = await tenantNamed(context, 'apikey create');
      const scope = await scopeNamed(context, tenant);
      const issued = await issueApiKey(context.db, tenant, scope);
      const limited = scope === undefined ? '' : `scope:  ${scope} (and every entry below it)\n`;
      say(context, issued, `key:    ${issued.key}\nsecret: ${issued.secret}\n${limited}(the secret is shown only this once)`);
      return 0;
    }
    case 'list': {
      none(operands, 'apikey list --tenant NAME');
      const tenant = await tenantNamed(context, 'apikey list');
      const keys = await withModules(context, (modules) => modules.services<AuthServices>('auth').apiKeys.list(tenant));
      say(
        context,
        {
          apiKeys: keys.map((key) => ({
            key: key.key,
            createdAt: key.createdAt.toISOString(),
            lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
            revokedAt: key.revokedAt?.toISOString() ?? null,
            scope: key.scope ?? null,
          })),
        },
        table(
          ['KEY', 'CREATED', 'LAST USED', 'REVOKED', 'SCOPE'],
          keys.map((key) => [
            key.key,
            minute(key.createdAt),
            key.lastUsedAt ? minute(key.lastUsedAt) : 'never',
            key.revokedAt ? minute(key.revokedAt) : '-',
            key.scope ?? 'whole tenant',
          ]),
          `Tenant "${tenant.name}" has no API keys.`,
        ),
      );
      return 0;
    }
    case 'revoke': {
      const key = one(operands, 'apikey revoke --tenant NAME KEY');
      const tenant = await tenantNamed(context, 'apikey revoke');
      // Every running server refuses the key within a second: it hears of the revocation.
      const revoked = await withModules(context, (modules) => modules.services<AuthServices>('auth').apiKeys.revoke(tenant, key));
      say(context, { key: revoked.key, revokedAt: revoked.revokedAt?.toISOString() }, `Revoked API key ${revoked.key}.`);
      return 0;
    }
    default:
      throw unknownVerb('apikey', verb, VERBS, 'apikey create --tenant NAME [--scope ENTRY_ID]');
  }
}
