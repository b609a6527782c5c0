import type { AppConfig } from '../config.js';
import type { NotifyBus } from '../platform/database/notify-bus.js';
import type { SqlClient } from '../platform/database/sql-client.js';
import type { OutboundHttp } from '../platform/outbound-http.js';
import type { SecretBox } from '../platform/secret-box.js';

/** The shared services the composition root hands each module's build (server/composition.ts). */
export interface ModuleOptions {
  /** Every setting with its default filled in (withDefaults). */
  config: AppConfig;
  sql: SqlClient;
  /** The app's one bus between the processes of its database, for cache invalidations. */
  bus: NotifyBus;
  /** The one client for every request the server makes to an address someone else chose (the outbound guard). */
  outbound: OutboundHttp;
  /** Seals and opens the secrets kept to be presented (docs/operations.md, "Secrets at rest"). */
  secrets: SecretBox;
}
