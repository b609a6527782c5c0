import { createInterface } from 'node:readline';
import { Writable, type Readable } from 'node:stream';
import type { AppConfig } from '../config.js';
import type { CommandOutput } from '../platform/control-socket.js';
import { LocalNotifyBus, PostgresNotifyBus, type NotifyBus } from '../platform/database/notify-bus.js';
import type { Database } from '../platform/database/sql-client.js';
import { deleteAdmin, listAdmins, normaliseEmail, setAdminPassword, unlockAdmin } from '../modules/auth/admins/admin.service.js';
import { ApiKeyService } from '../modules/auth/api-keys/api-key.service.js';
import { deleteClient, listClients, rotateClientSecret } from '../modules/auth/oauth/client.service.js';
import { TokenService } from '../modules/auth/oauth/token.service.js';
import { TenancyService } from '../modules/tenancy/tenancy.service.js';
import { eraseTenantStatements } from '../modules/xapi/statements/statement.service.js';

/** Where `admin set-password` reads the password: the terminal, or what a handed-over command sent along. */
export type PasswordInput = Readable & { isTTY?: boolean };

/** The lifecycle commands in `learnbase --help` (cli.ts prints them with the others). */
export const LIFECYCLE_USAGE = `  tenant list                     list the tenants
  tenant delete NAME --yes        delete the tenant and every row it owns (its name becomes free)
  apikey list --tenant NAME       list the tenant's API keys: created, last used (to the minute), revoked
  apikey revoke --tenant NAME KEY revoke an API key; every running server refuses it within a second
  client list --tenant NAME       list the tenant's OAuth clients
  client delete --tenant NAME ID  delete an OAuth client; the tokens issued to it stop working
  client rotate-secret --tenant NAME ID
                                  print a new client secret (once); the old one stops working
  admin list --tenant NAME        list the tenant's admins, and which are locked out
  admin set-password --tenant NAME --email E
                                  read a new password from standard input (never from the command line)
  admin delete --tenant NAME --email E
                                  delete an admin; their tokens stop working
  admin unlock --tenant NAME --email E
                                  clear the failed sign-ins and lock-out of that account`;

/** A lifecycle command was called the wrong way: exit code 2 with the usage text (cli.ts). */
export class LifecycleUsageError extends Error {}

export interface LifecycleValues {
  tenant?: string;
  email?: string;
  password?: string;
  yes?: boolean;
  json?: boolean;
}

const VERBS: Record<string, string[]> = {
  tenant: ['list', 'delete'],
  apikey: ['list', 'revoke'],
  client: ['list', 'delete', 'rotate-secret'],
  admin: ['list', 'set-password', 'delete', 'unlock'],
};

/** True for the commands this file runs (`create` stays in cli.ts). */
export const isLifecycleCommand = (positionals: string[]): boolean =>
  Object.hasOwn(VERBS, positionals[0] ?? '') && positionals[1] !== undefined && positionals[1] !== 'create';

/**
 * Runs one lifecycle command; resolves to its exit code (0 done). A tenant, key, client or admin
 * that does not exist throws a 404 AppError, which cli.ts turns into exit code 1 and its message.
 */
