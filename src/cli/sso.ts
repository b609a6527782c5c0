import { type AuthServices, operatorPrincipal } from '../modules/auth/index.js';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import type { Principal } from '../kernel/principal.js';
import {
  clientSecretChangeOf,
  connectionOfBody,
  connectionView,
  listConnections,
  putConnection,
  refreshConnection,
  removeConnection,
} from '../modules/identity/index.js';
import {
  withModules,
  type CommandContext,
  commandOutbound,
  minute,
  none,
  say,
  table,
  tenantNamed,
  unknownVerb,
  UsageError,
} from './command.js';

const VERBS = ['set', 'list', 'refresh', 'delete'] as const;
const SET_USAGE =
  'sso set --tenant NAME --name CONNECTION [--display-name TEXT] (--issuer URL --client-id ID [--client-secret S | --remove-client-secret] [--scopes "openid …"] | --metadata-url URL | --metadata-file FILE [--sp-entity-id ID] [--allow-sha1]) [--claim CLAIM=ATTRIBUTE …] [--admins CLAIM=VALUE] [--email-trust unless-unverified|verified-only]';

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
      const body = await connectionOfFlags(values);
      const input = await connectionOfBody(commandOutbound(context), tenant, values.name, body);
      // As the API's PUT: no --client-secret keeps a stored one, --remove-client-secret makes a public client.
      const write = { secret: clientSecretChangeOf(body) };
      const secrets = await context.secrets();
      const by = { principal: operatorOf(tenant) };
      // A replacement that changes who it makes admins revokes their tokens; the running servers hear of it.
      const { connection, created } = await withModules(context, async (modules) => {
        const written = await context.db.transaction((tx) => putConnection(tx, secrets, tenant, values.name!, input, by, write));
        await modules.services<AuthServices>('auth').tokens.announce(written.revoked);
        return written;
      });
      const view = connectionView(connection, tenant, '');
      say(
        context,
        { ...view, created },
        'acsUrl' in view
          ? `${created ? 'Created' : 'Replaced'} SAML connection ${view.name} (${view.idpEntityId}); entity ID: ${view.spEntityId}; ACS URL: <public URL>${view.acsUrl}`
          : `${created ? 'Created' : 'Replaced'} connection ${view.name} (${view.issuer}); redirect URI: <public URL>${view.redirectUri}`,
      );
      return 0;
    }
    case 'list': {
      none(operands, 'sso list --tenant NAME');
      const tenant = await tenantNamed(context, 'sso list');
      const connections = (await listConnections(context.db, tenant)).map((connection) => connectionView(connection, tenant, ''));
      say(
        context,
        { connections },
        table(
          ['NAME', 'PROTOCOL', 'PROVIDER', 'CLIENT OR ENTITY ID', 'ADMINS', 'UPDATED'],
          connections.map((connection) => [
            connection.name,
            connection.protocol,
            'issuer' in connection ? connection.issuer : connection.idpEntityId,
            'clientId' in connection ? connection.clientId : connection.spEntityId,
            adminsText(connection.admins),
            minute(new Date(connection.updatedAt)),
          ]),
          `Tenant "${tenant.name}" has no single sign-on connections.`,
        ),
      );
      return 0;
    }
    case 'refresh': {
      none(operands, 'sso refresh --tenant NAME --name CONNECTION');
      if (!values.name) throw new UsageError('Expected: learnbase sso refresh --tenant NAME --name CONNECTION');
      const tenant = await tenantNamed(context, 'sso refresh');
      const { connection, changed } = await refreshConnection(
        context.db,
        commandOutbound(context),
        operatorOf(tenant),
        values.name,
        undefined,
      );
      const view = connectionView(connection, tenant, '');
      say(
        context,
        { connection: view, changed },
        changed.length === 0
          ? `Read the metadata of ${values.name} again: nothing changed.`
          : `Read the metadata of ${values.name} again: changed ${changed.join(' and ')} (${'certificates' in view ? view.certificates : 0} certificates).`,
      );
      return 0;
    }
    case 'delete': {
      none(operands, 'sso delete --tenant NAME --name CONNECTION');
      if (!values.name) throw new UsageError('Expected: learnbase sso delete --tenant NAME --name CONNECTION');
      const tenant = await tenantNamed(context, 'sso delete');
      // The admins it made go with it; the running servers hear that their tokens are revoked.
      const ended = await withModules(context, async (modules) => {
        const revoked = await context.db.transaction((tx) => removeConnection(tx, tenant, values.name!, { principal: operatorOf(tenant) }));
        await modules.services<AuthServices>('auth').tokens.announce(revoked);
        return revoked;
      });
      say(
        context,
        { deleted: values.name },
        `Deleted connection ${values.name}${ended.length > 0 ? ' and the admins it made; their tokens no longer work' : ''}.`,
      );
      return 0;
    }
    default:
      throw unknownVerb('sso', verb, VERBS, SET_USAGE);
  }
}

