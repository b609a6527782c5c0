import type { FastifyPluginAsync, FastifyPluginCallback } from 'fastify';
import type { AppConfig } from '../config.js';
import type { Admission } from '../platform/http/admission.js';
import type { SqlClient } from '../platform/database/sql-client.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { AuthenticationScheme } from './authentication-scheme.port.js';
import type { ModuleOptions } from './module-options.js';
import type { PeopleChanges } from './people-changes.port.js';
import type { PersonReach } from './person-reach.port.js';
import type { TenantEraser } from './tenant-eraser.port.js';

/**
 * The ports one module fills (docs/architecture.md, "Ports"): each port is a seam that a module
 * below calls and a module above implements, declared in a `*.port.ts` file of the kernel, so no
 * arrow points up. The composition root (server/composition.ts) collects them from every
 * declaration and hands every module all of them (`Ports`).
 */
export interface ModulePorts {
  /** Hears of the people written anywhere, in the writer's transaction (people-changes.port.ts). */
  peopleChanged?: (config: AppConfig) => PeopleChanges;
  /** The rule of who may read whom (person-reach.port.ts): exactly one module fills it. */
  personReach?: PersonReach;
  /** Deletes the tenant's rows of the module's tables outside the tenants cascade (tenant-eraser.port.ts). */
  tenantEraser?: TenantEraser;
  /** Credentials of its own, checked by auth's one hook (authentication-scheme.port.ts). */
  authenticationSchemes?: (services: SchemeServices) => readonly AuthenticationScheme[];
}

/** What a module's authentication schemes are made with: a server's database, settings and secrets. */
export interface SchemeServices {
  sql: SqlClient;
  config: AppConfig;
  secrets: SecretBox;
}

/** Every port as every module that fills it filled it: what the composition root hands down. */
export interface Ports {
  /** Every module's `peopleChanged`, called one after the other in the declarations' order. */
  peopleChanges: PeopleChanges;
  personReach: PersonReach;
  /** Every module's `tenantEraser`, run in the transaction that deletes a tenant. */
  tenantErasers: readonly TenantEraser[];
  /** Every module's `authenticationSchemes` (none where nothing is served: the command line). */
  authenticationSchemes: readonly AuthenticationScheme[];
}

/** What the composition root hands each module's plugin: the shared services, the ports, and what the entry tunes. */
export interface ModuleContext extends ModuleOptions {
  ports: Ports;
  /** The imports in flight in this process (LEARNBASE_IMPORTS_IN_FLIGHT): the import folder's large files count among them. */
  importAdmission: Admission;
  /** Tests lower the sign-in limits (auth's SignInPolicy). */
  signInPolicy?: Readonly<Partial<Record<string, number>>>;
}

/**
 * A module as a declared unit (its `<module>.module.ts`): its name (its folder under
 * src/modules/), the modules whose faces it imports (`needs`, checked against its imports by
 * test/architecture/module-declarations.test.ts), the ports it fills, and its plugin (services,
 * routes, timers), registered by the composition root in the order of its list.
 */
export interface ModuleDeclaration {
  name: string;
  needs: readonly string[];
  fills: ModulePorts;
  /**
   * The tables of other modules whose rows, deleted, delete rows of this module's tables with them
   * (`ON DELETE CASCADE` across modules): named, so that whoever erases those rows knows what goes
   * with them. test/architecture/module-declarations.test.ts holds them to the schema.
   */
  cascadesFrom?: readonly string[];
  /** The module's plugin; `fastify-plugin`'s wrapping (a module whose hook or decoration reaches the modules after it) included. */
  plugin: FastifyPluginAsync<ModuleContext> | FastifyPluginCallback<ModuleContext>;
}
