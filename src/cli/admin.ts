import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import {
  createAdmin,
  deleteAdmin,
  listAdmins,
  normaliseEmail,
  setAdminPassword,
  unlockAdmin,
} from '../modules/auth/admins/admin.service.js';
import {
  announcing,
  type CommandContext,
  minute,
  need,
  none,
  type PasswordInput,
  say,
  table,
  tenantNamed,
  tokenService,
  unknownVerb,
  UsageError,
} from './command.js';

const VERBS = ['create', 'list', 'set-password', 'delete', 'unlock'] as const;

/**
 * `learnbase admin create --tenant NAME --email E --password P`, `admin list --tenant NAME`, and
 * `admin set-password|delete|unlock --tenant NAME --email E`: the accounts that sign in on the
 * authorize page.
 */
export async function adminCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  const { db, values } = context;
  switch (verb) {
    case 'create': {
      none(operands, 'admin create --tenant NAME --email E --password P');
      if (!values.tenant || !values.email || !values.password) {
        throw new UsageError('admin create needs --tenant NAME, --email E and --password P.');
      }
      const tenant = await tenantNamed(context, 'admin create');
      const admin = await createAdmin(db, tenant, values.email, values.password);
      say(context, admin, `Created admin ${admin.email} in tenant "${tenant.name}".`);
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
    case 'delete': {
      none(operands, 'admin delete --tenant NAME --email E');
      const email = need(values.email, 'admin delete needs --tenant NAME and --email E.');
      const tenant = await tenantNamed(context, 'admin delete');
      // The running servers hear that the admin's tokens are revoked.
      await announcing(context, (notifications) => deleteAdmin(db, tokenService(context, notifications), tenant, email));
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
      throw unknownVerb('admin', verb, VERBS, 'admin create --tenant NAME --email E --password P');
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
