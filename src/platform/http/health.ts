import type { FastifyInstance } from 'fastify';
import { migrationFiles, pendingMigrations } from '../database/migrate.js';
import type { SqlClient } from '../database/sql-client.js';
import type { ApiErrorBody } from './error-handler.js';

/**
 * How long readiness waits for the database. Probes give up after a second or so (Kubernetes'
 * default timeout is 1 s) and the pool may wait 5 s for a connection: answering 503 first says why.
 */
const READY_TIMEOUT_MS = 2_000;

/**
 * Something an operator should fix that leaves the process ready: `GET /health/ready` answers 200
 * and lists it under `warnings`. The code that finds it logs it once, when `add` says it is new.
 */
export interface ReadinessWarning {
  code: string;
  message: string;
}

export class ReadinessWarnings {
  private readonly byCode = new Map<string, ReadinessWarning>();

  /** Records `warning`; true the first time its code is seen in this process. */
  add(warning: ReadinessWarning): boolean {
    if (this.byCode.has(warning.code)) return false;
    this.byCode.set(warning.code, { code: warning.code, message: warning.message });
    return true;
  }

  list(): ReadinessWarning[] {
    return [...this.byCode.values()];
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** What `/health/ready` warns of (health.ts): read it with `readinessWarnings(app)`. */
    readinessWarnings: ReadinessWarnings;
  }
}

/** The warnings of `app`, whichever plugin asks first (a non-encapsulated one, or the root itself). */
export function readinessWarnings(app: FastifyInstance): ReadinessWarnings {
  if (!app.hasDecorator('readinessWarnings')) app.decorate('readinessWarnings', new ReadinessWarnings());
  return app.readinessWarnings;
}

class NotReady extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * `GET /health` and `/health/live`: the process answers. `GET /health/ready`: the database answers
 * and has every migration this build ships, with the warnings of this process beside (docs/operations.md,
 * "Metrics and health"). None needs a tenant or a credential, and none says more than that.
 */
export function registerHealth(app: FastifyInstance, sql: SqlClient): void {
  const warnings = readinessWarnings(app);
  const open = { config: { public: true }, schema: { hide: true } };
  // Kept as it was: benchmarks and existing probes call it. Same meaning as /health/live.
  app.get('/health', open, async () => ({ status: 'ok' }));
  app.get('/health/live', open, async () => ({ status: 'ok' }));

  // The files of this build: a deploy that brings new ones restarts the process anyway.
  const files = migrationFiles();
  app.get('/health/ready', open, async (request, reply) => {
    try {
      await withTimeout(checkReady(sql, files), READY_TIMEOUT_MS);
      const warned = warnings.list();
      return warned.length > 0 ? { status: 'ok', warnings: warned } : { status: 'ok' };
    } catch (error) {
      // The driver's message (a host, a port) goes to the log only: anyone may call this route.
      const notReady = error instanceof NotReady ? error : new NotReady('health.database_unavailable', 'The database did not answer.');
      request.log.warn({ err: error, code: notReady.code }, 'not ready');
      const body: ApiErrorBody = { code: notReady.code, message: notReady.message };
      if (notReady.details) body.details = notReady.details;
      return reply.status(503).header('Cache-Control', 'no-store').send(body);
    }
  });
}

async function checkReady(sql: SqlClient, files: readonly string[]): Promise<void> {
  await sql.query('SELECT 1');
  const pending = await pendingMigrations(sql, files);
  if (pending.length > 0) {
    throw new NotReady(
      'health.migrations_pending',
      `The database lacks ${pending.length} migration(s) of this version: run \`learnbase migrate\`, or start one server, which applies them.`,
      { pending },
    );
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new NotReady('health.database_timeout', `The database did not answer within ${ms / 1000} s.`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
