import type { AppConfig } from '../config.js';
import { serve, type ServeOptions } from '../server/main.js';
import { isWorker, parseWorkers, serveWorkers } from '../server/workers.js';
import type { Values } from './command.js';

/**
 * `learnbase serve [--workers N|auto]`: one process, or with --workers (or LEARNBASE_WORKERS) a
 * primary and N workers on one port (server/workers.ts); this process is one of those workers
 * when the primary started it. `commands` runs what the command line hands to a server holding
 * the PGlite folder (pglite-handoff.ts). Resolves once the server listens: it keeps running.
 */
export async function serveCommand(config: AppConfig, values: Values, commands: ServeOptions['commands']): Promise<number> {
  const workers = parseWorkers(values.workers ?? process.env.LEARNBASE_WORKERS);
  if (workers > 1 && !isWorker()) await serveWorkers(config, workers);
  else await serve(config, { worker: isWorker(), commands });
  return 0;
}