export async function runLifecycleCommand(
  db: Database,
  config: AppConfig,
  positionals: string[],
  values: LifecycleValues,
  output: CommandOutput,
  stdin: PasswordInput = process.stdin,
): Promise<number> {
  const [noun, verb, ...args] = positionals as [string, string, ...string[]];
  if (!VERBS[noun]!.includes(verb)) {
    throw new LifecycleUsageError(`Unknown command "${noun} ${verb}": expected ${noun} ${['create', ...VERBS[noun]!].join('|')}.`);
  }
  const notifications = publisherFor(db, config);
  try {
    const tenancy = new TenancyService(db, 0, notifications);
    // Revokes only: it issues no refresh token, so their lifetime does not matter here.
    const tokens = new TokenService(db, tenancy, notifications, { cacheTtlMs: 0, refreshLifetimeSeconds: 0 });
    const tenantNamed = async () => tenancy.require(need(values.tenant, `${noun} ${verb} needs --tenant NAME.`));
    const say = (value: object, text: string) => output.out(values.json ? `${JSON.stringify(value)}\n` : `${text}\n`);

    switch (`${noun} ${verb}`) {
      case 'tenant list': {
        none(args, 'tenant list');
        const tenants = await tenancy.list();
        say(
          { tenants: tenants.map((tenant) => ({ id: tenant.id, name: tenant.name, createdAt: tenant.createdAt.toISOString() })) },
          table(
            ['NAME', 'ID', 'CREATED'],
            tenants.map((tenant) => [tenant.name, tenant.id, minute(tenant.createdAt)]),
            'No tenants.',
          ),
        );
        return 0;
      }
      case 'tenant delete': {
        const [name, ...extra] = args;
        if (!name || extra.length > 0) throw new LifecycleUsageError('Expected: learnbase tenant delete NAME --yes');
        if (!values.yes) {
          throw new LifecycleUsageError(`tenant delete removes every row of tenant "${name}" for good: confirm with --yes.`);
        }
        const deleted = await tenancy.delete(name, [eraseTenantStatements]);
        say({ deleted: { id: deleted.id, name: deleted.name } }, `Deleted tenant "${deleted.name}" and everything it owned.`);
        return 0;
      }
      case 'apikey list': {
        none(args, 'apikey list --tenant NAME');
        const tenant = await tenantNamed();
        const keys = await new ApiKeyService(db, tenancy, notifications, { cacheTtlMs: 0 }).list(tenant);
        say(
          {
            apiKeys: keys.map((key) => ({
              key: key.key,
              createdAt: key.createdAt.toISOString(),
              lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
              revokedAt: key.revokedAt?.toISOString() ?? null,
            })),
          },
          table(
            ['KEY', 'CREATED', 'LAST USED', 'REVOKED'],
            keys.map((key) => [
              key.key,
              minute(key.createdAt),
              key.lastUsedAt ? minute(key.lastUsedAt) : 'never',
              key.revokedAt ? minute(key.revokedAt) : '-',
            ]),
            `Tenant "${tenant.name}" has no API keys.`,
          ),
        );
        return 0;
      }
      case 'apikey revoke': {
        const key = one(args, 'apikey revoke --tenant NAME KEY');
        const tenant = await tenantNamed();
        const revoked = await new ApiKeyService(db, tenancy, notifications, { cacheTtlMs: 0 }).revoke(tenant, key);
        say({ key: revoked.key, revokedAt: revoked.revokedAt?.toISOString() }, `Revoked API key ${revoked.key}.`);
        return 0;
      }
      case 'client list': {
        none(args, 'client list --tenant NAME');
        const tenant = await tenantNamed();
        const clients = await listClients(db, tenant);
        say(
          { clients: clients.map((client) => ({ ...client, createdAt: client.createdAt.toISOString() })) },
          table(
            ['CLIENT ID', 'NAME', 'CREATED', 'REDIRECT URIS'],
            clients.map((client) => [client.clientId, client.name, minute(client.createdAt), client.redirectUris.join(' ')]),
            `Tenant "${tenant.name}" has no OAuth clients.`,
          ),
        );
        return 0;
      }
      case 'client delete': {
        const clientId = one(args, 'client delete --tenant NAME ID');
        const tenant = await tenantNamed();
        await deleteClient(db, tokens, tenant, clientId);
        say({ clientId, deleted: true }, `Deleted OAuth client ${clientId}; the tokens issued to it no longer work.`);
        return 0;
      }
      case 'client rotate-secret': {
        const clientId = one(args, 'client rotate-secret --tenant NAME ID');
        const tenant = await tenantNamed();
        const issued = await rotateClientSecret(db, tenant, clientId);
        say(
          issued,
          `clientId:     ${issued.clientId}\nclientSecret: ${issued.clientSecret}\n(the secret is shown only this once; the old one no longer works)`,
        );
        return 0;
      }
      case 'admin list': {
        none(args, 'admin list --tenant NAME');
        const tenant = await tenantNamed();
        const admins = await listAdmins(db, tenant);
        say(
          {
            admins: admins.map((admin) => ({
              id: admin.id,
              email: admin.email,
              createdAt: admin.createdAt.toISOString(),
              lockedUntil: admin.lockedUntil?.toISOString() ?? null,
            })),
          },
          table(
            ['E-MAIL', 'ID', 'CREATED', 'LOCKED UNTIL'],
            admins.map((admin) => [admin.email, admin.id, minute(admin.createdAt), admin.lockedUntil ? minute(admin.lockedUntil) : '-']),
            `Tenant "${tenant.name}" has no admins.`,
          ),
        );
        return 0;
      }
      case 'admin set-password': {
        none(args, 'admin set-password --tenant NAME --email E (the password on standard input)');
        if (values.password !== undefined) {
          throw new LifecycleUsageError(
            'admin set-password reads the new password from standard input, never from the command line: drop --password.',
          );
        }
        const email = need(values.email, 'admin set-password needs --tenant NAME and --email E; the password is read from standard input.');
        const tenant = await tenantNamed();
        const password = await readPassword(stdin);
        const admin = await setAdminPassword(db, tenant, email, password);
        say(admin, `Set a new password for ${admin.email} in tenant "${tenant.name}".`);
        return 0;
      }
      case 'admin delete': {
        none(args, 'admin delete --tenant NAME --email E');
        const email = need(values.email, 'admin delete needs --tenant NAME and --email E.');
        const tenant = await tenantNamed();
        await deleteAdmin(db, tokens, tenant, email);
        say({ email: normaliseEmail(email), deleted: true }, `Deleted admin ${normaliseEmail(email)}; their tokens no longer work.`);
        return 0;
      }
      case 'admin unlock': {
        none(args, 'admin unlock --tenant NAME --email E');
        const email = need(values.email, 'admin unlock needs --tenant NAME and --email E.');
        const tenant = await tenantNamed();
        const cleared = await unlockAdmin(db, tenant, email);
        say(
          { email: normaliseEmail(email), cleared },
          cleared
            ? `Cleared the failed sign-ins of ${normaliseEmail(email)}; they can sign in again.`
            : `${normaliseEmail(email)} had no failed sign-ins to clear.`,
        );
        return 0;
      }
    }
    throw new LifecycleUsageError(`Unknown command "${noun} ${verb}".`);
  } finally {
    if (notifications instanceof PostgresNotifyBus) await notifications.close();
  }
}

