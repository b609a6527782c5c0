import type { FastifyInstance } from 'fastify';
import { NO_ADMIN_SIGN_ON } from '../kernel/admin-sign-on.port.js';
import { NO_LAUNCH_SIGN_ON } from '../kernel/launch-sign-on.port.js';
import { NO_LAUNCH_TOKENS } from '../kernel/launch-tokens.port.js';
import type { BuildContext, Built, DeclaredModule, ModulePorts, Ports } from '../kernel/module-declaration.js';
import type { PeopleChanges } from '../kernel/people-changes.port.js';
import { everyHour } from '../platform/housekeeping.js';
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
 * The composition root (docs/architecture.md, "Declarations, ports and the composition root"):
 * every module's declaration, in the order their routes are registered. Auth's first: its
 * authentication hook runs for the routes of every module after it. The builds run bottom up, in
 * the order of the needs (`buildOrder`).
 */
export const MODULES: readonly DeclaredModule[] = [
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

/** The modules built: what each built, in build order, and every port collected from them. */
export interface Composition {
  built: ReadonlyMap<string, Built<unknown>>;
  /** Every port as collected (the builds were handed the same, bound late). */
  ports: Ports;
  /** The services module `name` built, as the type its declaration gives them (`AuthServices`…). */
  services<T>(name: string): T;
  /** What each module's routes take from below: the services of the modules it needs. */
  below(module: DeclaredModule): Record<string, unknown>;
}

/** The modules bottom up: each after every module it needs, otherwise in the list's order. A cycle stops the start. */
export function buildOrder(modules: readonly DeclaredModule[] = MODULES): DeclaredModule[] {
  const byName = new Map(modules.map((module) => [module.name, module]));
  const ordered: DeclaredModule[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (module: DeclaredModule, path: string[]) => {
    if (state.get(module.name) === 'done') return;
    if (state.get(module.name) === 'visiting') throw new Error(`The modules need each other: ${[...path, module.name].join(' → ')}.`);
    state.set(module.name, 'visiting');
    for (const need of module.needs) {
      const below = byName.get(need);
      if (below) visit(below, [...path, module.name]);
    }
    state.set(module.name, 'done');
    ordered.push(module);
  };
  for (const module of modules) visit(module, []);
  return ordered;
}

/**
 * Builds every module bottom up, each handed the services of the modules it needs and every port
 * (bound late: they answer once the last module is built), then collects the ports the modules
 * fill. Nothing is started: the server starts what runs (`registerModules`), a command uses the
 * services once. A port at most one module may fill, filled by two, or `personReach` filled by
 * other than one, stops the start.
 */
export async function composeModules(
  context: Omit<BuildContext, 'ports'>,
  modules: readonly DeclaredModule[] = MODULES,
): Promise<Composition> {
  let collected: Ports | undefined;
  const ports = latePorts(() => collected);
  const built = new Map<string, Built<unknown>>();
  const below = (module: DeclaredModule) =>
    Object.fromEntries(module.needs.filter((need) => built.has(need)).map((need) => [need, built.get(need)!.services]));
  const order = buildOrder(modules);
  for (const module of order) {
    built.set(module.name, await module.build({ ...context, ports }, below(module)));
  }
  collected = collectPorts(order.map((module) => ({ name: module.name, fills: built.get(module.name)!.fills ?? {} })));
  return {
    built,
    ports: collected,
    below,
    services: <T>(name: string) => {
      if (!built.has(name)) throw new Error(`No module named ${name} was built.`);
      return built.get(name)!.services as T;
    },
  };
}

/** Every port from what the modules filled, in the order given (composeModules gives the build order: a module's projections run after those of the modules it needs). */
export function collectPorts(filled: readonly { name: string; fills: ModulePorts }[]): Ports {
  const every = <K extends keyof ModulePorts>(port: K) =>
    filled.flatMap((module) => (module.fills[port] === undefined ? [] : [module.fills[port] as NonNullable<ModulePorts[K]>]));
  const atMostOne = <K extends keyof ModulePorts>(port: K): NonNullable<ModulePorts[K]> | undefined => {
    const filling = filled.filter((module) => module.fills[port] !== undefined);
    if (filling.length > 1) throw new Error(`At most one module fills ${port}; ${filling.map((module) => module.name).join(', ')} do.`);
    return filling[0]?.fills[port] as NonNullable<ModulePorts[K]> | undefined;
  };
  const reach = filled.filter((module) => module.fills.personReach !== undefined);
  if (reach.length !== 1) {
    throw new Error(`Exactly one module fills personReach; ${reach.map((module) => module.name).join(', ') || 'none'} do.`);
  }
  const listeners = every('peopleChanged');
  const peopleChanges: PeopleChanges = {
    changed: async (tx, tenant, change) => {
      for (const listener of listeners) await listener.changed(tx, tenant, change);
    },
  };
  return {
    peopleChanges,
    personReach: reach[0]!.fills.personReach!,
    tenantErasers: every('tenantEraser'),
    statementProjections: every('statementProjection'),
    activitiesChanges: every('activitiesChanged'),
    authenticationSchemes: every('authenticationSchemes').flat(),
    launchTokens: atMostOne('launchTokens') ?? NO_LAUNCH_TOKENS,
    adminSignOn: atMostOne('adminSignOn') ?? NO_ADMIN_SIGN_ON,
    launchSignOn: atMostOne('launchSignOn') ?? NO_LAUNCH_SIGN_ON,
  };
}

/** Ports whose every member answers from `collected()`, once there is one; a use before that throws, naming the port. */
function latePorts(collected: () => Ports | undefined): Ports {
  const late = <K extends keyof Ports>(port: K): Ports[K] => {
    const target = () => {
      const ports = collected();
      if (ports === undefined) throw new Error(`The port ${port} was used before every module was built.`);
      return ports[port] as object;
    };
    return new Proxy(Array.isArray(NO_PORTS[port]) ? [] : {}, {
      get: (_, key) => {
        const real = target();
        const value = Reflect.get(real, key);
        return typeof value === 'function' ? value.bind(real) : value;
      },
      has: (_, key) => Reflect.has(target(), key),
      ownKeys: () => Reflect.ownKeys(target()),
      getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(target(), key),
    }) as Ports[K];
  };
  return Object.fromEntries(Object.keys(NO_PORTS).map((port) => [port, late(port as keyof Ports)])) as unknown as Ports;
}

/** Every port's name, with the shape of its value (a list or an object). */
const NO_PORTS: Record<keyof Ports, object> = {
  peopleChanges: {},
  personReach: {},
  tenantErasers: [],
  statementProjections: [],
  activitiesChanges: [],
  authenticationSchemes: [],
  launchTokens: {},
  adminSignOn: {},
  launchSignOn: {},
};

/**
 * Builds every module and registers it on `app`: the caches that hear the other processes started
 * first, then every module's routes in the list's order, then the workers once the app is ready
 * and the hourly chores; all of them stopped when the app closes.
 */
export async function registerModules(app: FastifyInstance, context: Omit<BuildContext, 'ports' | 'log'>): Promise<Composition> {
  const composition = await composeModules({ ...context, log: app.log });
  // In build order (the map's): a module's caches listen before those of the modules above it.
  for (const { listening = [], workers = [], hourly = [] } of composition.built.values()) {
    for (const running of listening) {
      await running.start();
      app.addHook('onClose', async () => running.stop());
    }
    for (const running of workers) {
      app.addHook('onReady', async () => running.start());
      app.addHook('onClose', async () => running.stop());
    }
    for (const chore of hourly) everyHour(app, () => chore.run(), chore);
  }
  for (const module of MODULES) {
    if (module.routes === undefined) continue;
    const { services } = composition.built.get(module.name)!;
    await app.register(module.routes, { ...context, log: app.log, ports: composition.ports, services, below: composition.below(module) });
  }
  return composition;
}
