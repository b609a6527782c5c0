import type { AppConfig } from '../config.js';
import type { NotifyBus } from './database/notify-bus.js';
import type { SqlClient } from './database/sql-client.js';

/** What the app assembly hands each module's plugin. */
export interface ModuleOptions {
  /** Every setting with its default filled in (withDefaults). */
  config: AppConfig;
  sql: SqlClient;
  /** The app's one bus between the processes of its database, for cache invalidations. */
  bus: NotifyBus;
}