/**
 * How a command tells the running servers what changed. On PostgreSQL every server process
 * listens (LISTEN/NOTIFY), and publishing needs only the command's own pool. A PGlite folder
 * is held by one process at a time: either no server runs, or the command runs inside the server
 * that holds it (handed over, platform/control-socket.ts), whose caches listen on the same database.
 */
function publisherFor(db: Database, config: AppConfig): NotifyBus {
  return config.database.kind === 'postgres' ? new PostgresNotifyBus(config.database.url, db) : LocalNotifyBus.of(db);
}

function need(value: string | undefined, message: string): string {
  if (!value) throw new LifecycleUsageError(message);
  return value;
}

function none(args: string[], usage: string): void {
  if (args.length > 0) throw new LifecycleUsageError(`Expected: learnbase ${usage}`);
}

function one(args: string[], usage: string): string {
  if (args.length !== 1) throw new LifecycleUsageError(`Expected: learnbase ${usage}`);
  return args[0]!;
}

/** 2026-11-23 21:05 (UTC): lists are read by people to the minute; --json gives the full time. */
const minute = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')}Z`;

function table(header: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return empty;
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * The new password: the first line of standard input, so that it never appears in the process
 * list or the shell history. On a terminal it is asked for without echo.
 */
export async function readPassword(stdin: PasswordInput): Promise<string> {
  let line: string | undefined;
  if (stdin.isTTY) {
    process.stderr.write('New password: ');
    const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
    const prompt = createInterface({ input: stdin, output: muted, terminal: true });
    line = await new Promise<string>((resolve) => prompt.once('line', resolve));
    prompt.close();
    process.stderr.write('\n');
  } else {
    let text = '';
    for await (const chunk of stdin) text += chunk;
    line = text.split(/\r?\n/, 1)[0];
  }
  if (!line) throw new LifecycleUsageError('admin set-password reads the new password from standard input, and got none.');
  return line;
}
