import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '../config.js';
import type { ModuleContext, ModuleDeclaration, Ports, SchemeServices } from '../kernel/module-declaration.js';
import type { PeopleChanges } from '../kernel/people-changes.port.js';
import { activitiesDeclaration } from '../modules/activities/activities.module.js';
import { actorsDeclaration } from '../modules/actors/actors.module.js';
import { auditDeclaration } from '../modules/audit/audit.module.js';
import { authDeclaration } from '../modules/auth/auth.module.js';
import { completionsDeclaration } from '../modules/completions/completions.module.js';
import { identityDeclaration } from '../modules/identity/identity.module.js';
import { importsDeclaration } from '../modules/imports/imports.module.js';
import { launchDeclaration } from '../modules/launch/launch.module.js';
import { learningDeclaration } from '../modules/learning/learning.module.js';
import { notificationsDeclaration } from '../modules/notifications/notifications.module.js';
import { organisationDeclaration } from '../modules/organisation/organisation.module.js';
import { tenancyDeclaration } from '../modules/tenancy/tenancy.module.js';
import { xapiDeclaration } from '../modules/xapi/xapi.module.js';

/**
 * The composition root (docs/architecture.md, "Ports"): every module's declaration, in the order
 * their plugins are registered, and the ports collected from all of them. The server registers
 * the modules through it (app.ts); the command line takes the ports from it (a tenant's deletion
 * runs every tenant eraser, an import tells every listener of people), so the two never wire a
 * module apart. Registration order: tenancy's service first (the authentication hook names the
 * request's tenant through it), then auth (its hook runs for the routes of every module after it),
 * then the modules bottom up.
 */
export const MODULES: readonly ModuleDeclaration[] = [
  tenancyDeclaration,
  authDeclaration,
  auditDeclaration,
  organisationDeclaration,
  actorsDeclaration,
  activitiesDeclaration,
  xapiDeclaration,
  completionsDeclaration,
  notificationsDeclaration,
  importsDeclaration,
  launchDeclaration,
  learningDeclaration,
  identityDeclaration,
];

/**
 * Every port, as the declarations fill it; the authentication schemes only for a server (its
 * `services` given). A port exactly one module must fill, filled by none or by two, stops the start.
 */
export function collectPorts(
  config: AppConfig,
  options: { services?: Omit<SchemeServices, 'config'>; modules?: readonly ModuleDeclaration[] } = {},
): Ports {
  const { services, modules = MODULES } = options;
  const listeners = modules.flatMap((module) => (module.fills.peopleChanged ? [module.fills.peopleChanged(config)] : []));
  const peopleChanges: PeopleChanges = {
    changed: async (tx, tenant, change) => {
      for (const listener of listeners) await listener.changed(tx, tenant, change);
    },
  };
  const reach = modules.filter((module) => module.fills.personReach !== undefined);
  if (reach.length !== 1) {
    throw new Error(`Exactly one module fills personReach; ${reach.map((module) => module.name).join(', ') || 'none'} do.`);
  }
  return {
    peopleChanges,
    personReach: reach[0].fills.personReach!,
    tenantErasers: modules.flatMap((module) => (module.fills.tenantEraser ? [module.fills.tenantEraser] : [])),
    authenticationSchemes:
      services === undefined ? [] : modules.flatMap((module) => module.fills.authenticationSchemes?.({ ...services, config }) ?? []),
  };
}

/** Registers every module's plugin on `app`, in order, each handed the shared services and every port. */
export async function registerModules(app: FastifyInstance, context: Omit<ModuleContext, 'ports'>): Promise<void> {
  const ports = collectPorts(context.config, { services: { sql: context.sql, secrets: context.secrets } });
  for (const module of MODULES) await app.register(module.plugin, { ...context, ports });
}
