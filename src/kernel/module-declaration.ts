import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { Admission } from '../platform/http/admission.js';
import type { ActivitiesChanged } from './activities-changed.port.js';
import type { AdminSignOn } from './admin-sign-on.port.js';
import type { AuthenticationScheme } from './authentication-scheme.port.js';
import type { LaunchSignOn } from './launch-sign-on.port.js';
import type { LaunchTokenVerifier } from './launch-tokens.port.js';
import type { ModuleOptions } from './module-options.js';
import type { PeopleChanges } from './people-changes.port.js';
import type { PersonReach } from './person-reach.port.js';
import type { StatementProjection } from './statement-projection.port.js';
import type { TenantEraser } from './tenant-eraser.port.js';

/**
 * The ports one module fills (docs/architecture.md, "Declarations, ports and the composition
 * root"): each port is a seam that a module below calls and a module above implements, its type in
 * a `*.port.ts` file of the kernel, so no arrow points up. A module fills them from what it built;
 * the composition root (server/composition.ts) collects them from every module and hands every
 * module all of them (`Ports`).
 */
export interface ModulePorts {
  /** Hears of the people written anywhere, in the writer's transaction (people-changes.port.ts). */
  peopleChanged?: PeopleChanges;
  /** The rule of who may read whom (person-reach.port.ts): exactly one module fills it. */
  personReach?: PersonReach;
  /** Deletes the tenant's rows of the module's tables outside the tenants cascade (tenant-eraser.port.ts). */
  tenantEraser?: TenantEraser;
  /** Keeps what it projects from the statements, in the transaction that stores them (statement-projection.port.ts). */
  statementProjection?: StatementProjection;
  /** Keeps what it derives from the activity registry, in the transaction that changes it (activities-changed.port.ts). */
  activitiesChanged?: ActivitiesChanged;
  /** Credentials of its own, checked by auth's one hook (authentication-scheme.port.ts). */
  authenticationSchemes?: readonly AuthenticationScheme[];
  /** Checks the launch tokens it issues, for auth's hook (launch-tokens.port.ts): at most one module. */
  launchTokens?: LaunchTokenVerifier;
  /** The single sign-on of admins on auth's authorize page (admin-sign-on.port.ts): at most one module. */
  adminSignOn?: AdminSignOn;
  /** The single sign-on of a launch link without `auth` (launch-sign-on.port.ts): at most one module. */
  launchSignOn?: LaunchSignOn;
}

/** Every port as the modules filled it: what the composition root hands every module. */
export interface Ports {
  /** Every module's `peopleChanged`, called one after the other in the build order. */
  peopleChanges: PeopleChanges;
  personReach: PersonReach;
  /** Every module's `tenantEraser`, run in the transaction that deletes a tenant. */
  tenantErasers: readonly TenantEraser[];
  /** Every module's `statementProjection`, called one after the other in the build order. */
  statementProjections: readonly StatementProjection[];
  /** Every module's `activitiesChanged`, called one after the other in the build order. */
  activitiesChanges: readonly ActivitiesChanged[];
  /** Every module's `authenticationSchemes`. */
  authenticationSchemes: readonly AuthenticationScheme[];
  /** The one module's, or none: no Basic user-id is taken for a launch token. */
  launchTokens: LaunchTokenVerifier;
  /** The one module's, or none: the authorize page offers the password form alone. */
  adminSignOn: AdminSignOn;
  /** The one module's, or none: a launch link without `auth` is refused. */
  launchSignOn: LaunchSignOn;
}

/**
 * What a module is built with: the shared services, what the entry tunes, and every port. The
 * ports are bound late: a module may keep them while it builds, and they answer once every module
 * is built (a call before that throws), since modules below call what modules above fill.
 */
export interface BuildContext extends ModuleOptions {
  ports: Ports;
  /** The imports in flight in this process (LEARNBASE_IMPORTS_IN_FLIGHT): the import folder's large files count among them. */
  importAdmission: Admission;
  /** Tests lower the sign-in limits (auth's SignInPolicy). */
  signInPolicy?: Readonly<Partial<Record<string, number>>>;
  /** Where services say what went wrong in the background (the server's logger; standard error for a command). */
  log: FastifyBaseLogger;
}

/** Something that runs from the app's start to its close: a cache hearing the other processes, a worker. */
export interface Running {
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/** Work done every hour from a minute after the start (platform/housekeeping.ts), logged as `done` or `failed`. */
export interface Chore {
  run(): Promise<unknown>;
  done: string;
  failed: string;
}

/** What a module's build made: its services, the ports it fills from them, and what runs while the app is open. */
export interface Built<Services> {
  /** What the modules above that need this one are handed (`below`), and this module's routes. */
  services: Services;
  fills?: ModulePorts;
  /** Started before any route is registered, stopped at close: the caches that hear the other processes. */
  listening?: readonly Running[];
  /** Started once the app is ready, stopped at close (which waits for the work in hand). */
  workers?: readonly Running[];
  hourly?: readonly Chore[];
}

/** What a module's routes are registered with: the build's context, its own services, and the services of the modules it needs. */
export interface RouteContext<Services, Below> extends BuildContext {
  services: Services;
  below: Below;
}

/**
 * A module as a declared unit (its `<module>.module.ts`): its name (its folder under
 * src/modules/), the modules whose faces it imports (`needs`, checked against its imports by
 * test/architecture/module-declarations.test.ts), its build (services, no HTTP, nothing started,
 * no database read) and its routes. `Below` is the services of the modules it needs, by name, as
 * their builds made them.
 */
export interface ModuleDeclaration<Services = unknown, Below = unknown> {
  name: string;
  needs: readonly string[];
  /**
   * The tables of other modules whose rows, deleted, delete rows of this module's tables with them
   * (`ON DELETE CASCADE` across modules): named, so that whoever erases those rows knows what goes
   * with them. test/architecture/module-declarations.test.ts holds them to the schema.
   */
  cascadesFrom?: readonly string[];
  build(context: BuildContext, below: Below): Built<Services> | Promise<Built<Services>>;
  /** The module's HTTP: registered in the composition root's order, `fastify-plugin`'s wrapping included where a hook reaches the modules after it. */
  routes?: FastifyPluginAsync<RouteContext<Services, Below>>;
}

/** A declaration whose services are the composition root's business only: what MODULES lists. */
export type DeclaredModule = ModuleDeclaration<unknown, Record<string, unknown>>;

/** Declares a module, its services and what it takes from below typed for its own files, erased for the composition root's list. */
export const declareModule = <Services, Below = Record<string, never>>(declaration: ModuleDeclaration<Services, Below>): DeclaredModule =>
  declaration as unknown as DeclaredModule;