/** The command line's principal in the audit log. */
const operatorOf = (tenant: Principal['tenant']): Principal => operatorPrincipal(tenant, 'cli', userInfo().username);

/** The body PUT /api/sso/connections/{name} would take, from the flags: SAML when a metadata flag is given. */
async function connectionOfFlags(values: CommandContext['values']): Promise<Record<string, unknown>> {
  const claims =
    values.claim === undefined ? undefined : Object.fromEntries(values.claim.map((text) => pair(text, '--claim', 'CLAIM=ATTRIBUTE')));
  const admins = values.admins === undefined ? undefined : pair(values.admins, '--admins', 'CLAIM=VALUE');
  const common = {
    ...(values['display-name'] === undefined ? {} : { displayName: values['display-name'] }),
    ...(claims === undefined ? {} : { claims }),
    ...(admins === undefined ? {} : { admins: { claim: admins[0], value: admins[1] } }),
    ...(values['email-trust'] === undefined ? {} : { emailTrust: values['email-trust'] }),
  };
  if (values['metadata-url'] !== undefined || values['metadata-file'] !== undefined) {
    return {
      protocol: 'saml',
      ...(values['metadata-url'] === undefined ? {} : { metadataUrl: values['metadata-url'] }),
      ...(values['metadata-file'] === undefined ? {} : { metadataXml: await readMetadata(values['metadata-file']) }),
      ...(values['sp-entity-id'] === undefined ? {} : { spEntityId: values['sp-entity-id'] }),
      ...(values['allow-sha1'] ? { allowSha1: true } : {}),
      ...common,
    };
  }
  if (values['remove-client-secret'] && values['client-secret'] !== undefined)
    throw new UsageError('--client-secret sets the secret and --remove-client-secret removes it: give one of them.');
  return {
    issuer: values.issuer,
    clientId: values['client-id'],
    ...(values['client-secret'] === undefined ? {} : { clientSecret: values['client-secret'] }),
    ...(values['remove-client-secret'] ? { clientSecret: null } : {}),
    ...(values.scopes === undefined ? {} : { scopes: values.scopes }),
    ...common,
  };
}

async function readMetadata(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--metadata-file: cannot read ${path}: ${(error as Error).message}`);
  }
}

/** `name=value`, split at its first `=`. */
function pair(text: string, flag: string, form: string): [string, string] {
  const at = text.indexOf('=');
  if (at < 1 || at === text.length - 1) throw new UsageError(`${flag} takes ${form}, not "${text}".`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/** The admins rule in a line: `groups=lb-admins`, and `+2 scoped` when values of the claim make admins of organisation entries. */
function adminsText(admins: { claim: string; value?: string; scopes?: Record<string, string> } | null): string {
  if (!admins) return '-';
  const scoped = Object.keys(admins.scopes ?? {}).length;
  return [
    admins.value === undefined ? undefined : `${admins.claim}=${admins.value}`,
    scoped > 0 ? `${admins.claim}: ${scoped} scoped` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
}
