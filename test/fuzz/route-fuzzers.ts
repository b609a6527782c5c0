import { ACTIVITIES_ROUTE_FUZZERS } from '../activities/activities.fuzz-routes.js';
import { ACTORS_ROUTE_FUZZERS } from '../actors/actors.fuzz-routes.js';
import { AUDIT_ROUTE_FUZZERS } from '../audit/audit.fuzz-routes.js';
import { AUTH_ROUTE_FUZZERS } from '../auth/auth.fuzz-routes.js';
import { COMPLETIONS_ROUTE_FUZZERS } from '../completions/completions.fuzz-routes.js';
import { IDENTITY_ROUTE_FUZZERS } from '../identity/identity.fuzz-routes.js';
import { IMPORTS_ROUTE_FUZZERS } from '../imports/imports.fuzz-routes.js';
import { LAUNCH_ROUTE_FUZZERS } from '../launch/launch.fuzz-routes.js';
import { LEARNING_ROUTE_FUZZERS } from '../learning/learning.fuzz-routes.js';
import { NOTIFICATIONS_ROUTE_FUZZERS } from '../notifications/notifications.fuzz-routes.js';
import { ORGANISATION_ROUTE_FUZZERS } from '../organisation/organisation.fuzz-routes.js';
import { PLATFORM_ROUTE_FUZZERS } from '../platform/platform.fuzz-routes.js';
import { XAPI_ROUTE_FUZZERS } from '../xapi/xapi.fuzz-routes.js';
import type { RouteFuzzer } from './requests.js';

/**
 * Each module's generators, by the folder of its tests: the routes a module registers (its
 * *.routes.ts files; the platform's, src/platform/http/) have theirs in
 * test/<module>/<module>.fuzz-routes.ts. In about the order the routes ran when one file held
 * every generator: what a route leaves in the tenant (imports, settings, credentials) is what the
 * routes after it find. A new module adds its table here.
 */
const MODULE_ROUTE_FUZZERS: Record<string, Record<string, RouteFuzzer>> = {
  xapi: XAPI_ROUTE_FUZZERS,
  platform: PLATFORM_ROUTE_FUZZERS,
  imports: IMPORTS_ROUTE_FUZZERS,
  organisation: ORGANISATION_ROUTE_FUZZERS,
  actors: ACTORS_ROUTE_FUZZERS,
  audit: AUDIT_ROUTE_FUZZERS,
  completions: COMPLETIONS_ROUTE_FUZZERS,
  auth: AUTH_ROUTE_FUZZERS,
  launch: LAUNCH_ROUTE_FUZZERS,
  activities: ACTIVITIES_ROUTE_FUZZERS,
  learning: LEARNING_ROUTE_FUZZERS,
  notifications: NOTIFICATIONS_ROUTE_FUZZERS,
  identity: IDENTITY_ROUTE_FUZZERS,
};

/**
 * One generator per route, keyed `METHOD /path` as Fastify lists it: the union of the modules'.
 * HEAD uses the GET generator. A route the app serves but no module's table has fails the
 * coverage test (routes.fuzz.test.ts); a route two modules both have fails here, as the file loads.
 */
export const ROUTE_FUZZERS: Record<string, RouteFuzzer> = {};
const owners = new Map<string, string>();
for (const [module, fuzzers] of Object.entries(MODULE_ROUTE_FUZZERS)) {
  for (const [key, fuzzer] of Object.entries(fuzzers)) {
    const owner = owners.get(key);
    if (owner !== undefined) {
      throw new Error(
        `"${key}" has a generator in two modules' route fuzzers, test/${owner}/ and test/${module}/: keep the one of the module that registers the route`,
      );
    }
    owners.set(key, module);
    ROUTE_FUZZERS[key] = fuzzer;
  }
}
