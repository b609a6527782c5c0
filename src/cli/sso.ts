import { connectionView, listConnections, putConnection, removeConnection } from '../modules/identity/sso.service.js';
import { type CommandContext, minute, none, say, table, tenantNamed, unknownVerb, UsageError } from './command.js';

const VERBS = ['set', 'list', 'delete'] as const;
const SET_USAGE =
  'sso set --tenant NAME --name CONNECTION --issuer URL --client-id ID [--client-secret S] [--scopes "openid …"] [--claim CLAIM=ATTRIBUTE …]';

/**
 * `learnbase sso set|list|delete --tenant NAME …`: a tenant's single sign-on connections (docs/identity.md,
 * "Single sign-on"), as an admin sets them with PUT /api/sso/connections/{name}. The server's public
 * URL is what its callback (the redirect URI to register at the provider) is below: the command
 * prints the path.
 */
export async function ssoCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  const { values } = context;
  switch (verb) {
    case 'set': {
      none(operands, SET_USAGE);
      if (!values.name) throw new UsageError(`Expected: learnbase ${SET_USAGE}`);
      const tenant = await tenantNamed(context, 'sso set');
      const claims = values.claim === undefined ? undefined : Object.fromEntries(values.claim.map(claimPair));
      const { connection, created } = await putConnection(context.db, tenant, values.name, {
        issuer: values.issuer,
        clientId: values['client-id'],
        ...(values['client-secret'] === undefined ? {} : { clientSecret: values['client-secret'] }),
        ...(values.scopes === undefined ? {} : { scopes: values.scopes }),
        ...(claims === undefined ? {} : { claims }),
      });
      const view = connectionView(connection, '');
      say(
        context,
        { ...view, created },
        `${created ? 'Created' : 'Replaced'} connection ${view.name} (${view.issuer}); redirect URI: <public URL>${view.redirectUri}`,
      );
      return 0;
    }
    case 'list': {
      none(operands, 'sso list --tenant NAME');
      const tenant = await tenantNamed(context, 'sso list');
      const connections = (await listConnections(context.db, tenant)).map((connection) => connectionView(connection, ''));
      say(
        context,
        { connections },
        table(
          ['NAME', 'ISSUER', 'CLIENT ID', 'UPDATED'],
          connections.map((connection) => [
            connection.name,
            connection.issuer,
            connection.clientId,
            minute(new Date(connection.updatedAt)),
          ]),
          `Tenant "${tenant.name}" has no single sign-on connections.`,
        ),
      );
      return 0;
    }
    case 'delete': {
      none(operands, 'sso delete --tenant NAME --name CONNECTION');
      if (!values.name) throw new UsageError('Expected: learnbase sso delete --tenant NAME --name CONNECTION');
      const tenant = await tenantNamed(context, 'sso delete');
      await removeConnection(context.db, tenant, values.name);
      say(context, { deleted: values.name }, `Deleted connection ${values.name}.`);
      return 0;
    }
    default:
      throw unknownVerb('sso', verb, VERBS, SET_USAGE);
  }
}

/** `claim=attribute`, split at its first `=`. */
function claimPair(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at < 1 || at === text.length - 1) throw new UsageError(`--claim takes CLAIM=ATTRIBUTE, not "${text}".`);
  return [text.slice(0, at), text.slice(at + 1)];
}
