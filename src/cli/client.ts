import { type AuthServices, createClient, deleteClient, listClients, rotateClientSecret } from '../modules/auth/index.js';
import { withModules, type CommandContext, minute, none, one, say, table, tenantNamed, unknownVerb, UsageError } from './command.js';

const VERBS = ['create', 'list', 'delete', 'rotate-secret'] as const;

/**
 * `learnbase client create --tenant NAME --redirect-uri URI [--name N]`, `client list --tenant NAME`,
 * `client delete --tenant NAME ID` and `client rotate-secret --tenant NAME ID`: the OAuth clients.
 */
export async function clientCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  const { db, values } = context;
  switch (verb) {
    case 'create': {
      none(operands, 'client create --tenant NAME --redirect-uri URI [--name N]');
      if (!values.tenant || !values['redirect-uri']?.length) {
        throw new UsageError('client create needs --tenant NAME and at least one --redirect-uri URI.');
      }
      const tenant = await tenantNamed(context, 'client create');
      const issued = await createClient(db, tenant, values['redirect-uri'], values.name);
      say(context, issued, `clientId:     ${issued.clientId}\nclientSecret: ${issued.clientSecret}\n(the secret is shown only this once)`);
      return 0;
    }
    case 'list': {
      none(operands, 'client list --tenant NAME');
      const tenant = await tenantNamed(context, 'client list');
      const clients = await listClients(db, tenant);
      say(
        context,
        { clients: clients.map((client) => ({ ...client, createdAt: client.createdAt.toISOString() })) },
        table(
          ['CLIENT ID', 'NAME', 'CREATED', 'REDIRECT URIS'],
          clients.map((client) => [client.clientId, client.name, minute(client.createdAt), client.redirectUris.join(' ')]),
          `Tenant "${tenant.name}" has no OAuth clients.`,
        ),
      );
      return 0;
    }
    case 'delete': {
      const clientId = one(operands, 'client delete --tenant NAME ID');
      const tenant = await tenantNamed(context, 'client delete');
      // The running servers hear that the client's tokens are revoked.
      await withModules(context, (modules) => deleteClient(db, modules.services<AuthServices>('auth').tokens, tenant, clientId));
      say(context, { clientId, deleted: true }, `Deleted OAuth client ${clientId}; the tokens issued to it no longer work.`);
      return 0;
    }
    case 'rotate-secret': {
      const clientId = one(operands, 'client rotate-secret --tenant NAME ID');
      const tenant = await tenantNamed(context, 'client rotate-secret');
      const issued = await rotateClientSecret(db, tenant, clientId);
      say(
        context,
        issued,
        `clientId:     ${issued.clientId}\nclientSecret: ${issued.clientSecret}\n(the secret is shown only this once; the old one no longer works)`,
      );
      return 0;
    }
    default:
      throw unknownVerb('client', verb, VERBS, 'client create --tenant NAME --redirect-uri URI [--name N]');
  }
}
