import { ensureConsoleClient } from '../modules/auth/index.js';
import { createTenant, listTenants, type TenancyService } from '../modules/tenancy/index.js';
import { type CommandContext, minute, none, NotConfirmed, say, table, unknownVerb, UsageError, withModules } from './command.js';

const VERBS = ['create', 'list', 'delete'] as const;

/** `learnbase tenant create NAME`, `tenant list` and `tenant delete NAME --yes`. */
export async function tenantCommand(context: CommandContext, [verb, ...operands]: string[]): Promise<number> {
  switch (verb) {
    case 'create': {
      const [name, ...extra] = operands;
      if (!name || extra.length > 0) throw new UsageError('Expected: learnbase tenant create NAME');
      // The tenant comes with the console's OAuth client (docs/console.md, "Signing in").
      const tenant = await context.db.transaction(async (tx) => {
        const created = await createTenant(tx, name);
        await ensureConsoleClient(tx, created);
        return created;
      });
      say(context, { id: tenant.id, name: tenant.name }, `Created tenant "${tenant.name}".`);
      return 0;
    }
    case 'list': {
      none(operands, 'tenant list');
      const tenants = await listTenants(context.db);
      say(
        context,
        { tenants: tenants.map((tenant) => ({ id: tenant.id, name: tenant.name, createdAt: tenant.createdAt.toISOString() })) },
        table(
          ['NAME', 'ID', 'CREATED'],
          tenants.map((tenant) => [tenant.name, tenant.id, minute(tenant.createdAt)]),
          'No tenants.',
        ),
      );
      return 0;
    }
    case 'delete': {
      const [name, ...extra] = operands;
      if (!name || extra.length > 0) throw new UsageError('Expected: learnbase tenant delete NAME --yes');
      if (!context.values.yes) throw new NotConfirmed(`tenant delete removes every row of tenant "${name}" for good: confirm with --yes.`);
      // Every module's rows outside the tenants cascade go in the same transaction (the tenant
      // erasers of every module, through the composition root); the running servers hear of it, and their caches forget the tenant.
      const deleted = await withModules(context, (modules) => modules.services<TenancyService>('tenancy').delete(name));
      say(context, { deleted: { id: deleted.id, name: deleted.name } }, `Deleted tenant "${deleted.name}" and everything it owned.`);
      return 0;
    }
    default:
      throw unknownVerb('tenant', verb, VERBS, 'tenant create NAME');
  }
}
