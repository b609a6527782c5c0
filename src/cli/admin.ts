import {
  type AuthServices,
  createAdmin,
  deleteAdmin,
  listAdmins,
  normaliseEmail,
  operatorPrincipal,
  setAdminPassword,
  setAdminScope,
  unlockAdmin,
} from '../modules/auth/index.js';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { Tenant } from '../kernel/principal.js';
import {
  withModules,
  type CommandContext,
  minute,
  need,
  none,
  type PasswordInput,
  say,
  scopeNamed,
  table,
  tenantNamed,
  unknownVerb,
  UsageError,
} from './command.js';

const VERBS = ['create', 'list', 'set-password', 'set-scope', 'delete', 'unlock'] as const;

/** The command line in the audit log: the changes it makes to admins are recorded as over HTTP. */
const operatorOf = (tenant: Tenant) => ({ principal: operatorPrincipal(tenant, 'cli', userInfo().username) });

/**
 * `learnbase admin create --tenant NAME --email E --password P [--scope ENTRY_ID]`, `admin list
 * --tenant NAME`, `admin set-scope --tenant NAME --email E --scope ENTRY_ID|--whole-tenant`, and
 * `admin set-password|delete|unlock --tenant NAME --email E`: the accounts that sign in on the
 * authorize page.
 */
export async function adminCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  const { db, values } = context;
  switch (verb) {
    case 'create': {
      none(operands, 'admin create --tenant NAME --email E --password P [--scope ENTRY_ID]');
      if (!values.tenant || !values.email || !values.password) {
        throw new UsageError('admin create needs --tenant NAME, --email E and --password P.');
      }
      const tenant = await tenantNamed(context, 'admin create');
      const scope = await scopeNamed(context, tenant);
      const admin = await createAdmin(db, tenant, values.email, values.password, scope, operatorOf(tenant));
      const limited = scope === undefined ? '' : `, limited to the organisation entry "${scope}" and every entry below it`;
      say(context, admin, `Created admin ${admin.email} in tenant "${tenant.name}"${limited}.`);
      return 0;
    }
    case 'list': {
      none(operands, 'admin list --tenant NAME');
      const tenant = await tenantNamed(context, 'admin list');
      const admins = await listAdmins(db, tenant);
      say(
        context,
        {
          admins: admins.map((admin) => ({
            id: admin.id,
            email: admin.email,
            createdAt: admin.createdAt.toISOString(),
            lockedUntil: admin.lockedUntil?.toISOString() ?? null,
            scope: admin.scope ?? null,
            password: admin.password,
            connection: admin.connection ?? null,
          })),
        },
        table(
          ['E-MAIL', 'ID', 'CREATED', 'LOCKED UNTIL', 'SCOPE', 'SIGNS IN WITH'],
          admins.map((admin) => [
            admin.email,
            admin.id,
            minute(admin.createdAt),
            admin.lockedUntil ? minute(admin.lockedUntil) : '-',
            admin.scope ?? 'whole tenant',
            [...(admin.password ? ['password'] : []), ...(admin.connection ? [`sso:${admin.connection}`] : [])].join(', ') || '-',
          ]),
          `Tenant "${tenant.name}" has no admins.`,
        ),
      );
      return 0;
    }
    case 'set-password': {
      none(operands, 'admin set-password --tenant NAME --email E (the password on standard input)');
      if (values.password !== undefined) {
        throw new UsageError(
          'admin set-password reads the new password from standard input, never from the command line: drop --password.',
        );
      }
      const email = need(values.email, 'admin set-password needs --tenant NAME and --email E; the password is read from standard input.');
      const tenant = await tenantNamed(context, 'admin set-password');
      const password = await readPassword(context.stdin);
      const admin = await setAdminPassword(db, tenant, email, password);
      say(context, admin, `Set a new password for ${admin.email} in tenant "${tenant.name}".`);
      return 0;
    }
    case 'set-scope': {
      const usage = 'admin set-scope --tenant NAME --email E --scope ENTRY_ID|--whole-tenant';
      none(operands, usage);
      const email = need(values.email, `admin set-scope needs --tenant NAME, --email E, and --scope ENTRY_ID or --whole-tenant.`);
      if ((values.scope === undefined) === !values['whole-tenant']) {
        throw new UsageError(`admin set-scope needs exactly one of --scope ENTRY_ID and --whole-tenant: learnbase ${usage}`);
      }
      const tenant = await tenantNamed(context, 'admin set-scope');
      const scope = (await scopeNamed(context, tenant)) ?? null;
      // The admin's tokens are revoked, and the running servers hear of it: the new scope applies at their next sign-in.
      const admin = await withModules(context, (modules) =>
        setAdminScope(db, modules.services<AuthServices>('auth').tokens, tenant, email, scope, operatorOf(tenant)),
      );
      say(
        context,
        { id: admin.id, email: admin.email, scope },
        `${scope === null ? `Admin ${admin.email} administers the whole tenant` : `Admin ${admin.email} is limited to the organisation entry "${scope}" and every entry below it`}; their tokens were revoked, the new scope applies from their next sign-in.`,
      );
      return 0;
    }
    case 'delete': {
      none(operands, 'admin delete --tenant NAME --email E');
      const email = need(values.email, 'admin delete needs --tenant NAME and --email E.');
      const tenant = await tenantNamed(context, 'admin delete');
      // The running servers hear that the admin's tokens are revoked.
      await withModules(context, (modules) =>
        deleteAdmin(db, modules.services<AuthServices>('auth').tokens, tenant, email, operatorOf(tenant)),
      );
      say(context, { email: normaliseEmail(email), deleted: true }, `Deleted admin ${normaliseEmail(email)}; their tokens no longer work.`);
      return 0;
    }
    case 'unlock': {
      none(operands, 'admin unlock --tenant NAME --email E');
      const email = need(values.email, 'admin unlock needs --tenant NAME and --email E.');
      const tenant = await tenantNamed(context, 'admin unlock');
      const cleared = await unlockAdmin(db, tenant, email);
      say(
        context,
        { email: normaliseEmail(email), cleared },
        cleared
          ? `Cleared the failed sign-ins of ${normaliseEmail(email)}; they can sign in again.`
          : `${normaliseEmail(email)} had no failed sign-ins to clear.`,
      );
      return 0;
    }
    default:
      throw unknownVerb('admin', verb, VERBS, 'admin create --tenant NAME --email E --password P [--scope ENTRY_ID]');
  }
}

/**
 * The new password of `admin set-password`: the first line of standard input, so that it never
 * appears in the process list or the shell history. On a terminal it is asked for without echo.
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
  if (!line) throw new UsageError('admin set-password reads the new password from standard input, and got none.');
  return line;
}
